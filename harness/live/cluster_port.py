"""The live ClusterPort: the model's namespace through the ``kubernetes`` client.

Every call of the (blocking) client runs in ``asyncio.to_thread``. Pods are found by the
label Juju puts on sidecar application pods, ``app.kubernetes.io/name=<app>``; models that
still use Juju's legacy labels have ``juju-app=<app>`` instead, tried second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import yaml

from harness.catalogue import normal_signal
from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.common.observations import ABSENT, DIRECTORY, UNLISTED, FileState, PodIdentity
from harness.lab.ports import ExecResult
from harness.live.parse import pod_identity, unit_for_pod
from harness.live.process import ProcessTimeout, run_sync

log = logging.getLogger(__name__)
T = TypeVar("T")

APP_LABELS = ("app.kubernetes.io/name", "juju-app")
UNIT_ANNOTATION = "unit.juju.is/id"
EXEC_TIMEOUT = 120.0
NOT_RUN = -2  # exit code of an exec Kubernetes refused (a Failure status without a code)
ERROR_CHANNEL = 3  # kubernetes.stream.ws_client.ERROR_CHANNEL: the exec's Status
# Every API call is bounded: an API server that is still starting can accept a connection
# and never answer, and a call in a thread cannot be cancelled from the event loop.
REQUEST_TIMEOUT = 60.0
MICROK8S_CONFIG_TIMEOUT = 60.0  # seconds for `microk8s config` (through sudo, then not)
# An exec's websocket is opened with no timeout at all (kubernetes 30.1.0: ws_client's
# create_websocket passes none to WebSocket.connect), so an API server that takes the
# connection and never answers the upgrade would hold its thread for ever. The exec runs
# in a daemon thread (a hung one cannot hold the interpreter at exit) and is given up this
# long after its own timeout.
CONNECT_TIMEOUT = 60.0

# One exec lists every path: "C<TAB>clock" first (the container's own clock), then
# "F<TAB>sha256<TAB>meta<TAB>path", "D<TAB>meta<TAB>path", "A<TAB>path" (absent) and
# "U<TAB>reason<TAB>path" (could not be listed: no `find`, `find` failed, unreadable).
# POSIX sh, `find`, `sha256sum`, `stat` and `date` only, so it runs on busybox and coreutils
# images alike; the digest comes from stdin so file names never need parsing out of
# sha256sum's output. "meta" is "size mtime ctime inode birth" as `stat -L` gives them (GNU:
# nanoseconds and a birth time, 0 when unknown; busybox/toybox: whole seconds, no birth),
# or "-" when the container has no usable stat. A file's times come from the node's kernel,
# the same clock `date` reads here: they are compared with this reading, never with the
# harness's clock (harness.verdict.file_survival).
LIST_FILES_SCRIPT = r"""
command -v sha256sum >/dev/null 2>&1 || { echo "sha256sum not found" >&2; exit 3; }
now=$(date +%s.%N 2>/dev/null)
case "$now" in ''|*[!0-9.]*) now=$(date +%s 2>/dev/null) ;; esac
printf 'C\t%s\n' "$now"
fmt=
for f in '%s %.9Y %.9Z %i %.9W' '%s %Y %Z %i -'; do
  s=$(stat -L -c "$f" / 2>/dev/null) || continue
  case "$s" in ''|*[!0-9.\ -]*) continue ;; esac
  fmt=$f
  break
done
meta() {
  m=
  if [ -n "$fmt" ]; then m=$(stat -L -c "$fmt" "$1" 2>/dev/null) || m=; fi
  printf '%s' "${m:--}"
}
entry() {
  if [ -d "$1" ]; then printf 'D\t%s\t%s\n' "$(meta "$1")" "$1"
  elif [ -f "$1" ]; then
    h=$(sha256sum < "$1" 2>/dev/null) || { printf 'U\tunreadable\t%s\n' "$1"; return; }
    printf 'F\t%s\t%s\t%s\n' "${h%% *}" "$(meta "$1")" "$1"
  fi
}
stop=$(printf '\001')
for p in "$@"; do
  if [ -d "$p" ]; then
    # Without findutils (chiseled rocks) the shell's "not found" would vanish with find's
    # stderr: say so per path, and mark a find that failed part-way.
    if ! command -v find >/dev/null 2>&1; then
      printf 'U\tno find in the container\t%s\n' "$p"
      continue
    fi
    { find "$p" 2>/dev/null || printf '%s%s\n' "$stop" "$?"; } | while IFS= read -r f; do
      case "$f" in
        "$stop"*) printf 'U\tfind exited %s: listed in part\t%s\n' "${f#"$stop"}" "$p" ;;
        *) entry "$f" ;;
      esac
    done
  elif [ -e "$p" ]; then entry "$p"
  else printf 'A\t%s\n' "$p"
  fi
done
"""

WRITE_FILE_SCRIPT = 'mkdir -p "$(dirname "$1")" && printf "%s" "$2" > "$1"'

# Juju sidecar containers run pebble (the charm container: pebble or the container agent)
# as PID 1. The kernel drops signals sent from inside a PID namespace to its init unless
# init handles them, so `kill -9 1` does nothing; pebble handles SIGTERM (it exits, and the
# kubelet restarts the container), so SIGTERM it is. The caller checks the restart count.
KILL_PID1 = ("sh", "-c", "kill -TERM 1")


class ExecTimeout(HarnessError):
    """An exec that did not answer within its bound (counted transient by waits)."""


def _resolve(
    future: asyncio.Future[Any], value: Any = None, error: BaseException | None = None
) -> None:
    if future.done():
        return  # given up on already
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


async def off_loop(
    work: Callable[[Callable[[], None]], T], connect_bound: float, run_bound: float, what: str
) -> T:
    """``work(opened)`` in a daemon thread, which calls ``opened()`` once its connection
    is open; ExecTimeout if that takes over ``connect_bound`` s, or the rest over
    ``run_bound`` s."""
    loop = asyncio.get_running_loop()
    opened: asyncio.Future[None] = loop.create_future()
    done: asyncio.Future[T] = loop.create_future()

    def settle(
        future: asyncio.Future[Any], value: Any = None, error: BaseException | None = None
    ) -> None:
        with contextlib.suppress(RuntimeError):  # the loop may be gone when a hung call ends
            loop.call_soon_threadsafe(_resolve, future, value, error)

    def run() -> None:
        try:
            value = work(lambda: settle(opened))
        except BaseException as error:
            settle(done, error=error)
        else:
            settle(done, value)

    threading.Thread(target=run, name=f"{what}", daemon=True).start()
    stages: tuple[tuple[set[asyncio.Future[Any]], float, str], ...] = (
        ({opened, done}, connect_bound, "the API server did not open it"),
        ({done}, run_bound, "it did not end"),
    )
    for awaited, bound, words in stages:
        if done.done():
            break
        try:
            finished, _ = await asyncio.wait(
                awaited, timeout=bound, return_when=asyncio.FIRST_COMPLETED
            )
        except BaseException:  # cancelled: the thread's late outcome is dropped
            done.cancel()
            raise
        if not finished:
            done.cancel()
            raise ExecTimeout(
                f"{what} did not answer: {words} within {bound:.0f}s",
                "check the API server (microk8s status) and the pod (kubectl describe pod)",
            )
    return done.result()


def status_message(text: str) -> str:
    """Kubernetes' own words from an exec's error channel (a metav1.Status): its
    ``message`` and ``reason``; the raw text when it is not a Status."""
    try:
        status = yaml.safe_load(text)
    except yaml.YAMLError:
        return text.strip()
    if not isinstance(status, dict):
        return text.strip()
    message, reason = status.get("message"), status.get("reason")
    words = [str(w) for w in (message, reason and f"({reason})") if w]
    return " ".join(words) or text.strip()


def unit_of_pod(pod_name: str) -> str:
    """``mysql-router-k8s-0`` -> ``mysql-router-k8s/0`` (StatefulSet ordinal = unit number)."""
    return unit_for_pod(pod_name, pod_name.rpartition("-")[0])


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_meta(text: str) -> dict[str, Any]:
    """``size mtime ctime inode birth`` (``-`` for none) as FileState keyword arguments."""
    fields = text.split()
    if len(fields) < 4:
        return {}
    size, mtime, ctime, inode = (_number(f) for f in fields[:4])
    birth = _number(fields[4]) if len(fields) > 4 else None
    return {
        "size": None if size is None else int(size),
        "mtime": mtime,
        "ctime": ctime,
        "inode": None if inode is None else int(inode),
        "birth": birth if birth else None,  # GNU stat says 0 when it does not know
    }


def parse_listing(unit: str, container: str, stdout: str) -> tuple[FileState, ...]:
    files: dict[str, FileState] = {}
    clock: float | None = None
    for line in stdout.splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "C":
            clock = _number(rest)
        elif kind == "F":
            digest, meta, path = [*rest.split("\t", 2), "", ""][:3]
            files[path] = FileState(
                unit, container, path, f"sha256:{digest}", clock=clock, **parse_meta(meta)
            )
        elif kind == "D":
            meta, _, path = rest.partition("\t")
            files[path] = FileState(
                unit, container, path, DIRECTORY, clock=clock, **parse_meta(meta)
            )
        elif kind == "A":
            files[rest] = FileState(unit, container, rest, ABSENT, clock=clock)
        elif kind == "U":
            # Comes after what was listed of the path (a find that failed part-way): it wins.
            reason, _, path = rest.partition("\t")
            log.warning("%s %s:%s could not be listed: %s", unit, container, path, reason)
            files.pop(path, None)
            files[path] = FileState(unit, container, path, UNLISTED, clock=clock, reason=reason)
    return tuple(files.values())


@dataclass(frozen=True)
class KubeApis:
    """The three client APIs the port uses, on one ApiClient."""

    core: Any  # kubernetes.client.CoreV1Api
    apps: Any  # kubernetes.client.AppsV1Api
    version: Any  # kubernetes.client.VersionApi


def load_kube_apis() -> KubeApis:
    """Kubeconfig from ``microk8s config`` when MicroK8s is here, else KUBECONFIG or
    ~/.kube/config, else the in-cluster service account."""
    from kubernetes import client, config

    api_client = None
    # Through sudo first: a runner's user is rarely in the microk8s group. run_sync ends a
    # hung one whole: SIGTERM, which sudo relays to the root `microk8s config`, then SIGKILL.
    for argv in (["sudo", "-n", "microk8s", "config"], ["microk8s", "config"]):
        if api_client is not None or not shutil.which("microk8s"):
            break
        try:
            done = run_sync(argv, timeout=MICROK8S_CONFIG_TIMEOUT)
            if done.returncode == 0 and done.stdout.strip():
                api_client = config.new_client_from_config_dict(yaml.safe_load(done.stdout))
        except (OSError, ProcessTimeout, yaml.YAMLError) as error:
            log.info("`%s` unavailable (%s)", " ".join(argv), error)
    if api_client is None:
        try:
            api_client = config.new_client_from_config()
        except Exception as error:  # the client raises ConfigException or OSError variants
            log.info("no kubeconfig (%s); trying in-cluster config", error)
    if api_client is None:
        try:
            config.load_incluster_config()
            api_client = client.ApiClient()
        except Exception as error:
            raise EnvironmentUnavailable(
                "no Kubernetes cluster is reachable",
                "install MicroK8s (sudo snap install microk8s --classic) or set KUBECONFIG",
            ) from error
    return KubeApis(
        core=client.CoreV1Api(api_client),
        apps=client.AppsV1Api(api_client),
        version=client.VersionApi(api_client),
    )


def _default_stream() -> Callable[..., Any]:
    from kubernetes.stream import stream

    return stream  # type: ignore[no-any-return]


class LiveClusterPort:
    """The Kubernetes namespace of one Juju model (its name is the model's)."""

    def __init__(
        self,
        namespace: str,
        *,
        apis: KubeApis | None = None,
        load: Callable[[], KubeApis] = load_kube_apis,
        stream: Callable[..., Any] | None = None,
    ) -> None:
        self._namespace = namespace
        self._apis = apis
        self._load = load
        self._stream = stream

    @property
    def namespace(self) -> str:
        return self._namespace

    def apis(self) -> KubeApis:
        if self._apis is None:
            self._apis = self._load()
        return self._apis

    async def _ready(self) -> KubeApis:
        """The APIs, loaded off the loop: loading runs `sudo -n microk8s config` (up to 60 s,
        twice), which would hold every task and a Ctrl-C's handling meanwhile."""
        if self._apis is None:
            self._apis = await asyncio.to_thread(self.apis)
        return self._apis

    def _stream_fn(self) -> Callable[..., Any]:
        if self._stream is None:
            self._stream = _default_stream()
        return self._stream

    async def pods(self, app: str) -> tuple[PodIdentity, ...]:
        items: list[Any] = []
        for label in APP_LABELS:
            listing = await asyncio.to_thread(
                (await self._ready()).core.list_namespaced_pod,
                self._namespace,
                label_selector=f"{label}={app}",
                _request_timeout=REQUEST_TIMEOUT,
            )
            items = list(listing.items or [])
            if items:
                break
        found = []
        for pod in items:
            annotations = pod.metadata.annotations or {}
            unit = annotations.get(UNIT_ANNOTATION) or unit_for_pod(pod.metadata.name, app)
            found.append(pod_identity(pod, unit))
        return tuple(sorted(found, key=lambda p: _ordinal(p.unit)))

    async def delete_pod(self, pod: str) -> None:
        await asyncio.to_thread(
            (await self._ready()).core.delete_namespaced_pod,
            pod,
            self._namespace,
            _request_timeout=REQUEST_TIMEOUT,
        )

    async def patch_pod_template(self, app: str, annotations: Mapping[str, str]) -> None:
        body = {"spec": {"template": {"metadata": {"annotations": dict(annotations)}}}}
        await asyncio.to_thread(
            (await self._ready()).apps.patch_namespaced_stateful_set,
            app,
            self._namespace,
            body,
            _request_timeout=REQUEST_TIMEOUT,
        )

    async def exec(
        self, pod: str, container: str, argv: Sequence[str], *, timeout: float = EXEC_TIMEOUT
    ) -> ExecResult:
        await self._ready()  # loaded before the exec's connect bound starts
        return await off_loop(
            lambda opened: self._exec(pod, container, argv, timeout, False, opened),
            CONNECT_TIMEOUT,
            timeout + REQUEST_TIMEOUT,
            f"exec `{' '.join(argv[:2])}` in {pod}/{container}",
        )

    def _exec(
        self,
        pod: str,
        container: str,
        argv: Sequence[str],
        timeout: float,
        dropped_ok: bool,
        opened: Callable[[], None] = lambda: None,
    ) -> ExecResult:
        response = self._stream_fn()(
            self.apis().core.connect_get_namespaced_pod_exec,
            pod,
            self._namespace,
            container=container,
            command=list(argv),
            stderr=True,
            stdin=False,
            stdout=True,
            tty=False,
            _preload_content=False,
            _request_timeout=REQUEST_TIMEOUT,
        )
        opened()
        try:
            response.run_forever(timeout=timeout)
        except Exception as error:
            response.close()  # a dropped exec must not keep its socket
            if not dropped_ok:
                raise
            # The container died under us (that was the point): the connection just dropped.
            log.info("exec in %s/%s ended with the container: %s", pod, container, error)
            return ExecResult("", str(error), -1)
        status = ""
        try:
            stdout = str(response.read_stdout(timeout=0) or "")
            stderr = str(response.read_stderr(timeout=0) or "")
            # Peeked first: the client's returncode consumes the channel, then fails on a
            # Failure that carries no exit code (no `sh`, no such container).
            status = str(response.peek_channel(ERROR_CHANNEL, timeout=0) or "")
            code = response.returncode
        except (KeyError, TypeError, ValueError, IndexError, yaml.YAMLError) as error:
            # Kubernetes refused it (no `sh`, no such container): the command never ran.
            return ExecResult("", f"exec failed: {status_message(status) or error}", NOT_RUN)
        finally:
            response.close()
        if code is None:
            raise HarnessError(
                f"`{' '.join(argv)}` in {pod}/{container} did not finish within {timeout:.0f}s",
                "check the container with kubectl exec",
            )
        return ExecResult(stdout, stderr, int(code))

    async def list_files(
        self, pod: str, container: str, paths: Sequence[str]
    ) -> tuple[FileState, ...]:
        if not paths:
            return ()
        result = await self.exec(
            pod, container, ["sh", "-c", LIST_FILES_SCRIPT, "list-files", *paths]
        )
        if result.exit_code != 0:
            raise HarnessError(
                f"listing {', '.join(paths)} in {pod}/{container} failed "
                f"(exit {result.exit_code}): {result.stderr.strip()}",
                "the container needs sh, find and sha256sum",
            )
        return parse_listing(unit_of_pod(pod), container, result.stdout)

    async def write_file(self, pod: str, container: str, path: str, content: str) -> None:
        """Create ``path`` and its parents with ``content`` (argv, so no shell quoting)."""
        result = await self.exec(
            pod, container, ["sh", "-c", WRITE_FILE_SCRIPT, "write-file", path, content]
        )
        if result.exit_code != 0:
            raise HarnessError(
                f"writing {path} in {pod}/{container} failed "
                f"(exit {result.exit_code}): {result.stderr.strip()}",
                "the container needs sh, mkdir and a writable parent directory",
            )

    async def kill_pid1(self, pod: str, container: str, signal: str = "TERM") -> None:
        if normal_signal(signal) != "TERM":
            # The kernel ignores SIGKILL sent to a PID namespace's init from inside it, and
            # an OOM kill cannot be asked for: only the node could do either.
            raise HarnessError(
                f"signal {signal} to PID 1 of {pod}/{container} cannot be sent from inside "
                "the container on the live backend",
                "use signal TERM live, or the twin (--backend twin) for KILL and OOM",
            )
        await self._ready()
        result = await off_loop(
            lambda opened: self._exec(pod, container, KILL_PID1, 60.0, True, opened),
            CONNECT_TIMEOUT,
            60.0 + REQUEST_TIMEOUT,
            f"exec `{shlex.join(KILL_PID1)}` in {pod}/{container}",
        )
        # -1 is the connection dropping with the container (the point); NOT_RUN is an exec
        # Kubernetes refused (a rock with no `sh`): nothing was signalled, no restart comes.
        if result.exit_code > 0 or result.exit_code == NOT_RUN:
            raise HarnessError(
                f"could not signal PID 1 in {pod}/{container} "
                f"(exit {result.exit_code}): {result.stderr.strip()}",
                "check that the container has sh and kill",
            )

    async def server_version(self) -> str | None:
        try:
            info = await asyncio.to_thread(
                (await self._ready()).version.get_code, _request_timeout=REQUEST_TIMEOUT
            )
        except Exception as error:  # a version is evidence, never a reason to fail a run
            log.warning("Kubernetes version unknown: %s", error)
            return None
        return str(info.git_version) if info is not None else None


def _ordinal(unit: str) -> int:
    tail = unit.rpartition("/")[2]
    return int(tail) if tail.isdigit() else -1
