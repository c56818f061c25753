"""What settling's looks at the debug-log cost the controller (issue 23, point 10).

The benchmark (benchmarks/bench_debug_log_look.py) measures the client: the lines sent and
parsed. The controller's share is the records it walks to answer: for ``--lines N`` with a
module and a level filter, Juju 2.9 and 3.6 run one query with both filters on each
document, sorted newest first over the logs collection's (t, _id) index and limited to N
(``processReversed`` and ``paramsToSelector``, state/logs.go@2.9 and @3.6; ``logIndexes``
there has no index on the module or the level), so Mongo walks every stored record from
the newest until N pass; Juju 4.0 scans the model's log file backwards, parsing and
matching each line until N pass (``processInitialLines``, ``includeRecord``,
internal/logtailer/tailer.go@main). ``walked`` below counts exactly that, for the argv the
harness sent, over what the controller stored (``DebugLogController``: only what the
model's logging-config let the agents send). Not measured here: the controller's own time
per record (Mongo's, or 4.0's regex compiled per line), which needs a real controller.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from debug_log_controller import (
    MAX_LINES,
    DebugLogController,
    Record,
    module_pattern,
    sample_records,
)
from live_fakes import FakeClock
from test_juju_port_contract import autospec_juju

from harness.common.logging_config import LEVELS
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.juju_cli import JujuCLI
from harness.observe.log_cursor import LogCursor

# Real debug-log lines: a debug-level uniter (its DEBUG operation lines between hooks), a
# machine agent's workers and a charm's ops lines, a COS-lite model's uniter INFO lines.
MIX = (
    "debuglog_2.7_machine_uo_install_debug_level.txt",
    "debuglog_3.6.6_machine_postgresql_uniter_and_ops_full.txt",
    "debuglog_3.6.3_k8s_cos_lite_full.txt",
)
# A CI bootstrap's model-defaults (actions-operator: test_live_juju_port.MODEL_CONFIG_CI).
CI_DEFAULT = "<root>=DEBUG"


def walked(stored: Sequence[Record], args: Sequence[str]) -> int:
    """Records the controller walks to answer ``juju debug-log args``: newest first until
    ``--lines`` of them pass the module and level filters; all of them for ``--replay``."""
    flags = list(args)
    level = flags[flags.index("--level") + 1] if "--level" in flags else "TRACE"
    modules = [flags[i + 1] for i, a in enumerate(flags) if a == "--include-module"]
    pattern = module_pattern(modules) if modules else None
    if "--replay" in flags:
        return len(stored)
    want = int(flags[flags.index("--lines") + 1])
    assert want <= MAX_LINES
    passed = 0
    for n, record in enumerate(reversed(stored), start=1):
        if LEVELS.index(record.level) >= LEVELS.index(level) and (
            pattern is None or pattern.match(record.module)
        ):
            passed += 1
            if passed == want:
                return n
    return len(stored)


def records(count: int, start: int = 0) -> list[Record]:
    """``count`` records cycled from MIX, 100 ms apart, the ``start``-th onwards."""
    shapes = [r for name in MIX for r in sample_records(name)]
    first = shapes[0].when
    return [
        replace(shape, when=first + timedelta(milliseconds=100 * n))
        for n, shape in zip(
            range(start, start + count),
            itertools.islice(itertools.cycle(shapes), start, None),
            strict=False,
        )
    ]


async def settle_looks(
    config: str, *, created: bool, history: int, new: int, looks: int
) -> tuple[DebugLogController, list[tuple[int, ...]], list[int]]:
    """A model at ``config`` opened by the harness (created or not), ``history`` records
    logged, then ``looks`` settle looks with ``new`` records before each. Returns the
    controller (its logging-config and what it stored), and per look the records walked by
    each request (ops' stream first, then the hook lines') and the lines sent."""
    controller = DebugLogController(config, version="3.6.6")
    model_config = {"logging-config": config}
    juju: Any = autospec_juju(None, model_config, "mk8s:admin/m")  # type: ignore[arg-type]
    port = JubilantJujuPort(juju, clock=FakeClock(), cli=JujuCLI(controller))
    port.adopt(created=created, juju_defaults=True)
    await port.keep_hook_logging()
    # The agents apply the model's logging-config (worker/logger) from then on.
    controller.logging_config = model_config["logging-config"]
    controller.log(records(history))
    cursor, ops = LogCursor(port), LogCursor(port, read=port.ops_log_recent)
    await ops.new_lines(), await cursor.new_lines()  # the look before
    walks: list[tuple[int, ...]] = []
    sent: list[int] = []
    for look in range(looks):
        controller.log(records(new, history + look * new))
        asked, sent_before = len(controller.requests), len(controller.lines_sent)
        await ops.new_lines(), await cursor.new_lines()
        walks.append(tuple(walked(controller.stored, a) for a in controller.requests[asked:]))
        sent.append(sum(controller.lines_sent[sent_before:]))
    return controller, walks, sent


def chatter(stored: Sequence[Record]) -> int:
    """Stored records below INFO other than the charms' own (``unit`` juju-log) lines."""
    return sum(
        1
        for r in stored
        if LEVELS.index(r.level) < LEVELS.index("INFO") and not r.module.startswith("unit.")
    )


async def test_a_young_model_s_every_look_walks_all_it_stored_so_ours_stores_no_chatter() -> None:
    """Fewer hook lines stored than a look asks for (a model minutes old): each look makes
    the controller walk the whole stored log for them. On a model the harness created, at a
    CI's ``<root>=DEBUG``, that log holds no worker chatter; a model it did not create is
    left as it is."""
    young = {"history": 1_000, "new": 20, "looks": 4}  # 128 hook-stream lines at most
    left, walks, sent = await settle_looks(CI_DEFAULT, created=False, **young)
    ours, our_walks, our_sent = await settle_looks(CI_DEFAULT, created=True, **young)
    assert (left.logging_config, ours.logging_config) == (CI_DEFAULT, "<root>=INFO;unit=DEBUG")
    stored, our_stored = len(left.stored), len(ours.stored)
    # The hook stream's request (each look's second) walked everything stored.
    assert [w[-1] for w in walks] == [stored - 20 * n for n in (3, 2, 1, 0)]
    assert [w[-1] for w in our_walks][-1] == our_stored
    # The same lines reach the client: hook lines at INFO, ops' at DEBUG, kept by both.
    assert our_sent == sent
    assert our_stored < stored
    print(f"young model: {walks[-1]} -> {our_walks[-1]} records walked a look")


async def test_a_look_walks_what_its_batch_needs_not_the_history() -> None:
    """Once a stream holds more than a look asks for, a look walks back to its 200th
    matching record, or to the one-minute overlap behind the newest record read (records
    stored late: harness.observe.log_cursor) when 200 do not reach it, however long the
    model's history: bounded by the batch and the overlap, not the log."""
    walked_at = {}
    for history in (5_000, 50_000):
        controller, walks, sent = await settle_looks(
            CI_DEFAULT, created=True, history=history, new=20, looks=3
        )
        stored = len(controller.stored)
        assert stored >= history * 0.9
        # Two streams; a stream grows its batch once (200, then 800) where 200 records of
        # it (here 20 s at 100 ms apart) fall short of the minute of overlap.
        assert all(len(w) <= 3 for w in walks)
        assert all(s <= 2 * (200 + 800) for s in sent)
        walked_at[history] = max(sum(w) for w in walks)
        print(f"history {history}: {walks} records walked a look, {stored} stored")
    assert walked_at[50_000] <= 1.25 * walked_at[5_000]
    assert walked_at[50_000] < 0.1 * 50_000


async def test_on_a_model_it_created_no_chatter_is_stored_to_be_walked() -> None:
    ours, _, _ = await settle_looks(CI_DEFAULT, created=True, history=2_000, new=0, looks=0)
    left, _, _ = await settle_looks(CI_DEFAULT, created=False, history=2_000, new=0, looks=0)
    assert chatter(ours.stored) == 0
    assert chatter(left.stored) > 0
    # what settling reads is all still there: the uniter's lines and the charms' DEBUG lines
    kept = [r for r in left.stored if r.module.startswith(("juju.worker.uniter", "unit."))]
    assert [r for r in kept if r.level != "DEBUG" or r.module.startswith("unit.")] == [
        r for r in ours.stored if r.module.startswith(("juju.worker.uniter", "unit."))
    ]
