"""TwinJuju: the JujuPort of the twin (one simulated model, named ``twin-simulated``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from ops import testing

from harness.common.charm_errors import CharmError
from harness.common.errors import HarnessError, UnknownName
from harness.common.observations import Databag, HookRecord, UnitStatus
from harness.common.versions import CharmVersion, Versions
from harness.lab.ports import ActionResult, AppSpec
from harness.scenario.charm_assumes import simulated_refusal
from harness.twin import compat
from harness.twin.charms import CharmSource
from harness.twin.clock import iso
from harness.twin.leadership import leads
from harness.twin.model import App, RelationEnd, TwinRelation, Unit
from harness.twin.names import MODEL_NAME
from harness.twin.uniter import Dispatched
from harness.twin.world import Twin

SIMULATED = "(simulated)"

# How Juju 3.x writes a hook result (worker/uniter/operation/runhook.go).
_RAN = (
    'INFO juju.worker.uniter.operation ran "{hook}" hook (via hook dispatching script: dispatch)'
)
_FAILED = (
    'ERROR juju.worker.uniter.operation hook "{hook}" (via hook dispatching script: dispatch)'
    " failed: {detail}"
)
_REBOOT = "INFO juju.worker.uniter reboot detected; triggering implicit start hook to notify charm"
# Not a Juju line: what the twin could not run; the parser makes it a not-run record.
_SKIPPED = 'WARNING juju.worker.uniter.operation twin-simulated: "{hook}" hook not run: {detail}'


def render_debug_log(dispatched: Sequence[Dispatched]) -> Iterator[str]:
    """The hooks the twin dispatched as ``juju debug-log`` lines (Juju 3.x, no date)."""
    for item in dispatched:
        app, _, number = item.unit.partition("/")
        prefix = f"unit-{app}-{number}: {item.time.strftime('%H:%M:%S')} "
        if item.reboot:
            yield prefix + _REBOOT
        if item.outcome == "ok":
            yield prefix + _RAN.format(hook=item.hook)
        elif item.outcome == "failed":
            detail = " ".join(item.detail.split()) or "exit status 1"
            yield prefix + _FAILED.format(hook=item.hook, detail=detail)
        else:
            yield prefix + _SKIPPED.format(hook=item.hook, detail=item.detail)


def flatten(results: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """Nested action results as dotted keys with string values, as the live parser gives."""
    for key, value in results.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from flatten(value, f"{name}.")
        elif isinstance(value, str):
            yield name, value
        else:
            yield name, json.dumps(value)


class TwinJuju:
    """The JujuPort over a ``Twin``; everything it reports says simulated."""

    def __init__(self, twin: Twin, charms: Mapping[str, CharmSource]) -> None:
        self._twin = twin
        self._charms = charms

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    # Deploying -----------------------------------------------------------------------

    def _source(self, charm: str) -> CharmSource:
        name = charm.rstrip("/").rpartition("/")[2]
        if charm in self._charms:
            return self._charms[charm]
        # A local path to the probe: charms/probe, ./probe_ubuntu-22.04-amd64.charm, ...
        if name.startswith("probe") and "probe" in self._charms:
            return self._charms["probe"]
        known = ", ".join(sorted(self._charms))
        raise UnknownName(
            f"the twin cannot run charm {charm!r}",
            f"it runs {known}; pass charms={{...}} to harness.twin.make_lab for others",
        )

    async def deploy(self, spec: AppSpec) -> None:
        self.deploy_now(spec)

    def deploy_now(self, spec: AppSpec) -> None:
        """``deploy`` without an event loop (``make_lab(stack)`` deploys with it)."""
        twin = self._twin
        twin.node.require_up()
        if spec.app in twin.records.apps:
            raise HarnessError(f"application {spec.app} is already deployed", "pick a new name")
        if spec.units < 1:
            raise HarnessError(f"cannot deploy {spec.app} with {spec.units} units", "use 1+")
        source = self._source(spec.charm)
        compat.check_unified_charmcraft(source.meta, spec.app)
        refused = simulated_refusal(source.meta, str(twin.version))
        if refused is not None:
            raise refused
        ctx: testing.Context[Any] = testing.Context(
            source.charm_type,
            meta=dict(source.meta),
            app_name=spec.app,
            juju_version=compat.context_version(twin.version),
            app_trusted=spec.trust,
        )
        app = App(
            name=spec.app,
            charm=source,
            ctx=ctx,
            charm_ref=spec.charm,
            channel=spec.channel,
            config={k: source.config_value(k, v) for k, v in spec.config.items()},
            trusted=spec.trust,
            resources=dict(spec.resources),
        )
        twin.deploy_app(app, spec.units)

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        self.integrate_now(endpoint_a, endpoint_b)

    def integrate_now(self, endpoint_a: str, endpoint_b: str) -> None:
        twin = self._twin
        twin.node.require_up()
        a, b = self._end(endpoint_a), self._end(endpoint_b)
        if a.interface != b.interface or {a.role, b.role} != {"provides", "requires"}:
            raise HarnessError(
                f"cannot integrate {endpoint_a} ({a.role} {a.interface}) with "
                f"{endpoint_b} ({b.role} {b.interface})",
                "pair a provides endpoint with a requires endpoint of the same interface",
            )
        for relation in twin.records.relations:
            if {relation.a, relation.b} == {a, b}:
                raise HarnessError(f"{endpoint_a} and {endpoint_b} are already related")
        twin.integrate(a, b)

    def _end(self, text: str) -> RelationEnd:
        app_name, _, endpoint = text.partition(":")
        app = self._twin.records.app(app_name)
        found = app.charm.endpoint(endpoint) if endpoint else None
        if found is None:
            raise UnknownName(
                f"{app_name} has no endpoint {endpoint!r}",
                "give it as <app>:<endpoint>, as in the charm's metadata",
            )
        role, interface = found
        if role == "peers":
            raise HarnessError(f"{text} is a peer endpoint", "Juju relates peers by itself")
        return RelationEnd(
            app_name, endpoint, interface, "provides" if role == "provides" else "requires"
        )

    async def set_config(self, app: str, values: Mapping[str, str]) -> None:
        twin = self._twin
        twin.node.require_up()
        target = twin.records.app(app)
        new = dict(target.config)
        new.update({k: target.charm.config_value(k, v) for k, v in values.items()})
        if new == target.config:
            return  # Juju runs no hook when nothing changed
        target.config = new
        self._config_changed(target)

    async def trust(self, app: str) -> None:
        twin = self._twin
        twin.node.require_up()
        target = twin.records.app(app)
        if target.trusted:
            return
        # Trust is application config to Juju: changing it runs config-changed.
        target.trusted = True
        self._config_changed(target)

    def _config_changed(self, app: App) -> None:
        for unit in sorted(app.units, key=lambda u: u.number):
            self._twin.uniter.run_hook(unit, "config-changed", "config")
        self._twin.settle()

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        self._twin.node.require_up()
        target = self._twin.records.app(app)
        if channel:
            target.channel = channel
        self._twin.refresh(app, resources)

    async def scale(self, app: str, units: int) -> None:
        self._twin.node.require_up()
        self._twin.scale(app, units)

    # Reading -------------------------------------------------------------------------

    async def units(self, app: str) -> tuple[str, ...]:
        self._twin.node.require_up()
        return tuple(
            u.name for u in sorted(self._twin.records.app(app).units, key=lambda u: u.number)
        )

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]:
        twin = self._twin
        twin.node.require_up()
        names = list(apps) or sorted(twin.records.apps)
        found: list[UnitStatus] = []
        for name in names:
            app = twin.records.app(name)
            for unit in sorted(app.units, key=lambda u: u.number):
                found.append(
                    UnitStatus(
                        unit=unit.name,
                        workload=str(unit.status.name),
                        workload_message=str(unit.status.message),
                        agent=unit.agent,
                        leader=leads(app, unit),
                    )
                )
        return tuple(found)

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        twin = self._twin
        twin.node.require_up()
        target = twin.records.unit(unit)
        app = twin.records.apps[target.app]
        actions = app.charm.meta.get("actions") or {}
        if action not in actions:
            known = ", ".join(sorted(actions)) or "none"
            raise UnknownName(f"{app.name} has no action {action!r}", f"use one of: {known}")
        typed = _typed_params(actions[action], params or {})
        status, results, message = twin.uniter.run_action(target, action, typed)
        twin.settle()
        return ActionResult(
            unit=unit,
            action=action,
            status=status,
            results=dict(flatten(results)),
            return_code=0 if status == "completed" else 1,
            message=message,
        )

    async def unit_relations(self, unit: str) -> tuple[Databag, ...]:
        """The databags ``juju show-unit`` reports: the remote app's, the unit's own, and
        each remote unit's (for a peer relation, the app's own and its peers')."""
        twin = self._twin
        twin.node.require_up()
        target = twin.records.unit(unit)
        bags: list[Databag] = []
        for relation in twin.records.relations:
            if relation.involves(target.app):
                bags.extend(self._show_unit(relation, target))
        return tuple(bags)

    def _show_unit(self, relation: TwinRelation, unit: Unit) -> Iterator[Databag]:
        twin = self._twin
        end, other = relation.end(unit.app), relation.other(unit.app)

        def bag(owner: str, scope: str, data: Mapping[str, str]) -> Databag:
            return Databag(
                relation_id=relation.id,
                endpoint=end.endpoint,
                remote_endpoint=other.endpoint,
                owner=owner,
                scope="app" if scope == "app" else "unit",
                seen_by=unit.name,
                source="show-unit",
                data=dict(data),
            )

        yield bag(other.app, "app", relation.app_data.get(other.app, {}))
        yield bag(unit.name, "unit", relation.unit_data.get(unit.name, {}))
        for remote in sorted(twin.records.apps[other.app].units, key=lambda u: u.number):
            if remote is not unit:
                yield bag(remote.name, "unit", relation.unit_data.get(remote.name, {}))

    def hook_records(self) -> tuple[HookRecord, ...]:
        """Every hook the twin's uniter handled (source ``twin``): ran, failed or skipped
        (a skipped one says why in ``detail``)."""
        return tuple(
            HookRecord(
                unit=item.unit,
                time=iso(item.time),
                kind="hook",
                source="twin",
                hook=item.hook,
                outcome=item.outcome,
                detail=item.detail or item.cause,
            )
            for item in self._twin.uniter.dispatched
        )

    def charm_errors(self) -> tuple[CharmError, ...]:
        """Every hook a charm failed (SIMULATED clock), with Juju's retries of it."""
        return self._twin.uniter.charm_errors()

    async def debug_log(self) -> str:
        self._twin.node.require_up()
        return "".join(f"{line}\n" for line in render_debug_log(self._twin.uniter.dispatched))

    async def debug_log_recent(self, lines: int) -> str:
        self._twin.node.require_up()
        recent = list(render_debug_log(self._twin.uniter.dispatched))[-max(1, lines) :]
        return "".join(f"{line}\n" for line in recent)

    async def ops_log_recent(self, lines: int) -> str:
        """The twin renders the uniter's hook lines only: no charm log to read."""
        self._twin.node.require_up()
        return ""

    async def versions(self) -> Versions:
        version = f"{self._twin.version} {SIMULATED}"
        return Versions(
            juju_client=version,
            juju_controller=version,
            juju_agent=version,
            microk8s="simulated",
            kubernetes="simulated",
            charms=tuple(
                CharmVersion(
                    app=app.name,
                    charm=_charm_label(app),
                    channel=app.channel,
                    revision=app.revision,
                )
                for app in sorted(self._twin.records.apps.values(), key=lambda a: a.name)
            ),
        )

    async def reconnect(self) -> None:
        self._twin.node.require_up()


def _charm_label(app: App) -> str:
    """What ran: a stand-in says so; a local charm by its name, not this machine's path
    (so bundles from two checkouts are the same)."""
    if app.charm.simulated_stand_in:
        return f"{app.charm.name} (simulated stand-in)"
    ref = app.charm_ref
    if "/" in ref or ref.endswith(".charm"):
        return f"{PurePath(ref.rstrip('/')).name} (local)"
    return ref


def _typed_params(spec: Mapping[str, Any], params: Mapping[str, object]) -> dict[str, Any]:
    """Action parameters in their declared types (``juju run`` sends text; so may callers)."""
    declared = spec.get("params") or {}
    typed: dict[str, Any] = {}
    for key, value in params.items():
        kind = (declared.get(key) or {}).get("type")
        if isinstance(value, str) and kind in ("integer", "number", "boolean"):
            try:
                if kind == "integer":
                    typed[key] = int(value)
                elif kind == "number":
                    typed[key] = float(value)
                else:
                    typed[key] = value.lower() == "true"
            except ValueError:
                raise HarnessError(
                    f"action parameter {key}={value!r} is not a {kind}", f"give a {kind}"
                ) from None
        else:
            typed[key] = value
    return typed
