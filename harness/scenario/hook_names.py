"""The names each deployed charm gives the catalogue's hook templates, and the hooks a
disrupted unit must run, spelled out.

The catalogue writes hooks the way Juju's docs do: ``{container}-pebble-ready``,
``{storage}-storage-detaching``, ``{endpoint}-relation-departed``. A run awaits and judges
concrete hooks only: each template is expanded from the charm's metadata (its
``containers``, ``storage``, and the endpoints it is related on), wherever hook names are
used: the settle (``required_per_unit``), the verdict (``HookNames.judging``) and the plan
(``expanded``). A template that cannot be expanded is an error (``UnexpandedHook``), never
a name that silently matches nothing.

The metadata comes from where the run can read it before anything is deployed: a user's
bundle (``Stack.metas``), a local charm (the probe's ``.charm`` or source folder), and for
the default stack's Charmhub charms, what their metadata.yaml declares (below, with the
commit read). ``{endpoint}`` hooks are the exception a run states in its own words: which
endpoints run ``-relation-departed`` depends on which remote units a relation had, so they
are judged (leniently: ``harness.verdict.judge``) but not awaited by name; the settle's
quiet window covers them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.catalogue.hooknames import parse
from harness.catalogue.model import Expectation
from harness.common.errors import HarnessError
from harness.scenario.charm_meta import CharmMeta, Container, read_local
from harness.scenario.scenarios import Scenario
from harness.scenario.stack import Stack

# The default stack's Charmhub charms, as far as hook names go (containers, storage):
# canonical/mysql-k8s-operator metadata.yaml @ d6fe335f (2025-12-16): container `mysql`
# (storage `database` mounted at /var/lib/mysql); canonical/mysql-router-k8s-operator
# metadata.yaml @ 94192d95 (2025-06-24): container `mysql-router`, no storage.
KNOWN_CHARMS: Mapping[str, CharmMeta] = {
    "mysql-k8s": CharmMeta(
        "mysql-k8s",
        containers=(Container("mysql", (("database", "/var/lib/mysql"),)),),
        storage={"database": "filesystem"},
        source="canonical/mysql-k8s-operator metadata.yaml@d6fe335f",
    ),
    "mysql-router-k8s": CharmMeta(
        "mysql-router-k8s",
        containers=(Container("mysql-router"),),
        source="canonical/mysql-router-k8s-operator metadata.yaml@94192d95",
    ),
}


class UnexpandedHook(HarnessError):
    """A hook template the run cannot spell out: it would await or match nothing."""


@dataclass(frozen=True)
class HookNames:
    """Per application: the names its charm gives ``{container}`` and ``{storage}``."""

    containers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    storages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def of(self, app: str) -> dict[str, Sequence[str]]:
        """The template variables known for ``app`` (``harness.catalogue.hooknames``)."""
        names: dict[str, Sequence[str]] = {}
        if app in self.containers:
            names["container"] = self.containers[app]
        if app in self.storages:
            names["storage"] = self.storages[app]
        return names


def charm_metas(stack: Stack, probe_dir: Callable[[], Path] | None = None) -> dict[str, CharmMeta]:
    """Each app's charm metadata, where the run can know it before deploying.
    ``probe_dir`` finds the probe's source (``harness.twin.charms.default_probe_dir``, a
    layer above this one) for a probe ``.charm`` the twin stands in for."""
    metas = dict(stack.metas)
    for spec in stack.apps:
        if spec.app in metas:
            continue
        local = Path(spec.charm).expanduser()
        if local.exists():
            metas[spec.app] = read_local(local)
        elif "/" in spec.charm or spec.charm.endswith(".charm"):
            if local.name.startswith("probe") and probe_dir is not None:
                metas[spec.app] = read_local(probe_dir())  # a .charm the twin stands in for
        elif spec.charm in KNOWN_CHARMS:
            metas[spec.app] = KNOWN_CHARMS[spec.charm]
    return metas


def hook_names(
    stack: Stack,
    apps: Sequence[str],
    *,
    containers: Mapping[str, Sequence[str]] | None = None,
    probe_dir: Callable[[], Path] | None = None,
) -> HookNames:
    """The names of ``apps``' charms; ``containers`` overrides an app's (a workload
    container's restart concerns that container alone). UnexpandedHook for an app whose
    metadata cannot be read."""
    metas = charm_metas(stack, probe_dir)
    found_containers: dict[str, tuple[str, ...]] = {}
    found_storages: dict[str, tuple[str, ...]] = {}
    for app in apps:
        meta = metas.get(app)
        if meta is None:
            raise UnexpandedHook(
                f"the hooks {app} must run cannot be spelled out: its charm's metadata "
                "(containers, storage) is not known",
                "give the charm's folder with --charm-source APP=DIR, or a local .charm",
            )
        given = (containers or {}).get(app)
        found_containers[app] = tuple(given) if given is not None else meta.container_names
        found_storages[app] = tuple(sorted(meta.storage))
    return HookNames(found_containers, found_storages)


def expanded(hooks: Sequence[str], names: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """``hooks`` with every ``{container}``/``{storage}`` template spelled out from
    ``names``; ``{endpoint}`` templates are left for the caller to say what it does."""
    found: list[str] = []
    for hook in hooks:
        if "{" not in hook:
            found.append(hook)
            continue
        parsed = parse(hook)
        if parsed.variable == "endpoint":
            found.append(hook)
        elif parsed.variable in names:
            found.extend(parsed.expand(names))
        else:
            raise UnexpandedHook(
                f"{hook} cannot be spelled out: no {parsed.variable} names are known",
                "pass the charm's names (harness.scenario.hook_names.hook_names)",
            )
    return tuple(found)


def required_per_unit(
    expectation: Expectation, units: Sequence[str], names: HookNames
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """For each unit: the hooks it must run whatever its leadership, spelled out; and the
    ``{endpoint}`` hooks left to the quiet window (not awaited by name)."""
    required: dict[str, tuple[str, ...]] = {}
    left: list[str] = []
    for unit in units:
        app_names = names.of(unit.rpartition("/")[0])
        as_leader = expectation.required_hooks(
            app_names.get("container"), None, app_names.get("storage"), leader=True
        )
        as_other = expectation.required_hooks(
            app_names.get("container"), None, app_names.get("storage"), leader=False
        )
        both = set(as_leader)
        hooks = expanded([h for h in as_other if h in both], app_names)
        required[unit] = tuple(h for h in hooks if "{endpoint}" not in h)
        left.extend(h for h in hooks if "{endpoint}" in h and h not in left)
    return required, tuple(left)


def expecting(expectation: Expectation, scenario: Scenario, names: HookNames) -> str:
    """The required hooks, spelled out per disrupted application (for progress and plans):
    ``probe: stop, upgrade-charm, config-changed, start, workload-pebble-ready``."""
    parts = []
    for app in dict.fromkeys(t.app for t in scenario.targets):
        app_names = names.of(app)
        hooks = expectation.required_hooks(
            app_names.get("container"), None, app_names.get("storage")
        )
        parts.append(f"{app}: {', '.join(hooks) or '(none)'}")
    return "; ".join(parts)


def plan_containers(
    stack: Stack, scenario: Scenario, probe_dir: Callable[[], Path] | None = None
) -> tuple[str, ...]:
    """The disrupted applications' workload containers (the restarted one, for a container
    restart), for a plan's expected hooks; none when a charm's metadata is not known."""
    target = next((t.container for t in scenario.targets if t.container), None)
    if target:
        return (target,)
    metas = charm_metas(stack, probe_dir)
    found: list[str] = []
    for app in dict.fromkeys(t.app for t in scenario.targets):
        meta = metas.get(app)
        found.extend(c for c in (meta.container_names if meta else ()) if c not in found)
    return tuple(found)
