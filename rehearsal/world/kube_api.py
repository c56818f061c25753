"""The Kubernetes API of a world's node, as the ``kubernetes`` client reaches it.

Served over TLS on the loopback through the kubeconfig ``microk8s config`` prints: pods
(list with a label selector, get, delete, watch from a resourceVersion), StatefulSets (get,
strategic-merge patch of the pod template), the exec websocket (``v4.channel.k8s.io``:
a channel byte, then data; channel 3 carries the final ``metav1.Status``) and ``/version``.
Answers are the API server's: ``Status`` bodies with 404, 409, 415, 422, a watch whose
resourceVersion is too old gets an ``ERROR`` event with a 410 ``Expired`` Status
(k8s.io/apiserver storage/cacher: "too old resource version"), 503 while the node starts,
and nothing at all (refused) while it is stopped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from harness.catalogue import CHARM_CONTAINER, load
from rehearsal.world import exec as container_exec
from rehearsal.world.pacing import utcnow
from rehearsal.world.wire import Connection, Request, Response, json_response

if TYPE_CHECKING:
    from harness.twin.model import Pod, Unit
    from rehearsal.world.model import WorldModel
    from rehearsal.world.world import World

log = logging.getLogger(__name__)

K8S_VERSION = {
    "major": "1",
    "minor": "34",
    "gitVersion": "v1.34.2",
    "gitCommit": "rehearsal",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.24.9",
    "compiler": "gc",
    "platform": "linux/amd64",
}
HISTORY = 200  # resourceVersions a watch may start from before it is told 410 Gone
EXEC_SUBPROTOCOLS = ("v4.channel.k8s.io", "v5.channel.k8s.io")

PODS = re.compile(r"^/api/v1/namespaces/([^/]+)/pods(?:/([^/]+))?(?:/(exec))?$")
STATEFULSETS = re.compile(r"^/apis/apps/v1/namespaces/([^/]+)/statefulsets(?:/([^/]+))?$")


def rfc3339(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def status(code: int, reason: str, message: str, **details: Any) -> Response:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return json_response(code, body)


class KubeAPI:
    def __init__(self, world: World) -> None:
        self.world = world
        self.exec_hung = False  # a hostile world's one exec that never answers (tests)
        self.hang_next_exec = False

    async def handle(self, request: Request, conn: Connection) -> Response | None:
        world = self.world
        state = world.kube_state()
        if state == "down":  # the listener is closed then; a late request gets nothing
            conn.close()
            return None
        if state == "starting":
            return status(503, "ServiceUnavailable", "apiserver is shutting down or starting")
        path = request.path
        if path == "/version" or path == "/version/":
            return json_response(200, K8S_VERSION)
        if path in ("/api", "/apis", "/healthz", "/readyz", "/livez"):
            return json_response(200, {"kind": "APIVersions", "versions": ["v1"]})
        match = PODS.match(path)
        if match:
            namespace, name, sub = match.groups()
            model = world.model_named(namespace)
            if sub == "exec":
                return await self.exec(request, conn, model, namespace, name)
            return await self.pods(request, model, namespace, name)
        match = STATEFULSETS.match(path)
        if match:
            namespace, name = match.groups()
            return await self.statefulsets(request, world.model_named(namespace), namespace, name)
        return status(404, "NotFound", "the server could not find the requested resource")

    # Pods ---------------------------------------------------------------------------------

    def pod_list(self, model: WorldModel | None, selector: str) -> list[dict[str, Any]]:
        if model is None:
            return []
        wanted = _selector(selector)
        now = utcnow()

        def render() -> list[dict[str, Any]]:
            found = []
            for app in sorted(model.twin.records.apps.values(), key=lambda a: a.name):
                for unit in sorted(app.units, key=lambda u: u.pod.ordinal):
                    body = pod_json(model, unit, now)
                    if body is not None and _matches(body["metadata"]["labels"], wanted):
                        found.append(body)
            return found

        return model.run_now(render)

    async def pods(
        self, request: Request, model: WorldModel | None, namespace: str, name: str | None
    ) -> Response:
        if name is None:
            if request.method != "GET":
                return status(405, "MethodNotAllowed", "the server does not allow this method")
            selector = request.arg("labelSelector", "") or ""
            if (request.arg("watch") or "").lower() in ("1", "true"):
                return self.watch(request, model, namespace, selector)
            items = self.pod_list(model, selector)
            revision = model.revision if model else 1
            return json_response(
                200,
                {
                    "kind": "PodList",
                    "apiVersion": "v1",
                    "metadata": {"resourceVersion": str(revision)},
                    "items": items,
                },
            )
        found = next((p for p in self.pod_list(model, "") if p["metadata"]["name"] == name), None)
        if found is None:
            return status(404, "NotFound", f'pods "{name}" not found', name=name, kind="pods")
        if request.method == "GET":
            return json_response(200, found)
        if request.method == "DELETE":
            assert model is not None
            return json_response(200, self.delete(model, name) or found)
        return status(405, "MethodNotAllowed", "the server does not allow this method")

    def delete(self, model: WorldModel, name: str) -> dict[str, Any] | None:
        """``kubectl delete pod``: the pod is Terminating at once (deletionTimestamp set,
        its grace period counting); the StatefulSet makes a new one when it is gone. A pod
        already terminating is left as it is."""

        def mark() -> Unit | None:
            unit = next(
                (
                    u
                    for a in model.twin.records.apps.values()
                    for u in a.units
                    if u.pod.name == name
                ),
                None,
            )
            if unit is None:
                return None
            shown = model.pacer.show(unit.pod)
            if shown.deleted is not None:
                return None
            shown.deleted = utcnow()
            model.changed()
            return unit

        unit = model.run_now(mark)
        if unit is None:
            return None
        uid = unit.pod.uid

        def replace() -> None:
            # A roll that was under way has replaced this pod already (it was deleted, the
            # StatefulSet made it again from the new template): nothing is left to do.
            app = model.twin.records.apps.get(unit.app)
            if app is not None and unit in app.units and unit.pod.uid == uid:
                model.twin.delete_pod(name)

        model.submit("pod-delete", replace)
        return model.run_now(lambda: pod_json(model, unit, utcnow()))

    def watch(
        self, request: Request, model: WorldModel | None, namespace: str, selector: str
    ) -> Response:
        """A watch from ``resourceVersion``: ADDED/MODIFIED/DELETED events as the pods
        change; a version older than what is kept gets one ERROR event (410, Expired)."""
        since = int(request.arg("resourceVersion", "0") or 0)
        timeout = float(request.arg("timeoutSeconds", "0") or 0) or 300.0
        world = self.world

        async def events() -> AsyncIterator[bytes]:
            current = model.revision if model else 1
            if since and since < current - HISTORY:
                gone = {
                    "type": "ERROR",
                    "object": {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "metadata": {},
                        "status": "Failure",
                        "message": f"too old resource version: {since} ({current - HISTORY})",
                        "reason": "Expired",
                        "code": 410,
                    },
                }
                yield (json.dumps(gone) + "\n").encode()
                return
            seen: dict[str, dict[str, Any]] = {}
            first = True
            loop = asyncio.get_running_loop()
            end = loop.time() + timeout
            while loop.time() < end and world.kube_state() == "up":
                listed = {p["metadata"]["uid"]: p for p in self.pod_list(model, selector)}
                revision = str(model.revision if model else 1)
                for uid, body in listed.items():
                    body["metadata"]["resourceVersion"] = revision
                    if uid not in seen:
                        if not (first and since):
                            yield _event("ADDED", body)
                    elif _changed(seen[uid], body):
                        yield _event("MODIFIED", body)
                for uid, body in seen.items():
                    if uid not in listed:
                        yield _event("DELETED", body)
                seen, first = listed, False
                await world.changes()

        return Response(200, headers={"Content-Type": "application/json"}, stream=events())

    # StatefulSets -------------------------------------------------------------------------

    async def statefulsets(
        self, request: Request, model: WorldModel | None, namespace: str, name: str | None
    ) -> Response:
        if model is None or name is None or name not in model.twin.records.apps:
            return status(
                404, "NotFound", f'statefulsets.apps "{name}" not found',
                name=name or "", group="apps", kind="statefulsets",
            )  # fmt: skip
        if request.method == "GET":
            return json_response(200, model.run_now(lambda: statefulset_json(model, name)))
        if request.method != "PATCH":
            return status(405, "MethodNotAllowed", "the server does not allow this method")
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        if kind not in (
            "application/strategic-merge-patch+json",
            "application/merge-patch+json",
        ):
            return status(
                415,
                "UnsupportedMediaType",
                f"the body of the request was in an unknown format - accepted media types "
                f"include: application/json-patch+json, application/merge-patch+json, "
                f"application/apply-patch+yaml, application/strategic-merge-patch+json "
                f'(got "{kind}")',
            )
        try:
            patch = request.json()
        except ValueError:
            return status(400, "BadRequest", "the patch is not valid JSON")
        template = ((patch.get("spec") or {}).get("template") or {}).get("metadata") or {}
        annotations = {str(k): str(v) for k, v in (template.get("annotations") or {}).items()}
        if annotations:
            current = model.run_now(lambda: dict(model.twin.records.apps[name].template))
            if {**current, **annotations} != current:
                model.submit(
                    "pod-spec-change",
                    lambda: model.twin.patch_template(name, annotations, "pod-spec-change"),
                )
                await asyncio.sleep(0.01)  # the StatefulSet controller starts rolling
        return json_response(200, model.run_now(lambda: statefulset_json(model, name)))

    # Exec ---------------------------------------------------------------------------------

    async def exec(
        self,
        request: Request,
        conn: Connection,
        model: WorldModel | None,
        namespace: str,
        name: str | None,
    ) -> Response | None:
        if not request.wants_websocket:
            return status(400, "BadRequest", "Upgrade request required")
        unit = None
        if model is not None and name is not None:
            unit = model.run_now(lambda: _unit_of_pod(model, name))
        if model is None or unit is None:
            return status(404, "NotFound", f'pods "{name}" not found', name=name, kind="pods")
        container = request.arg("container") or CHARM_CONTAINER
        argv = request.query.get("command", [])
        pod = unit.pod
        if container not in pod.containers:
            return status(
                400,
                "BadRequest",
                f"container {container} is not valid for pod {name}",
            )
        shown = model.pacer.show(pod)
        now = utcnow()
        if (
            not self.world.node_up
            or shown.ready_at.get(container, now) > now
            or (shown.gone is not None and shown.gone <= now)
        ):
            # The kubelet refuses the upgrade while the container is not running.
            return status(400, "BadRequest", f'container not found ("{container}")')
        ws = await conn.accept_websocket(request, EXEC_SUBPROTOCOLS)
        if ws.subprotocol is None:
            await ws.close(1002, "no supported subprotocol")
            return None
        if self.hang_next_exec:  # opens and never answers (the harness must bound it)
            self.hang_next_exec = False
            self.exec_hung = True
            await asyncio.Event().wait()
        try:
            result = await container_exec.run(model, unit, container, argv)
        except Exception as error:  # the command could not be started in the container
            log.exception("exec failed")
            result = container_exec.Ran(b"", str(error).encode(), 126, started=False)
        if result.stdout:
            await ws.send_binary(b"\x01" + result.stdout)
        if result.stderr:
            await ws.send_binary(b"\x02" + result.stderr)
        await ws.send_binary(b"\x03" + json.dumps(container_exec.status_of(result, argv)).encode())
        await ws.close()
        if result.kill_pid1 is not None:
            self.kill_pid1(model, unit, container, result.kill_pid1)
        return None

    def kill_pid1(self, model: WorldModel, unit: Unit, container: str, signal: str) -> None:
        """The container's PID 1 got ``signal``: it dies and the kubelet restarts it; the
        catalogue's branch for that container and signal says what Juju then does."""
        kind = CHARM_CONTAINER if container == CHARM_CONTAINER else "workload"
        variant = load().variant_for("container-restart", container=kind, signal=signal)
        pod_name = unit.pod.name
        model.submit(
            "container-restart", lambda: model.twin.kill_pid1(pod_name, container, variant)
        )


def _unit_of_pod(model: WorldModel, name: str) -> Unit | None:
    return next(
        (u for a in model.twin.records.apps.values() for u in a.units if u.pod.name == name), None
    )


def _event(kind: str, body: Mapping[str, Any]) -> bytes:
    return (json.dumps({"type": kind, "object": body}) + "\n").encode()


def _changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    def strip(body: Mapping[str, Any]) -> dict[str, Any]:
        return {k: body.get(k) for k in ("status", "metadata")}

    a, b = strip(old), strip(new)
    a["metadata"] = {k: v for k, v in a["metadata"].items() if k != "resourceVersion"}
    b["metadata"] = {k: v for k, v in b["metadata"].items() if k != "resourceVersion"}
    return a != b


def _selector(text: str) -> dict[str, str]:
    wanted = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        wanted[key.strip()] = value.strip().lstrip("=")
    return wanted


def _matches(labels: Mapping[str, str], wanted: Mapping[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in wanted.items())


def pod_json(model: WorldModel, unit: Unit, now: datetime) -> dict[str, Any] | None:
    """A unit pod as the API server returns it (core/v1 Pod), None once it is gone."""
    pod: Pod = unit.pod
    shown = model.pacer.show(pod)
    if shown.gone is not None and shown.gone <= now:
        return None
    world = model.world
    app = model.twin.records.apps[unit.app]
    containers = []
    statuses = []
    for name, run in sorted(pod.containers.items()):
        ready_at = shown.ready_at.get(name, now)
        running = world.node_up and run.ready and ready_at <= now
        started = shown.ready_at.get(name) or shown.created
        image = (
            "jujusolutions/charm-base:ubuntu-22.04"
            if name == CHARM_CONTAINER
            else (f"registry.jujucharms.com/{app.name}/{name}-image")
        )
        containers.append({"name": name, "image": image})
        state: dict[str, Any]
        if running:
            state = {"running": {"startedAt": rfc3339(min(started, now))}}
        elif world.node_up and ready_at > now and run.restart_count and ready_at.year > 9000:
            state = {"terminated": {"exitCode": 143, "reason": "Error"}}
        else:
            state = {"waiting": {"reason": "ContainerCreating"}}
        entry: dict[str, Any] = {
            "name": name,
            "ready": running,
            "restartCount": run.restart_count,
            "image": image,
            "imageID": f"{image}@sha256:{'0' * 64}",
            "containerID": run.container_id,
            "started": running,
            "state": state,
        }
        if run.last_termination:
            entry["lastState"] = {
                "terminated": {
                    "exitCode": 137,
                    "reason": "Error",
                    "finishedAt": rfc3339(shown.created),
                }
            }
        statuses.append(entry)
    all_ready = world.node_up and all(s["ready"] for s in statuses)
    phase = "Running" if world.node_up else "Unknown"
    metadata: dict[str, Any] = {
        "name": pod.name,
        "namespace": model.name,
        "uid": pod.uid,
        "resourceVersion": str(model.revision),
        "creationTimestamp": rfc3339(shown.created),
        "labels": {
            "app.kubernetes.io/name": unit.app,
            "app.kubernetes.io/managed-by": "juju",
            "statefulset.kubernetes.io/pod-name": pod.name,
        },
        "annotations": {
            "unit.juju.is/id": unit.name,
            "juju.is/version": world.persona.version,
            **pod.template,
        },
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "name": unit.app,
                "uid": model.statefulset_uid(unit.app),
                "controller": True,
            }
        ],
    }
    if shown.deleted is not None:
        metadata["deletionTimestamp"] = rfc3339(shown.deleted)
        metadata["deletionGracePeriodSeconds"] = shown.grace
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": metadata,
        "spec": {
            "containers": containers,
            "nodeName": "rehearsal-node",
            "terminationGracePeriodSeconds": shown.grace,
            "hostname": pod.name,
        },
        "status": {
            "phase": phase,
            "conditions": [
                {"type": "Ready", "status": "True" if all_ready else "False"},
                {"type": "ContainersReady", "status": "True" if all_ready else "False"},
            ],
            "hostIP": "127.0.0.1",
            "podIP": model.pod_ip(pod),
            "startTime": rfc3339(shown.created),
            "containerStatuses": statuses,
        },
    }


def statefulset_json(model: WorldModel, name: str) -> dict[str, Any]:
    app = model.twin.records.apps[name]
    return {
        "kind": "StatefulSet",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": name,
            "namespace": model.name,
            "uid": model.statefulset_uid(name),
            "resourceVersion": str(model.revision),
            "generation": 1 + len(app.template),
            "labels": {"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": "juju"},
        },
        "spec": {
            "replicas": len(app.units),
            "serviceName": f"{name}-endpoints",
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {
                    "labels": {"app.kubernetes.io/name": name},
                    "annotations": {
                        "juju.is/version": model.world.persona.version,
                        **app.template,
                    },
                },
                "spec": {"containers": [{"name": c} for c in ("charm", *app.charm.containers)]},
            },
            "updateStrategy": {"type": "RollingUpdate"},
        },
        "status": {"replicas": len(app.units), "readyReplicas": len(app.units)},
    }
