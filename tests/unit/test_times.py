"""Time stamps as the evidence carries them (ISO from the harness, debug-log styles)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from harness.common.times import duration, format_duration, parse_instant, seconds_of_day

UTC = timezone.utc


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01T10:00:00+00:00", datetime(2026, 1, 1, 10, tzinfo=UTC)),
        ("2026-01-01T10:00:00Z", datetime(2026, 1, 1, 10, tzinfo=UTC)),
        ("2026-01-01 10:00:00", datetime(2026, 1, 1, 10, tzinfo=UTC)),
        ("2026-01-01 10:00:00.5", datetime(2026, 1, 1, 10, 0, 0, 500000, tzinfo=UTC)),
        ("2026-01-01 10:00:00,123", datetime(2026, 1, 1, 10, 0, 0, 123000, tzinfo=UTC)),
        ("2026-01-01T10:00:00.1234567+00:00", datetime(2026, 1, 1, 10, 0, 0, 123456, tzinfo=UTC)),
        ("10:00:00", None),
        ("soon", None),
    ],
)
def test_parse_instant(text: str, expected: datetime | None) -> None:
    assert parse_instant(text) == expected


def test_seconds_of_day_reads_dated_and_undated_times() -> None:
    assert seconds_of_day("01:02:03") == 3723
    assert seconds_of_day("01:02:03.250") == 3723.25
    assert seconds_of_day("2026-01-01 01:02:03") == 3723
    assert seconds_of_day("later") is None


def test_durations() -> None:
    assert duration("2026-01-01T10:00:00+00:00", "2026-01-01T10:01:42+00:00") == 102
    assert duration("10:00:00", "10:01:00") is None
    assert format_duration(102) == "1m42.0s"
    assert format_duration(3.04) == "3.0s"
    assert format_duration(None) == "?"
