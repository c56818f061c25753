"""What ``run_disruption`` gives back: a ``TwinResult``, or a ``CharmHookError`` when the
charm raised in a hook (carrying the result up to that hook)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ops import testing

from harness.common.errors import HarnessError, UnknownName
from harness.common.redact import looks_secret, scrub
from harness.twin.layer_paths import in_layer
from harness.twin.trace import HookTrace
from harness.twin.workload import ExecHandler, ExecHandlerError, Recorder, attached

BRIEF_HOOKS = 5  # hooks a repr names before "... N more"


def secret_values(state: testing.State) -> set[str]:
    """What a State holds that must not be printed: secret-looking relation data (keys as
    ``harness.common.redact`` judges them) and every value of every secret's content."""
    found: set[str] = set()
    for relation in state.relations:
        bags: list[Mapping[str, str]] = [relation.local_app_data, relation.local_unit_data]
        for name in ("remote_app_data", "remote_unit_data"):
            bags.append(getattr(relation, name, {}))
        for name in ("remote_units_data", "peers_data"):
            bags.extend(getattr(relation, name, {}).values())
        found |= {v for bag in bags for k, v in bag.items() if looks_secret(k)}
    for secret in state.secrets:
        for content in (secret.tracked_content, secret.latest_content):
            values: Mapping[str, Any] = content or {}
            found |= {str(v) for v in values.values()}
    return found


@dataclass(frozen=True, repr=False)
class TwinResult:
    """What one SIMULATED disruption did to one unit."""

    disruption: str
    juju_version: str
    hooks: tuple[str, ...]  # the hooks that ran, in order
    skipped: tuple[tuple[str, str], ...]  # (hook, why the twin could not run it)
    state: testing.State  # the final state: run more events on it with the same Context
    trace: tuple[HookTrace, ...] = ()  # per hook: commands, pushes, status after
    variant: str | None = None
    unit: str = ""  # the unit's name after the disruption
    simulated: bool = True
    # Set when the Juju version is past every version the catalogue names (4.1, 5.0).
    extrapolation: str | None = None
    # Each container's root filesystem layer at the end (for paths no mount covers).
    _roots: Mapping[str, Path] = field(default_factory=dict, compare=False)
    # Secret-looking relation values and secret contents the run saw: never printed.
    _secrets: frozenset[str] = field(default_factory=frozenset, compare=False)
    # The Context and exec handlers of the run, for ``workload()``.
    _ctx: Any = field(default=None, compare=False)
    _handlers: Mapping[str, Mapping[tuple[str, ...], ExecHandler]] = field(
        default_factory=dict, compare=False
    )

    @contextlib.contextmanager
    def workload(self) -> Iterator[None]:
        """The run's exec handlers, attached for further runs with its Context::

            with result.workload():
                out = ctx.run(ctx.on.update_status(), result.state)

        Outside the block, ``ctx.run`` answers commands as ops.testing always does.
        """
        with attached(self._ctx, self._handlers, Recorder()):
            yield

    def _heading(self) -> str:
        name = self.disruption if self.variant is None else f"{self.disruption}/{self.variant}"
        juju = self.juju_version + (" (extrapolated)" if self.extrapolation else "")
        return f"TwinResult(SIMULATED {name} on Juju {juju}, {self.unit}:"

    def __repr__(self) -> str:
        """One line: the hooks (the first few), what failed or was skipped."""
        hooks = list(self.hooks[:BRIEF_HOOKS])
        if len(self.hooks) > BRIEF_HOOKS:
            hooks.append(f"... {len(self.hooks) - BRIEF_HOOKS} more")
        parts = [f"{len(self.hooks)} hooks ({', '.join(hooks) or 'none'})"]
        failed = [t.hook for t in self.trace if t.outcome == "failed"]
        if failed:
            parts.append(f"failed: {', '.join(failed)}")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        return f"{self._heading()} {'; '.join(parts)})"

    def __str__(self) -> str:
        """What each hook did, one per line, with secret values redacted as in evidence."""
        lines = [self._heading()]
        lines.extend(f"  {scrub(hook.brief(), self._secrets)}" for hook in self.trace)
        return "\n".join(lines) + ")"

    def path(self, container: str, path: str) -> Path:
        """Where a file of the container's final filesystem lives on this machine."""
        found = self._container(container)
        if not path.startswith("/"):
            raise HarnessError(
                f"{path!r} is not an absolute path", "give a path such as /etc/app/app.conf"
            )
        best: tuple[int, Path] | None = None
        target = PurePosixPath(path)
        for mount in found.mounts.values():
            location = PurePosixPath(str(mount.location))
            if target == location or location in target.parents:
                depth = len(location.parts)
                if best is None or depth > best[0]:
                    best = (
                        depth,
                        Path(mount.source).joinpath(*target.relative_to(location).parts),
                    )
        if best is not None:
            return best[1]
        return in_layer(self._roots[container], path)

    def read_text(self, container: str, path: str) -> str | None:
        """The file's text after the disruption, or None when it is not there."""
        local = self.path(container, path)
        return local.read_text() if local.is_file() else None

    def _container(self, name: str) -> testing.Container:
        for container in self.state.containers:
            if container.name == name:
                return container
        known = ", ".join(sorted(c.name for c in self.state.containers)) or "none"
        raise UnknownName(
            f"the unit has no container {name!r} (simulated)", f"containers: {known}"
        )


class CharmHookError(HarnessError):
    """The charm raised in a hook the twin ran: names the disruption, the step, the hook
    and the Juju version; the charm's exception is chained (``__cause__``).

    ``partial`` is the result up to the failing hook (hooks run so far, their trace, and
    as ``partial.state`` the state the failing hook was given).
    """

    def __init__(
        self,
        *,
        disruption: str,
        step: str,
        hook: str,
        juju_version: str,
        error: BaseException,
        partial: TwinResult,
    ) -> None:
        self.disruption = disruption
        self.step = step
        self.hook = hook
        self.juju_version = juju_version
        self.partial = partial
        ran = ", ".join(partial.hooks) or "none"
        what = scrub(
            str(error)
            if isinstance(error, ExecHandlerError)
            else f"the charm raised {type(error).__name__}: {error}",
            partial._secrets,
        )
        fix = (
            "the charm's exception is chained below; .partial holds the hooks run and the "
            "state the hook was given"
        )
        if "Context.juju_version" in what:
            # ops.testing's advice; the twin sets Context.juju_version for each run.
            fix = (
                f"the twin runs the Juju version given as run_disruption(juju_version=...), "
                f"which replaces Context.juju_version; {fix}"
            )
        super().__init__(
            f"SIMULATED {disruption} on Juju {juju_version}: {what} in hook {hook!r} "
            f"({step}); hooks before it: {ran}",
            fix,
        )
