"""Reading the time stamps the evidence carries: ISO 8601 from the harness and the probe,
``[YYYY-MM-DD ]HH:MM:SS[.fff]`` as ``juju debug-log`` writes them (with or without ``--date``).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

_FRACTION = re.compile(r"[.,](\d+)")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?$")


def parse_instant(text: str) -> datetime | None:
    """A dated time stamp as an aware datetime (naive ones are taken as UTC), else None."""
    value = text.strip()
    if not value or len(value) < 10 or value[4] != "-":
        return None
    # Python 3.10's fromisoformat takes neither "Z" nor fractions other than 3 or 6 digits.
    value = _FRACTION.sub(
        lambda m: "." + (m.group(1) + "000000")[:6], value.replace("Z", "+00:00")
    )
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def seconds_of_day(text: str) -> float | None:
    """Seconds since midnight of a dated or undated time stamp, else None."""
    moment = parse_instant(text)
    if moment is not None:
        return moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6
    match = _CLOCK.match(text.strip())
    if not match:
        return None
    hours, minutes, seconds, fraction = match.groups()
    frac = float(f"0.{fraction}") if fraction else 0.0
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds) + frac


def duration(start: str, end: str) -> float | None:
    """Seconds from ``start`` to ``end`` (both dated), else None."""
    a, b = parse_instant(start), parse_instant(end)
    if a is None or b is None:
        return None
    return (b - a).total_seconds()


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{rest:04.1f}s"
