"""What Juju does after a hook fails, as the twin's uniter applies it.

- The unit goes into ``error``, ``hook failed: "<hook>"`` (worker/uniter/uniter.go, 3.6:
  ``statusMessage := fmt.Sprintf("hook failed: %q", hookMessage)``).
- No later hook runs as if it had succeeded: the resolver returns the failed hook's
  operation (worker/uniter/resolver.go ``nextOpHookError``); relation, secret and
  leadership resolvers wait for ``operation.Continue``. Two exceptions: actions run in
  error (actions/resolver.go: "We can still run actions if the unit is in a hook error
  state"), and workload hooks (pebble-ready, notices, checks) run when the failed hook is
  itself a workload hook (container/workload.go).
- With ``automatically-retry-hooks`` (true by default: environs/config/config.go) the
  failed hook is run again after a backoff: 5 s, doubling, at most 5 minutes, with
  +-3% jitter from the second retry (apiserver/facades/agent/retrystrategy/retrystrategy.go:
  ``MinRetryTime = 5 * time.Second``, ``MaxRetryTime = 5 * time.Minute``,
  ``RetryTimeFactor = 2``; juju/utils timer.go ``increaseDuration``; the same at 2.9.31,
  3.6 and 4.0-beta5). The twin uses the delays without jitter (deterministic).

Juju retries for as long as the hook fails; the twin's charms are deterministic, so once
the delay reaches its 5-minute ceiling another retry would only fail the same way: the
twin stops there (``RETRY_DELAYS``, 615 s on its simulated clock) and the unit stays in
error, which the evidence says.
"""

from __future__ import annotations

import traceback
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.common.charm_errors import CharmError

RETRY_DELAYS: tuple[float, ...] = (5, 10, 20, 40, 80, 160, 300)
"""Seconds before each retry: Juju's backoff up to its ceiling (see the module doc)."""

WORKLOAD_HOOK_SUFFIXES = (
    "-pebble-ready",
    "-pebble-custom-notice",
    "-pebble-check-failed",
    "-pebble-check-recovered",
)


def is_workload_hook(hook: str) -> bool:
    return hook.endswith(WORKLOAD_HOOK_SUFFIXES)


def runs_in_error(hook: str, failed: str) -> bool:
    """Whether Juju runs ``hook`` while the unit is in error because ``failed`` failed."""
    return is_workload_hook(hook) and is_workload_hook(failed)


def held_reason(unit: str, failed: str) -> str:
    return (
        f"held: {unit} is in error (hook failed: {failed!r}); Juju runs no other hook "
        "until that one succeeds (worker/uniter/resolver.go nextOpHookError)"
    )


TRACEBACK_FRAMES = 5
"""How many of a charm exception's innermost frames the evidence keeps."""


@dataclass
class HookFailure:
    """A hook the charm failed, while the uniter retries it (becomes a ``CharmError``)."""

    app: str
    unit: str
    hook: str
    exception: str
    traceback: tuple[str, ...]
    time: str
    attempts: int = 1
    recovered: bool = False
    held: list[str] = field(default_factory=list)
    undetermined: str = ""

    def value(self) -> CharmError:
        return CharmError(
            app=self.app,
            unit=self.unit,
            hook=self.hook,
            exception=self.exception,
            traceback=self.traceback,
            time=self.time,
            attempts=self.attempts,
            recovered=self.recovered,
            held=tuple(self.held),
            undetermined=self.undetermined,
        )


def frames(error: BaseException, charm_dir: Path | None) -> tuple[str, ...]:
    """The innermost frames of ``error``'s traceback, as ``path:line in function: code``;
    a path inside the charm is relative to its folder, one in site-packages to that."""
    found = []
    for frame in traceback.extract_tb(error.__traceback__)[-TRACEBACK_FRAMES:]:
        path = Path(frame.filename)
        if charm_dir is not None and path.is_relative_to(charm_dir):
            shown = path.relative_to(charm_dir).as_posix()
        elif "site-packages" in path.parts:
            shown = "/".join(path.parts[path.parts.index("site-packages") + 1 :])
        else:
            shown = path.name
        found.append(f"{shown}:{frame.lineno} in {frame.name}: {(frame.line or '').strip()}")
    return tuple(found)


# What a charm that reaches for its pod's Kubernetes API meets off a cluster.
_KUBERNETES_SIGNS = (
    "/var/run/secrets/kubernetes.io",
    "Service host/port is not set",  # kubernetes.config.load_incluster_config
    "Configuration file not found",  # lightkube's KubeConfig
)

# ops' Container calls whose answer comes from the workload's image and its Pebble.
_WORKLOAD_CALLS = frozenset(
    {
        "get_service", "get_services", "get_check", "get_checks", "start", "stop", "restart",
        "replan", "pull", "pull_path", "list_files", "exists", "isdir", "remove_path",
        "make_dir", "push", "push_path", "get_plan", "send_signal",
    }
)  # fmt: skip


def workload_doubt(
    error: BaseException, unanswered: Sequence[str], images: Collection[str]
) -> str:
    """Why a hook's failure may be the twin's ignorance of the workload, not a charm bug.

    A command no exec handler answered is "not found" in ops.testing, where the real
    workload would have run it; a Pebble service, check or path the charm expected comes
    from the container's image (a rock ships its own Pebble layers and files), which the
    twin knows only when the image is declared. Empty when neither is involved.
    """
    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    names = {type(e).__name__ for e in chain}
    if any(sign in str(e) for e in chain for sign in _KUBERNETES_SIGNS) or any(
        part in frame.filename
        for e in chain
        for frame in traceback.extract_tb(e.__traceback__)
        for part in ("/lightkube/", "/kubernetes/")
    ):
        return (
            "the charm needs its pod's Kubernetes API (the service account, the in-cluster "
            "config, a lightkube or kubernetes client), which the twin does not simulate for "
            "a charm of yours"
        )
    if unanswered and names & {"ExecError", "CalledProcessError", "FileNotFoundError"}:
        return (
            f"the charm ran {', '.join(unanswered)}, which the twin cannot run: no exec handler "
            "answers it, so ops.testing said 'not found' where the workload would have run it"
        )
    for e in chain:
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.name in _WORKLOAD_CALLS and frame.filename.endswith(
                ("ops/model.py", "ops/pebble.py")
            ):
                where = f"{frame.name}() on a workload container"
                if images:
                    return ""
                return (
                    f"the charm failed in {where}, whose answer comes from the container's "
                    "image (a rock's own Pebble layers and files), which the twin does not know "
                    "(no image given for it)"
                )
    return ""
