"""The live ClusterPort against autospecs of the kubernetes client.

Each recorded call is also replayed on the real generated API class (with an autospecced
ApiClient), whose own parameter checks reject a keyword it does not know. The file-listing
script is run for real with the local POSIX ``sh`` on a temporary tree.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from unittest.mock import call, create_autospec

import pytest
from kubernetes import client as k8s
from kubernetes.stream import stream
from kubernetes.stream.ws_client import WSClient
from live_fakes import FakeClock
from websocket import WebSocketConnectionClosedException, WebSocketTimeoutException

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.common.observations import ABSENT, DIRECTORY
from harness.lab.ports import ExecResult
from harness.lab.waiting import wait_for
from harness.live import cluster_port
from harness.live.cluster_port import (
    KILL_PID1,
    LIST_FILES_SCRIPT,
    REQUEST_TIMEOUT,
    WRITE_FILE_SCRIPT,
    KubeApis,
    LiveClusterPort,
    parse_listing,
)

NS = "test-model"
STARTED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def apis() -> KubeApis:
    return KubeApis(
        core=create_autospec(k8s.CoreV1Api, instance=True),
        apps=create_autospec(k8s.AppsV1Api, instance=True),
        version=create_autospec(k8s.VersionApi, instance=True),
    )


def replay(api_class: type, method: str, recorded: Any) -> Any:
    """Call the real generated method with the recorded arguments; return its HTTP call."""
    api_client = create_autospec(k8s.ApiClient, instance=True)
    api_client.client_side_validation = True
    getattr(api_class(api_client), method)(*recorded.args, **recorded.kwargs)
    return api_client.call_api.call_args


def v1pod(name: str, uid: str, unit: str | None = None, restarts: int = 0) -> k8s.V1Pod:
    running = k8s.V1ContainerState(running=k8s.V1ContainerStateRunning(started_at=STARTED))
    statuses = [
        k8s.V1ContainerStatus(
            name=c,
            ready=True,
            restart_count=restarts,
            image="img",
            image_id="img@sha",
            container_id=f"containerd://{c}",
            state=running,
        )
        for c in ("charm", "workload")
    ]
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(
            name=name, uid=uid, annotations={"unit.juju.is/id": unit} if unit else None
        ),
        spec=k8s.V1PodSpec(node_name="node-1", containers=[k8s.V1Container(name="charm")]),
        status=k8s.V1PodStatus(phase="Running", start_time=STARTED, container_statuses=statuses),
    )


async def test_pods_are_found_by_juju_sidecar_label_and_named_by_unit() -> None:
    kube = apis()
    kube.core.list_namespaced_pod.return_value = k8s.V1PodList(
        items=[v1pod("probe-1", "u1", "probe/1"), v1pod("probe-0", "u0")]
    )
    pods = await LiveClusterPort(NS, apis=kube).pods("probe")
    recorded = kube.core.list_namespaced_pod.call_args
    assert recorded == call(
        NS, label_selector="app.kubernetes.io/name=probe", _request_timeout=REQUEST_TIMEOUT
    )
    assert replay(k8s.CoreV1Api, "list_namespaced_pod", recorded).args[0] == (
        "/api/v1/namespaces/{namespace}/pods"
    )
    assert [(p.unit, p.name, p.uid) for p in pods] == [
        ("probe/0", "probe-0", "u0"),
        ("probe/1", "probe-1", "u1"),
    ]
    assert pods[0].node == "node-1"
    assert {c.name for c in pods[0].containers} == {"charm", "workload"}


async def test_pods_fall_back_to_juju_legacy_labels() -> None:
    kube = apis()
    kube.core.list_namespaced_pod.side_effect = [
        k8s.V1PodList(items=[]),
        k8s.V1PodList(items=[v1pod("probe-0", "u0")]),
    ]
    pods = await LiveClusterPort(NS, apis=kube).pods("probe")
    assert [c.kwargs["label_selector"] for c in kube.core.list_namespaced_pod.call_args_list] == [
        "app.kubernetes.io/name=probe",
        "juju-app=probe",
    ]
    assert [p.unit for p in pods] == ["probe/0"]


async def test_delete_pod_and_patch_template() -> None:
    kube = apis()
    cluster = LiveClusterPort(NS, apis=kube)
    await cluster.delete_pod("probe-0")
    kube.core.delete_namespaced_pod.assert_called_once_with(
        "probe-0", NS, _request_timeout=REQUEST_TIMEOUT
    )
    replay(k8s.CoreV1Api, "delete_namespaced_pod", kube.core.delete_namespaced_pod.call_args)

    await cluster.patch_pod_template("probe", {"lifecycle-harness/disrupted-at": "t1"})
    kube.apps.patch_namespaced_stateful_set.assert_called_once_with(
        "probe",
        NS,
        {
            "spec": {
                "template": {"metadata": {"annotations": {"lifecycle-harness/disrupted-at": "t1"}}}
            }
        },
        _request_timeout=REQUEST_TIMEOUT,
    )
    http = replay(
        k8s.AppsV1Api,
        "patch_namespaced_stateful_set",
        kube.apps.patch_namespaced_stateful_set.call_args,
    )
    assert http.args[:2] == ("/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}", "PATCH")


def exec_stream(stdout: str = "", stderr: str = "", code: int | None = 0) -> tuple[Any, Any]:
    ws = create_autospec(WSClient, instance=True)
    ws.read_stdout.return_value = stdout
    ws.read_stderr.return_value = stderr
    ws.returncode = code
    fake_stream = create_autospec(stream)
    fake_stream.return_value = ws
    return fake_stream, ws


async def test_exec_streams_the_command_and_reads_the_exit_code() -> None:
    kube = apis()
    fake_stream, ws = exec_stream("hello\n", "warn\n", 3)
    cluster = LiveClusterPort(NS, apis=kube, stream=fake_stream)
    result = await cluster.exec("probe-0", "workload", ["cat", "/etc/hostname"])
    assert (result.stdout, result.stderr, result.exit_code) == ("hello\n", "warn\n", 3)
    fake_stream.assert_called_once_with(
        kube.core.connect_get_namespaced_pod_exec,
        "probe-0",
        NS,
        container="workload",
        command=["cat", "/etc/hostname"],
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
        _preload_content=False,
        _request_timeout=REQUEST_TIMEOUT,
    )
    recorded = fake_stream.call_args
    http = replay(
        k8s.CoreV1Api,
        "connect_get_namespaced_pod_exec",
        call(*recorded.args[1:], **recorded.kwargs),
    )
    assert http.args[:2] == ("/api/v1/namespaces/{namespace}/pods/{name}/exec", "GET")
    ws.run_forever.assert_called_once()
    ws.close.assert_called_once()


async def test_exec_that_does_not_finish_is_an_error() -> None:
    fake_stream, _ = exec_stream(code=None)
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    with pytest.raises(HarnessError, match="did not finish"):
        await cluster.exec("probe-0", "workload", ["sleep", "1000"], timeout=1)


@pytest.mark.parametrize(
    "dropped",
    [
        # websocket-client's words when the API server goes away mid-exec (microk8s stop, a
        # restart of kubelite): recv() got b"" (websocket/_socket.py 1.9.2), or a read timed out.
        WebSocketConnectionClosedException("Connection to remote host was lost."),
        WebSocketTimeoutException("Connection timed out"),
    ],
)
async def test_an_exec_whose_connection_drops_is_closed_and_retried_by_a_wait(
    dropped: Exception,
) -> None:
    lost, _ = exec_stream()
    lost_ws = lost.return_value
    lost_ws.run_forever.side_effect = dropped
    answering, _ = exec_stream("C\t1700000000.5\nA\t/var/lib/probe\n", "", 0)
    fake_stream = create_autospec(stream, side_effect=[lost_ws, answering.return_value])
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    waited = await wait_for(
        "a listing",
        lambda: cluster.list_files("probe-0", "workload", ["/var/lib/probe"]),
        lambda _: True,
        timeout=600,
        clock=FakeClock(),
    )
    assert [f.path for f in waited.value] == ["/var/lib/probe"]
    assert waited.attempts == 2
    lost_ws.close.assert_called_once()  # the dropped socket is not left open


async def test_an_exec_whose_connection_never_answers_is_given_up_and_retried_by_a_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # kubernetes 30.1.0 opens the exec's websocket with no timeout at all (ws_client's
    # create_websocket passes none to WebSocket.connect, whose socket then blocks): an API
    # server that takes the connection and never answers the upgrade held the thread for ever.
    monkeypatch.setattr(cluster_port, "CONNECT_TIMEOUT", 0.1, raising=False)
    released = threading.Event()
    answering, _ = exec_stream("C\t1700000000.5\nA\t/var/lib/probe\n", "", 0)
    calls: list[str] = []

    def connect(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[1])
        if len(calls) == 1:
            released.wait()  # the upgrade's answer never comes (until the test ends)
        return answering.return_value

    cluster = LiveClusterPort(NS, apis=apis(), stream=create_autospec(stream, side_effect=connect))
    try:
        waited = await asyncio.wait_for(
            wait_for(
                "a listing",
                lambda: cluster.list_files("probe-0", "workload", ["/var/lib/probe"]),
                lambda _: True,
                timeout=600,
                clock=FakeClock(),
            ),
            5,
        )
    finally:
        released.set()
    assert [f.path for f in waited.value] == ["/var/lib/probe"]
    assert calls == ["probe-0", "probe-0"]


async def test_kill_pid1_whose_exec_never_answers_is_one_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cluster_port, "CONNECT_TIMEOUT", 0.1, raising=False)
    released = threading.Event()

    def connect(*args: Any, **kwargs: Any) -> Any:
        released.wait()
        return exec_stream()[1]

    cluster = LiveClusterPort(NS, apis=apis(), stream=create_autospec(stream, side_effect=connect))
    try:
        with pytest.raises(HarnessError, match="did not answer") as raised:
            await asyncio.wait_for(cluster.kill_pid1("probe-0", "workload"), 5)
    finally:
        released.set()
    assert "probe-0/workload" in str(raised.value)


def run_listing_locally(paths: list[str], path_env: str | None = None) -> str:
    """The listing script run by the local ``sh`` (``path_env``: the tools it may find)."""
    env = None if path_env is None else {**os.environ, "PATH": path_env}
    done = subprocess.run(
        ["sh", "-c", LIST_FILES_SCRIPT, "list-files", *paths],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env=env,
    )
    return done.stdout


def test_the_listing_script_digests_files_marks_dirs_and_reports_absent_paths(
    tmp_path: Path,
) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "router.conf").write_text("[DEFAULT]\nname=router\n")
    (tmp_path / "conf" / "sub dir").mkdir()
    (tmp_path / "conf" / "sub dir" / "a file").write_bytes(b"\x00\x01binary")
    (tmp_path / "marker").write_text("probe/0")
    missing = str(tmp_path / "gone")
    out = run_listing_locally([str(tmp_path / "conf"), str(tmp_path / "marker"), missing])
    files = {f.path: f.digest for f in parse_listing("probe/0", "workload", out)}

    def sha(path: Path) -> str:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()

    assert files == {
        str(tmp_path / "conf"): DIRECTORY,
        str(tmp_path / "conf" / "router.conf"): sha(tmp_path / "conf" / "router.conf"),
        str(tmp_path / "conf" / "sub dir"): DIRECTORY,
        str(tmp_path / "conf" / "sub dir" / "a file"): sha(
            tmp_path / "conf" / "sub dir" / "a file"
        ),
        str(tmp_path / "marker"): sha(tmp_path / "marker"),
        missing: ABSENT,
    }


async def test_list_files_runs_the_script_in_one_exec_and_names_the_unit() -> None:
    out = (
        "C\t1767225600.5\n"
        "F\tabc123\t15 1767225500.25 1767225501.75 4242 0.000000000\t/probe/workload-marker\n"
        "A\t/probe/other\n"
    )
    fake_stream, _ = exec_stream(out, "", 0)
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    files = await cluster.list_files(
        "mysql-router-k8s-0", "workload", ["/probe/workload-marker", "/probe/other"]
    )
    command = fake_stream.call_args.kwargs["command"]
    assert command[:3] == ["sh", "-c", LIST_FILES_SCRIPT]
    assert command[4:] == ["/probe/workload-marker", "/probe/other"]
    assert [(f.unit, f.container, f.path, f.digest) for f in files] == [
        ("mysql-router-k8s/0", "workload", "/probe/workload-marker", "sha256:abc123"),
        ("mysql-router-k8s/0", "workload", "/probe/other", ABSENT),
    ]
    # With what tells a survivor from a rewrite: metadata, and the container's clock.
    marker = files[0]
    assert (marker.size, marker.mtime, marker.ctime, marker.inode) == (
        15,
        1767225500.25,
        1767225501.75,
        4242,
    )
    assert (marker.birth, marker.clock, files[1].clock) == (None, 1767225600.5, 1767225600.5)


async def test_list_files_failure_says_what_the_container_lacks() -> None:
    fake_stream, _ = exec_stream("", "sha256sum not found\n", 3)
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    with pytest.raises(HarnessError, match="sha256sum"):
        await cluster.list_files("probe-0", "workload", ["/x"])


def closed_exec(error_channel: str, stdout: str = "") -> WSClient:
    """A real WSClient after the server closed it, holding what came on its channels."""
    ws = WSClient.__new__(WSClient)  # no socket: the frames have already arrived
    ws._connected = False
    ws._returncode = None
    ws.binary = False
    ws.sock = None
    ws._channels = {1: stdout, 3: error_channel} if stdout else {3: error_channel}
    return ws


async def test_an_exec_failure_keeps_kubernetes_own_message() -> None:
    """No ``sh`` in the container: Failure on the error channel, with no exit code in it
    (the client's ``returncode`` then raises KeyError('details'))."""
    message = (
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": '
        "executable file not found in $PATH: unknown"
    )
    status = {"metadata": {}, "status": "Failure", "message": message, "reason": "InternalError"}
    ws = closed_exec(json.dumps(status))
    with pytest.raises(KeyError):
        _ = closed_exec(json.dumps(status)).returncode  # the client's own parsing
    fake_stream = create_autospec(stream, return_value=ws)
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    with pytest.raises(HarnessError, match="executable file not found") as raised:
        await cluster.list_files("probe-0", "workload", ["/x"])
    assert "InternalError" in str(raised.value)


async def test_an_exec_that_succeeded_reads_the_exit_code_from_the_error_channel() -> None:
    ws = closed_exec(json.dumps({"metadata": {}, "status": "Success"}), "hi\n")
    cluster = LiveClusterPort(NS, apis=apis(), stream=create_autospec(stream, return_value=ws))
    assert await cluster.exec("p-0", "c", ["echo", "hi"]) == ExecResult("hi\n", "", 0)


def test_the_write_script_creates_parents_and_writes_content_verbatim(tmp_path: Path) -> None:
    target = tmp_path / "etc" / "mysqlrouter" / ".harness-marker"
    content = "probe/0 $HOME 'quoted' \\n %s"
    subprocess.run(
        ["sh", "-c", WRITE_FILE_SCRIPT, "write-file", str(target), content], check=True, timeout=30
    )
    assert target.read_text() == content


async def test_write_file_passes_path_and_content_as_arguments() -> None:
    fake_stream, _ = exec_stream()
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    await cluster.write_file("mysql-router-k8s-0", "mysql-router", "/etc/mysqlrouter/m", "x y")
    assert fake_stream.call_args.kwargs["command"] == [
        "sh",
        "-c",
        WRITE_FILE_SCRIPT,
        "write-file",
        "/etc/mysqlrouter/m",
        "x y",
    ]
    failing, _ = exec_stream("", "sh: can't create /ro/m: Read-only file system\n", 1)
    with pytest.raises(HarnessError, match="Read-only file system"):
        await LiveClusterPort(NS, apis=apis(), stream=failing).write_file("p-0", "c", "/ro/m", "x")


async def test_kill_pid1_sends_sigterm_and_tolerates_the_dropped_connection() -> None:
    fake_stream, ws = exec_stream()
    ws.run_forever.side_effect = ConnectionResetError("container exited")
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    await cluster.kill_pid1("probe-0", "workload")
    assert fake_stream.call_args.kwargs["command"] == list(KILL_PID1)
    assert fake_stream.call_args.kwargs["container"] == "workload"


async def test_kill_pid1_in_a_container_without_sh_says_so_instead_of_waiting_for_a_restart() -> (
    None
):
    # A chiseled rock has no shell: Kubernetes refuses the exec (a Failure with no exit
    # code), the container was never signalled, and no restart will come.
    message = (
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": '
        "executable file not found in $PATH: unknown"
    )
    status = {"metadata": {}, "status": "Failure", "message": message, "reason": "InternalError"}
    fake_stream = create_autospec(stream, return_value=closed_exec(json.dumps(status)))
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    with pytest.raises(HarnessError, match="executable file not found") as raised:
        await cluster.kill_pid1("probe-0", "workload")
    assert "could not signal PID 1 in probe-0/workload" in str(raised.value)


async def test_kill_pid1_with_sigkill_or_oom_is_refused_live_in_one_line() -> None:
    fake_stream, _ = exec_stream()
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    for signal in ("KILL", "OOM"):
        with pytest.raises(HarnessError, match="cannot be sent from inside") as caught:
            await cluster.kill_pid1("probe-0", "charm", signal)
        assert "\n" not in str(caught.value)
        assert "--backend twin" in str(caught.value)
    fake_stream.assert_not_called()


async def test_kill_pid1_refused_is_an_error() -> None:
    fake_stream, _ = exec_stream("", "sh: kill: not permitted\n", 1)
    cluster = LiveClusterPort(NS, apis=apis(), stream=fake_stream)
    with pytest.raises(HarnessError, match="could not signal PID 1 in probe-0/workload"):
        await cluster.kill_pid1("probe-0", "workload")


async def test_server_version() -> None:
    kube = apis()
    kube.version.get_code.return_value = k8s.VersionInfo(
        git_version="v1.28.3",
        build_date="",
        compiler="",
        git_commit="",
        git_tree_state="",
        go_version="",
        major="1",
        minor="28",
        platform="linux/amd64",
    )
    assert await LiveClusterPort(NS, apis=kube).server_version() == "v1.28.3"
    kube.version.get_code.assert_called_once_with(_request_timeout=REQUEST_TIMEOUT)
    replay(k8s.VersionApi, "get_code", kube.version.get_code.call_args)
    kube.version.get_code.side_effect = OSError("down")
    assert await LiveClusterPort(NS, apis=kube).server_version() is None


def test_no_cluster_at_all_is_one_environment_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes import config

    def refuse(*_: object, **__: object) -> None:
        raise config.ConfigException("nothing here")

    monkeypatch.setattr(cluster_port.shutil, "which", lambda _: None)
    monkeypatch.setattr(config, "new_client_from_config", refuse)
    monkeypatch.setattr(config, "load_incluster_config", refuse)
    with pytest.raises(EnvironmentUnavailable, match="no Kubernetes cluster is reachable"):
        cluster_port.load_kube_apis()


async def test_the_client_is_loaded_lazily_once() -> None:
    loads: list[int] = []
    kube = apis()
    kube.core.list_namespaced_pod.return_value = k8s.V1PodList(items=[])

    def load() -> KubeApis:
        loads.append(1)
        return kube

    cluster = LiveClusterPort(NS, load=load)
    assert loads == []
    await cluster.pods("probe")
    await cluster.pods("probe")
    assert loads == [1]


async def test_loading_the_kubeconfig_does_not_hold_the_event_loop() -> None:
    # The first call loads the kubeconfig through `sudo -n microk8s config` (up to 60 s,
    # twice): on the loop's thread, a Ctrl-C or any other task waited for it.
    kube = apis()
    kube.core.list_namespaced_pod.return_value = k8s.V1PodList(items=[])
    other_task_ran = threading.Event()

    def load() -> KubeApis:
        assert other_task_ran.wait(5), "the event loop was held while the kubeconfig loaded"
        return kube

    async def other_task() -> None:
        other_task_ran.set()

    cluster = LiveClusterPort(NS, load=load)
    found, _ = await asyncio.wait_for(asyncio.gather(cluster.pods("probe"), other_task()), 10)
    assert found == ()
