"""A controller that answers ``juju debug-log`` for the exact argv, as Juju does.

What it models, from Juju's source (the same in 2.9, 3.6 and 4.0: ``makeModulePattern``,
``paramsToSelector``/``includeRecord`` and ``maxInitialLines`` in state/logs.go@juju-2.9.31
and @3.6, internal/logtailer/tailer.go@main; the flags in cmd/juju/commands/debuglog.go):

- what is stored: a unit agent drops a line below its module's level in the model's
  logging-config before it reaches the controller, so a line the config drops is never
  answered, whatever is asked;
- ``--include-module M`` keeps M and its children at a dot boundary (``^(M1|M2)(\\..+)?$``);
  ``--level L`` is one minimum for every line; both apply together;
- ``--lines N``: the last N lines that pass; N above 10000 is refused, as Juju refuses it;
  without ``--lines`` or ``--replay``, the last 10 lines;
- the order: on 2.9 and 3.6 the store is MongoDB, read sorted by the agent's time
  (``processReversed``: ``Sort("-t", "-_id")``, state/logs.go@2.9 L606, @3.6 L549), so a
  record stored late lands among older ones; 4.0 appends to a file and reads it back in
  arrival order (``processInitialLines``, internal/logtailer/tailer.go@main L129);
- ``--date``, ``--utc``, ``--ms`` shape the time; without ``--no-tail`` the real command
  would wait for new lines forever, which a test must never do;
- any flag Juju does not know fails as the CLI fails.

Records come from real debug-log samples (tests/data/samples, each with its source).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from samples import load_sample

MAX_LINES = 10_000
DEFAULT_LINES = 10
_LEVELS = ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_SAMPLE_LINE = re.compile(
    r"(?P<entity>[^\s:]+): (?:(?P<date>\d{4}-\d{2}-\d{2}) )?(?P<time>\d{2}:\d{2}:\d{2})"
    r" (?P<level>TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<module>\S+) (?P<message>.*)"
)
_VALUE_FLAGS = {"--lines", "-n", "--level", "-l", "--include-module", "--exclude-module"}
_VALUE_FLAGS |= {"--include", "-i", "--exclude", "-x", "--limit"}
_BOOL_FLAGS = {"--replay", "--no-tail", "--date", "--utc", "--ms", "--tail", "--location"}


@dataclass(frozen=True)
class Record:
    entity: str
    when: datetime
    level: str
    module: str
    message: str


def sample_records(name: str, *, day: str = "2026-01-02") -> list[Record]:
    """A sample's log lines as records; undated samples are dated ``day``, in UTC.

    Samples have second resolution: the n-th line within one second gets n milliseconds,
    so the order is kept and consecutive lines stay distinct, as Juju's own times are.
    """
    found: list[Record] = []
    same_second: dict[datetime, int] = {}
    for line in load_sample(name).splitlines():
        match = _SAMPLE_LINE.fullmatch(line.rstrip())
        if match is None:
            continue
        second = datetime.fromisoformat(
            f"{match.group('date') or day}T{match.group('time')}"
        ).replace(tzinfo=timezone.utc)
        n = same_second.get(second, 0)
        same_second[second] = n + 1
        found.append(
            Record(
                match.group("entity"),
                second + timedelta(milliseconds=n),
                match.group("level"),
                match.group("module"),
                match.group("message"),
            )
        )
    return found


def agent_keeps(logging_config: str, module: str, level: str) -> bool:
    """loggo on the unit agent: a module's level is its nearest configured ancestor's
    (modules split at dots), else ``<root>``'s, else WARNING (loggo's default)."""
    levels = dict(
        (name.strip(), value.strip().upper())
        for name, _, value in (p.partition("=") for p in logging_config.split(";"))
        if name.strip()
    )
    parts = module.split(".")
    applied = levels.get("<root>", "WARNING")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in levels:
            applied = levels[".".join(parts[:n])]
            break
    return _LEVELS.index(level) >= _LEVELS.index(applied)


def module_pattern(modules: Sequence[str]) -> re.Pattern[str]:
    return re.compile("^(" + "|".join(re.escape(m) for m in modules) + r")(\..+)?$")


@dataclass
class DebugLogController:
    """``juju`` for one model: debug-log as above, model-config, version, show-controller."""

    logging_config: str
    version: str = "3.6.1"
    stored: list[Record] = field(default_factory=list)
    requests: list[tuple[str, ...]] = field(default_factory=list)  # every debug-log argv
    lines_sent: list[int] = field(default_factory=list)

    def log(self, records: Iterable[Record]) -> None:
        """What the unit agents send: only lines the model's logging-config keeps."""
        self.stored.extend(
            r for r in records if agent_keeps(self.logging_config, r.module, r.level)
        )

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        verb = args[0]
        if verb == "debug-log":
            return self.debug_log(tuple(args[1:]))
        if verb == "version":
            return 0, f"{self.version}-genericlinux-amd64\n", ""
        if verb == "show-controller":
            details = {"agent-version": self.version, "cloud": "microk8s"}
            return 0, json.dumps({"mk8s": {"details": details}}), ""
        if verb == "model-config" and "--format" in args:
            config = {"logging-config": {"Value": self.logging_config, "Source": "model"}}
            return 0, json.dumps(config), ""
        if verb == "status":
            return 0, json.dumps({"model": {"version": self.version}, "applications": {}}), ""
        return 0, "", ""

    def debug_log(self, args: tuple[str, ...]) -> tuple[int, str, str]:
        self.requests.append(args)
        flags: dict[str, list[str]] = {}
        i = 0
        while i < len(args):
            name = args[i]
            if name in _VALUE_FLAGS:
                flags.setdefault(name, []).append(args[i + 1])
                i += 2
            elif name in _BOOL_FLAGS:
                flags[name] = []
                i += 1
            else:
                return 2, "", f"ERROR option provided but not defined: {name}\n"
        if "--no-tail" not in flags:
            raise AssertionError(f"juju debug-log {' '.join(args)} would wait for new lines")
        level = (flags.get("--level") or flags.get("-l") or ["TRACE"])[-1].upper()
        if level not in _LEVELS[:5]:
            return 1, "", f'ERROR level value "{level}" is not one of ...\n'
        stored = self.stored
        if not self.version.startswith("4."):
            stored = sorted(stored, key=lambda r: r.when)  # stable: arrival breaks ties
        kept = [r for r in stored if _LEVELS.index(r.level) >= _LEVELS.index(level)]
        modules = flags.get("--include-module", [])
        if modules:
            pattern = module_pattern(modules)
            kept = [r for r in kept if pattern.match(r.module)]
        if "--replay" not in flags:
            count = int((flags.get("--lines") or flags.get("-n") or [str(DEFAULT_LINES)])[-1])
            if count > MAX_LINES:
                return 1, "", f"ERROR too many lines requested ({count}) maximum is {MAX_LINES}\n"
            kept = kept[-count:] if count else []
        self.lines_sent.append(len(kept))
        out = "".join(self._format(r, flags) + "\n" for r in kept)
        return 0, out, ""

    @staticmethod
    def _format(record: Record, flags: dict[str, list[str]]) -> str:
        moment = record.when  # stored in UTC; --utc prints it as it is
        stamp = moment.strftime("%H:%M:%S")
        if "--ms" in flags:
            stamp += f".{moment.microsecond // 1000:03d}"
        if "--date" in flags:
            stamp = moment.strftime("%Y-%m-%d ") + stamp
        return f"{record.entity}: {stamp} {record.level} {record.module} {record.message}"
