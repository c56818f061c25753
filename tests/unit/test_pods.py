"""Pod identity from real `kubernetes.client.V1Pod` objects, built with the client's own
deserializer from the recorded `kubectl get pod -o yaml` sample."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from kubernetes.client import (
    ApiClient,
    V1ContainerState,
    V1ContainerStateTerminated,
    V1ContainerStatus,
    V1ObjectMeta,
    V1Pod,
    V1PodStatus,
)
from samples import load_sample

from harness.common.errors import HarnessError
from harness.common.observations import ContainerStatus, PodIdentity
from harness.live.parse import pod_identity, unit_for_pod

POD_SAMPLE = "kubectl_get_pod_yaml_partial_3.6.9_tempo_workload_container.txt"


@dataclass
class _Response:
    """What ApiClient.deserialize reads: the HTTP body as `data`."""

    data: str


def to_v1pod(manifest: dict[str, Any]) -> V1Pod:
    """The same path a `read_namespaced_pod` response takes through the client."""
    pod = ApiClient().deserialize(_Response(json.dumps(manifest)), "V1Pod")
    assert isinstance(pod, V1Pod)
    return pod


def sample_spec() -> dict[str, Any]:
    # The excerpt starts inside `spec.containers[]` (4-space indent: the rest of the
    # workload container's entry) and ends with `spec` keys (2-space indent).
    text = "spec:\n  containers:\n  -\n" + load_sample(POD_SAMPLE)
    spec = yaml.safe_load(text)["spec"]
    assert isinstance(spec, dict)
    return spec


def tempo_pod() -> dict[str, Any]:
    """The sample's spec, plus metadata and status that the excerpt does not show.

    The status values are those of the recorded `kubectl describe pod` samples (a charm
    container in CrashLoopBackOff after 5 restarts, last run Completed with exit code 0);
    uid, node and container ids are made up.
    """
    spec = sample_spec()
    spec["nodeName"] = "juju-1a0761-kubernetes-openstack-7"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": spec["hostname"],
            "namespace": "cos",
            "uid": "0b6f1f0e-4f4e-4c55-8a43-8d1e3c3f6a11",
        },
        "spec": spec,
        "status": {
            "phase": "Running",
            "startTime": "2023-12-13T13:59:57Z",
            "initContainerStatuses": [
                {
                    "name": "charm-init",
                    "ready": True,
                    "restartCount": 0,
                    "image": "jujusolutions/jujud-operator:3.6.9",
                    "imageID": "",
                    "state": {
                        "terminated": {
                            "exitCode": 0,
                            "reason": "Completed",
                            "finishedAt": "2023-12-13T14:00:03Z",
                        }
                    },
                }
            ],
            "containerStatuses": [
                {
                    "name": spec["containers"][0]["name"],
                    "ready": True,
                    "restartCount": 0,
                    "image": "nginx/nginx-prometheus-exporter:1.1.0",
                    "imageID": "",
                    "containerID": "containerd://aa01",
                    "state": {"running": {"startedAt": "2023-12-13T14:00:10Z"}},
                    "lastState": {},
                },
                {
                    "name": "charm",
                    "ready": False,
                    "restartCount": 5,
                    "image": "rocks.canonical.com/cdk/jujusolutions/charm-base:ubuntu-20.04",
                    "imageID": "",
                    "containerID": "containerd://cc02",
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {
                        "terminated": {
                            "exitCode": 0,
                            "reason": "Completed",
                            "startedAt": "2022-10-17T15:05:23Z",
                            "finishedAt": "2022-10-17T15:05:58Z",
                        }
                    },
                },
            ],
        },
    }


def test_sample_pod_through_the_client_deserializer() -> None:
    pod = to_v1pod(tempo_pod())

    identity = pod_identity(pod, unit_for_pod(pod.metadata.name, "tempo"))

    assert identity == PodIdentity(
        unit="tempo/0",
        name="tempo-0",
        uid="0b6f1f0e-4f4e-4c55-8a43-8d1e3c3f6a11",
        phase="Running",
        node="juju-1a0761-kubernetes-openstack-7",
        start_time="2023-12-13T13:59:57+00:00",
        containers=(
            ContainerStatus(
                name="charm",
                restart_count=5,
                ready=False,
                container_id="containerd://cc02",
                started_at=None,
                last_termination="Completed (exit 0) at 2022-10-17T15:05:58+00:00",
            ),
            ContainerStatus(
                name="nginx-prometheus-exporter",
                restart_count=0,
                ready=True,
                container_id="containerd://aa01",
                started_at="2023-12-13T14:00:10+00:00",
                last_termination=None,
            ),
        ),
    )
    assert identity.container("charm-init") is None


def test_sample_spec_is_what_the_client_reads() -> None:
    pod = to_v1pod(tempo_pod())

    (container,) = pod.spec.containers
    assert container.name == "nginx-prometheus-exporter"
    assert container.liveness_probe.http_get.port == 38814
    assert [m.mount_path for m in container.volume_mounts][:2] == [
        "/charm/bin/pebble",
        "/charm/container",
    ]
    assert pod.spec.hostname == "tempo-0"


def test_pending_pod_without_statuses() -> None:
    manifest = tempo_pod()
    manifest["status"] = {"phase": "Pending"}
    del manifest["spec"]["nodeName"]

    identity = pod_identity(to_v1pod(manifest), "tempo/0")

    assert (identity.phase, identity.node, identity.start_time, identity.containers) == (
        "Pending",
        None,
        None,
        (),
    )


def test_pod_built_from_client_models_with_a_kill() -> None:
    pod = V1Pod(
        metadata=V1ObjectMeta(name="probe-1", uid="u-1"),
        status=V1PodStatus(
            phase="Running",
            container_statuses=[
                V1ContainerStatus(
                    name="workload",
                    ready=True,
                    restart_count=1,
                    image="ubuntu",
                    image_id="",
                    last_state=V1ContainerState(
                        terminated=V1ContainerStateTerminated(exit_code=137, reason="Error")
                    ),
                )
            ],
        ),
    )

    identity = pod_identity(pod, "probe/1")

    assert identity.container("workload") == ContainerStatus(
        name="workload", restart_count=1, ready=True, last_termination="Error (exit 137)"
    )
    assert identity.node is None


def test_pod_without_uid_is_a_one_line_error() -> None:
    with pytest.raises(HarnessError, match="the pod given for probe/0 has no metadata"):
        pod_identity(V1Pod(metadata=V1ObjectMeta(name="probe-0")), "probe/0")


@pytest.mark.parametrize(
    ("pod", "app", "unit"),
    [
        ("probe-0", "probe", "probe/0"),
        ("mysql-router-k8s-12", "mysql-router-k8s", "mysql-router-k8s/12"),
        ("probe-peer-1", "probe-peer", "probe-peer/1"),
    ],
)
def test_unit_for_pod(pod: str, app: str, unit: str) -> None:
    assert unit_for_pod(pod, app) == unit


@pytest.mark.parametrize(
    ("pod", "app"),
    [
        ("probe-peer-1", "probe"),
        ("kubeflow-volumes-operator-0", "kubeflow-volumes"),
        ("probe-", "probe"),
        ("other-0", "probe"),
    ],
)
def test_pods_that_are_not_units_of_the_app(pod: str, app: str) -> None:
    with pytest.raises(HarnessError, match=f"is not a unit pod of application '{app}'"):
        unit_for_pod(pod, app)
