"""A stack from a user's bundle: its apps and relations, what to watch, and the probe observer.

``prepare`` does every check that can fail before anything is deployed (the application
to disrupt, each ``--watch``, each relation endpoint against the charms' metadata) and
returns the ``Stack`` and the ``Scenario`` to run. The probe joins as an independent
observer (``probe`` and ``probe-peer``, related only to each other) and is disrupted
with the application, so its journal cross-checks what Juju did; without it the report
says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.catalogue.names import NAMES, not_runnable
from harness.common.errors import HarnessError, UnknownName, unknown
from harness.lab.ports import AppSpec
from harness.scenario.bundle.model import BundleApp, BundleSpec
from harness.scenario.charm_meta import (
    CHARM_CONTAINER,
    IMPLIED,
    CharmMeta,
    Fetch,
    read_charmhub,
    read_local,
)
from harness.scenario.scenarios import Scenario, Target
from harness.scenario.stack import PROBE, PROBE_PEER, PROBE_WORKLOAD_MARKER, Stack, WatchedPath
from harness.scenario.watch import parse_watch, watched_path

PROBE_IMAGE = "ubuntu/nginx:1.24-24.04_beta"
# Disruptions that need something only the probe has (its own pod-patching config) or an
# input a bundle does not give (a new image).
_PROBE_ONLY = {"charm-pod-spec-change": "it makes the probe patch its own pod template"}
_NEEDS_IMAGE = {"resource-refresh"}


@dataclass(frozen=True)
class MetaSources:
    """Where each application's metadata comes from, in order of preference."""

    charm_sources: Mapping[str, Path] = field(default_factory=dict)  # app -> source dir
    charmhub: bool = False  # ask Charmhub for charms given by name (live)
    fetch: Fetch | None = None


def read_metas(bundle: BundleSpec, sources: MetaSources) -> dict[str, CharmMeta | None]:
    """Each app's metadata: its --charm-source, its local charm, Charmhub, else None."""
    metas: dict[str, CharmMeta | None] = {}
    strangers = sorted(set(sources.charm_sources) - set(bundle.app_names))
    if strangers:
        raise UnknownName(
            f"--charm-source names {strangers[0]!r}, which is not in bundle {bundle.path.name}",
            f"choose one of: {', '.join(bundle.app_names)}",
        )
    for app in bundle.apps:
        if app.name in sources.charm_sources:
            metas[app.name] = read_local(sources.charm_sources[app.name])
        elif app.local_path is not None:
            metas[app.name] = read_local(app.local_path)
        elif sources.charmhub:
            metas[app.name] = read_charmhub(app.charmhub_name, app.channel, sources.fetch)
        else:
            metas[app.name] = None
    return metas


def _charm_key(app: BundleApp) -> str:
    """What names an app's charm: apps with the same key share one charm (and one stand-in)."""
    return str(app.local_path) if app.local_path is not None else app.charm


def _implied_endpoints(
    bundle: BundleSpec, metas: Mapping[str, CharmMeta | None] | None = None
) -> dict[tuple[str, str], tuple[str, str]]:
    """(charm, endpoint) -> (role, interface) for every relation end of the bundle.

    Juju relates a provides endpoint only to a requires endpoint of the same interface
    (``verifyRelations``), so an end whose charm's metadata is known (``metas``: a real
    charm's source, a local charm) gives the stand-in end it is related to its interface
    and the opposite role. Every end that a chain of relations joins gets one interface
    (one endpoint related to two applications, as grafana's grafana-source in cos-lite, or
    two apps of one charm); roles alternate along the chain. A chain with no known end
    gets an invented interface, the first end of its first relation providing.
    """
    charm = {a.name: _charm_key(a) for a in bundle.apps}
    links: dict[tuple[str, str], list[tuple[str, str]]] = {}
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for a, b in bundle.relations:
        (app_a, _, end_a), (app_b, _, end_b) = a.partition(":"), b.partition(":")
        # A bare end (`- [argo-controller, minio]`, which Juju completes from the real
        # metadata) gets an endpoint named for the other end, so the relation can be made.
        end_a, end_b = end_a or end_b or app_b, end_b or end_a or app_a
        node_a, node_b = (charm[app_a], end_a), (charm[app_b], end_b)
        links.setdefault(node_a, []).append(node_b)
        links.setdefault(node_b, []).append(node_a)
        for app, node in ((app_a, node_a), (app_b, node_b)):
            meta = (metas or {}).get(app)
            known = meta.endpoint(node[1]) if meta is not None else None
            if known is not None and known[0] != "peers":
                found[node] = known
    # Known ends first: each gives its neighbours their role and interface.
    starts = [*found, *(node for node in links if node not in found)]
    for start in starts:
        if start not in links:
            continue
        if start not in found:
            found[start] = ("provides", f"implied-{start[0].rpartition('/')[2]}-{start[1]}")
        queue = [start]
        while queue:
            node = queue.pop()
            role, interface = found[node]
            other = "requires" if role == "provides" else "provides"
            for peer in links[node]:
                if peer not in found:  # an odd cycle keeps the first role; Juju has the real one
                    found[peer] = (other, interface)
                    queue.append(peer)
    return found


def implied_meta(
    app: str,
    bundle: BundleSpec,
    watches: Sequence[str],
    metas: Mapping[str, CharmMeta | None] | None = None,
) -> CharmMeta:
    """Metadata the bundle implies, for a stand-in whose charm's metadata is not at hand.

    An endpoint per relation end of every app with this app's charm (the interface and
    the opposite role of a known charm's end it is related to; ends that relations join
    share an interface; a bare end is named for the other end), the containers their
    ``--watch``/``--mark`` paths name, else one container ``workload`` (a sidecar charm
    has at least one). Its ``source`` says it is implied, and what it declares.
    """
    spec = bundle.app(app)
    key = _charm_key(spec)
    sharing = {a.name for a in bundle.apps if _charm_key(a) == key}
    tables: dict[str, dict[str, Any]] = {"provides": {}, "requires": {}}
    for (charm, endpoint), (role, interface) in _implied_endpoints(bundle, metas).items():
        if charm == key:
            tables[role][endpoint] = {"interface": interface}
    named = [parse_watch(w)[1] for w in watches if parse_watch(w)[0] in sharing]
    containers = [c for c in dict.fromkeys(named) if c != CHARM_CONTAINER] or ["workload"]
    raw = {
        "name": spec.charmhub_name.rstrip("/").rpartition("/")[2].removesuffix(".charm"),
        "containers": {c: {"resource": f"{c}-image"} for c in containers},
        **tables,
    }
    listed = ", ".join(containers)
    ends = [
        f"{role} {name} ({table['interface']})"
        for role in ("provides", "requires")
        for name, table in sorted(tables[role].items())
        if not str(table["interface"]).startswith("implied-")
    ]
    taken = f"; endpoints taken from the charms related to it: {', '.join(ends)}" if ends else ""
    where = f"{IMPLIED}{bundle.path.name} (no charm source given): containers {listed}{taken}"
    return CharmMeta.from_dict(raw, where)


def _check_relation(
    bundle: BundleSpec, endpoint: str, metas: Mapping[str, CharmMeta | None]
) -> None:
    app, _, name = endpoint.partition(":")
    meta = metas.get(app)
    if meta is None or not name:
        return
    found = meta.endpoint(name)
    if found is None:
        known = ", ".join(e for e, (role, _) in sorted(meta.endpoints.items()) if role != "peers")
        raise HarnessError(
            f"bundle {bundle.path.name}: relation endpoint {endpoint} does not exist "
            f"({meta.name}, from {meta.source})",
            f"its endpoints are: {known or 'none'}",
        )
    if found[0] == "peers":
        raise HarnessError(
            f"bundle {bundle.path.name}: {endpoint} is a peer endpoint",
            "Juju relates peers by itself: drop that relation",
        )


def _complete(
    bundle: BundleSpec, a: str, b: str, metas: Mapping[str, CharmMeta | None]
) -> tuple[str, str]:
    """A relation with a bare application (``- [a, b]``) completed from the metadata,
    as Juju does: the one provides/requires pair with the same interface."""
    if ":" in a and ":" in b:
        return a, b
    app_a, _, named_a = a.partition(":")
    app_b, _, named_b = b.partition(":")
    meta_a, meta_b = metas.get(app_a), metas.get(app_b)
    if meta_a is None or meta_b is None:
        return a, b  # Juju completes it when it deploys; nothing to check here
    pairs = [
        (f"{app_a}:{ea}", f"{app_b}:{eb}")
        for ea, (role_a, iface_a) in meta_a.endpoints.items()
        for eb, (role_b, iface_b) in meta_b.endpoints.items()
        if (not named_a or ea == named_a)
        and (not named_b or eb == named_b)
        and iface_a == iface_b
        and {role_a, role_b} == {"provides", "requires"}
    ]
    if len(pairs) != 1:
        found = "no endpoints that fit" if not pairs else f"{len(pairs)} ways to relate them"
        raise HarnessError(
            f"bundle {bundle.path.name}: relation {a} {b}: {found}",
            "name both endpoints, as app:endpoint",
        )
    return pairs[0]


def check_relations(
    bundle: BundleSpec, metas: Mapping[str, CharmMeta | None]
) -> tuple[tuple[str, str], ...]:
    """Every relation's endpoints checked against the metadata, bare ones completed."""
    completed = []
    for a, b in bundle.relations:
        _check_relation(bundle, a, metas)
        _check_relation(bundle, b, metas)
        completed.append(_complete(bundle, a, b, metas))
    return tuple(completed)


def bundle_scenario(
    disruption: str, app: str, meta: CharmMeta | None, *, probe: bool, container: str | None
) -> Scenario:
    """The disruption applied to ``app`` (and to the probe observer, when there is one)."""
    refused = not_runnable(disruption)
    if refused is not None:
        raise HarnessError(*refused)
    if disruption not in NAMES:
        raise unknown("disruption", disruption, NAMES)
    if disruption in _PROBE_ONLY:
        raise HarnessError(
            f"{disruption} cannot target {app}: {_PROBE_ONLY[disruption]}",
            "use pod-spec-change to patch any application's pod template",
        )
    if disruption in _NEEDS_IMAGE:
        raise HarnessError(
            f"{disruption} on a bundle application needs a new image the bundle does not name",
            "run `juju refresh --resource` yourself, or pick another disruption",
        )
    if meta is not None and not meta.sidecar:
        raise HarnessError(
            f"{app} ({meta.name}) declares no containers: not a sidecar charm",
            "the catalogue describes sidecar charms on Kubernetes; pick a sidecar application",
        )
    if disruption == "container-restart":
        chosen = container or (meta.container_names[0] if meta and meta.containers else None)
        if chosen is None:
            raise HarnessError(
                f"container-restart on {app}: which container?",
                f"name it with --watch {app}:CONTAINER:PATH, or give the charm's metadata",
            )
        # The probe is not restarted with it: a run judges one restarted container.
        return Scenario(
            disruption,
            disruption,
            (Target(app, container=chosen),),
            f"{disruption} of {app}'s {chosen} container",
        )
    else:
        targets = [Target(app)] + ([Target(PROBE)] if probe else [])
    observer = "with the probe as observer" if probe else "without the probe observer"
    return Scenario(disruption, disruption, tuple(targets), f"{disruption} on {app}, {observer}")


def probe_apps(probe_charm: str) -> tuple[tuple[AppSpec, ...], tuple[tuple[str, str], ...]]:
    apps = (
        AppSpec(PROBE, probe_charm, resources={"workload-image": PROBE_IMAGE}),
        AppSpec(PROBE_PEER, probe_charm, resources={"workload-image": PROBE_IMAGE}),
    )
    return apps, ((f"{PROBE}:probe-provider", f"{PROBE_PEER}:probe-requirer"),)


def prepare(
    bundle: BundleSpec,
    disruption: str,
    app: str,
    *,
    metas: Mapping[str, CharmMeta | None],
    watches: Sequence[str] = (),
    marks: Sequence[str] = (),
    probe_charm: str | None = None,
    redact: Sequence[str] = (),
) -> tuple[Stack, Scenario]:
    """Check everything and build the stack and scenario; raises before any deploy."""
    target = bundle.app(app)
    related = check_relations(bundle, metas)
    for name in (PROBE, PROBE_PEER):
        if probe_charm is not None and name in bundle.app_names:
            raise HarnessError(
                f"bundle {bundle.path.name} already has an application named {name}",
                "rename it in the bundle, or pass --no-probe",
            )
    all_metas: dict[str, CharmMeta | None] = dict(metas)
    watched: list[WatchedPath] = []
    for text in watches:
        watched.append(watched_path(text, all_metas))
    for text in marks:
        watched.append(watched_path(text, all_metas, seed=True))
    apps = [a.app_spec() for a in bundle.apps]
    relations = list(related)
    if probe_charm is not None:
        probe, probe_relations = probe_apps(probe_charm)
        apps.extend(probe)
        relations.extend(probe_relations)
        watched.append(WatchedPath(PROBE, "workload", PROBE_WORKLOAD_MARKER, "container-root"))
    container = next(
        (w.container for w in watched if w.app == app and w.container != "charm"), None
    )
    scenario = bundle_scenario(
        disruption, target.name, metas.get(app), probe=probe_charm is not None, container=container
    )
    known = {name: meta for name, meta in metas.items() if meta is not None}
    stack = Stack(
        tuple(apps),
        tuple(relations),
        tuple(watched),
        bundle=bundle,
        metas=known,
        redact=tuple(dict.fromkeys(redact)),
    )
    return stack, scenario


TWIN_MAX_UNITS = 100
"""Units of one application the twin simulates: each lives in this process and runs its
hooks in turn, and a reproduction needs a few (Juju itself has no such limit)."""


def check_twin_scale(bundle: BundleSpec) -> None:
    """Refuse, in one line, a bundle with more units of an app than the twin simulates."""
    for app in bundle.apps:
        if app.units > TWIN_MAX_UNITS:
            raise HarnessError(
                f"{app.name} has scale {app.units}: the twin simulates at most "
                f"{TWIN_MAX_UNITS} units of an application",
                "lower its scale in a copy of the bundle, or run it with --backend live",
            )


def unchecked_inputs(stack: Stack) -> tuple[str, ...]:
    """One line per application whose metadata the harness invented: what went unchecked."""
    lines = []
    for app, meta in sorted(stack.metas.items()):
        if not meta.implied:
            continue
        ends = ", ".join(f"{app}:{e}" for e in sorted(meta.endpoints)) or "none"
        watched = [f"{w.app}:{w.container}:{w.path}" for w in stack.watched if w.app == app]
        lines.append(
            f"unchecked: no metadata for {app}, so its containers "
            f"({', '.join(meta.container_names)}), its relation endpoints ({ends})"
            + (f" and each --watch/--mark on it ({', '.join(watched)})" if watched else "")
            + " are the harness's inventions, never checked against the charm; what rests on "
            f"them is judged undetermined (give --charm-source {app}=DIR or a local charm)"
        )
    return tuple(lines)
