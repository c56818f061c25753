"""What the workload does when the charm runs a command in it: exec handlers.

``ops.testing.Exec`` answers a command with a fixed exit code and output. A real workload
binary has side effects: ``mysqlrouter --bootstrap`` writes ``/etc/mysqlrouter/...`` and
refuses to bootstrap again while that is there. An exec handler is a callable the charm
author attaches to a command prefix of one container; while the twin runs a hook, a
``Container.exec`` whose command starts with that prefix (the longest prefix wins, as in
ops.testing) calls it with an ``ExecCall``: the command, and the container's filesystem
as it is at that moment, which the handler may read and write. Its return value is the
exit code (``None`` is 0) or an ``ExecResult`` with output. The twin keeps the handler
object itself for the whole run, so an instance that stores attributes keeps them across
calls, hooks and restarts. Commands no handler matches go to ops.testing as usual
(``Container.execs``).

Every command and every ``push`` the charm makes is recorded for the hook's trace.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import posixpath
import re
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ops
from ops import pebble, testing

from harness.common.errors import HarnessError
from harness.twin.layer_paths import in_layer


@dataclass(frozen=True)
class ExecCall:
    """One command the charm ran in a container, as an exec handler sees it."""

    container: str
    command: tuple[str, ...]
    root: Path  # the container's filesystem on this machine, during the hook
    environment: Mapping[str, str] = field(default_factory=dict)
    working_dir: str | None = None
    stdin: str | bytes | None = None

    def path(self, container_path: str) -> Path:
        """Where an absolute path of the container is on this machine."""
        return in_layer(self.root, container_path)


@dataclass(frozen=True)
class ExecResult:
    """What a handled command returns to the charm."""

    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""


ExecHandler = Callable[[ExecCall], ExecResult | int | None]
# container name -> command prefix ("mysqlrouter --bootstrap" or a tuple of words) -> handler
ExecHandlers = Mapping[str, Mapping[str | Sequence[str], ExecHandler]]


class ExecHandlerError(Exception):
    """An exec handler raised: the test's model of the workload is broken, not the charm."""


@dataclass(frozen=True)
class CommandRun:
    """A command the charm ran during a hook; ``exit_code`` is None when ops.testing's
    static ``Exec`` answered it (the twin does not see its result)."""

    container: str
    command: tuple[str, ...]
    exit_code: int | None
    handled: bool

    def brief(self) -> str:
        code = "" if self.exit_code is None else f" -> {self.exit_code}"
        return f"{self.container}: {shlex.join(self.command)}{code}"


@dataclass
class Recorder:
    """What the charm did to its containers during one hook."""

    commands: list[CommandRun] = field(default_factory=list)
    pushed: list[tuple[str, str]] = field(default_factory=list)  # (container, path)
    push_failures: list[tuple[str, str]] = field(default_factory=list)  # of those pushed


def normalise(
    handlers: ExecHandlers | None, containers: Sequence[str]
) -> dict[str, dict[tuple[str, ...], ExecHandler]]:
    """Handlers keyed by container and a tuple prefix; unknown containers are an error."""
    out: dict[str, dict[tuple[str, ...], ExecHandler]] = {}
    for container, by_prefix in (handlers or {}).items():
        if container not in containers:
            raise HarnessError(
                f"exec handlers given for container {container!r}, which the charm does not have",
                f"use one of: {', '.join(containers) or 'none (the charm has no containers)'}",
            )
        out[container] = {}
        for prefix, handler in by_prefix.items():
            words = tuple(shlex.split(prefix)) if isinstance(prefix, str) else tuple(prefix)
            if not callable(handler):
                raise HarnessError(
                    f"the exec handler for {container}: {' '.join(words)!r} is not callable",
                    "give a function taking an ExecCall",
                )
            out[container][words] = handler
    return out


def _match(
    handlers: Mapping[tuple[str, ...], ExecHandler], command: Sequence[str]
) -> ExecHandler | None:
    for length in range(len(command), -1, -1):
        found = handlers.get(tuple(command[:length]))
        if found is not None:
            return found
    return None


class _HandledProcess:
    """The ``ops.pebble.ExecProcess`` surface charms use, for a command a handler ran."""

    def __init__(self, command: Sequence[str], result: ExecResult, encoding: str | None) -> None:
        self._command = list(command)
        self._result = result
        self._encoding = encoding
        self.stdin: Any = None
        self.stdout: Any = self._stream(result.stdout)
        self.stderr: Any = self._stream(result.stderr)

    def _stream(self, text: str) -> io.StringIO | io.BytesIO:
        if self._encoding is None:
            return io.BytesIO(text.encode())
        return io.StringIO(text)

    def _out(self, text: str) -> str | bytes:
        return text.encode() if self._encoding is None else text

    def wait(self) -> None:
        if self._result.exit_code != 0:
            raise pebble.ExecError[str](self._command, self._result.exit_code, None, None)

    def wait_output(self) -> tuple[Any, Any]:
        stdout: Any = self._out(self._result.stdout)
        stderr: Any = self._out(self._result.stderr)
        if self._result.exit_code != 0:
            raise pebble.ExecError[Any](self._command, self._result.exit_code, stdout, stderr)
        return stdout, stderr

    def send_signal(self, sig: int | str) -> None:
        """The command has already finished in the twin: there is nothing to signal."""


def _as_result(value: ExecResult | int | None) -> ExecResult:
    if value is None:
        return ExecResult()
    if isinstance(value, ExecResult):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return ExecResult(exit_code=value)
    raise HarnessError(
        f"an exec handler returned {value!r}",
        "return None, an exit code (int) or harness.twin.ExecResult",
    )


def _remember(
    ctx: testing.Context[Any], container: str, command: Sequence[str], kwargs: Mapping[str, Any]
) -> None:
    """A handled command goes into ``ctx.exec_history`` as ops.testing records its own."""
    record = getattr(testing, "ExecArgs", None)
    history = getattr(ctx, "exec_history", None)
    if record is None or not isinstance(history, dict):
        return
    names = {f.name for f in dataclasses.fields(record)}
    values: dict[str, Any] = dict.fromkeys(names)  # Container.exec's defaults
    values.update(encoding="utf-8", combine_stderr=False)
    values.update((k, v) for k, v in kwargs.items() if k in names)
    values.update(command=list(command), environment=dict(kwargs.get("environment") or {}))
    history.setdefault(container, []).append(record(**values))


def _push_message(path: str, message: str) -> str:
    """ops.testing's message for a push whose parent directory is missing names an errno
    (``parent directory not found: 2``); the twin's names the path and the directory."""
    message = re.sub(
        r"parent directory not found: \d+$",
        f"parent directory not found: {posixpath.dirname(path)}",
        message,
    )
    return f"push {path}: {message}"


@contextlib.contextmanager
def attached(
    ctx: testing.Context[Any],
    handlers: Mapping[str, Mapping[tuple[str, ...], ExecHandler]],
    recorder: Recorder,
) -> Iterator[None]:
    """While one hook runs: exec handlers answer their commands; exec and push are recorded.

    ``ops.Container.exec`` and ``push`` are wrapped for the duration of the hook (the
    public ops methods every charm and charm library goes through; ``push_path`` pushes
    through ``push``).
    """
    original_exec = ops.Container.exec
    original_push = ops.Container.push

    def exec_(self: ops.Container, command: list[str], **kwargs: Any) -> Any:
        handler = _match(handlers.get(self.name, {}), command)
        if handler is None:
            recorder.commands.append(CommandRun(self.name, tuple(command), None, False))
            return original_exec(self, command, **kwargs)
        if not self.can_connect():
            raise pebble.ConnectionError(f"cannot connect to Pebble in {self.name!r}")
        stdin = kwargs.get("stdin")
        if stdin is not None and hasattr(stdin, "read"):
            stdin = stdin.read()
        working_dir = kwargs.get("working_dir")
        call = ExecCall(
            container=self.name,
            command=tuple(command),
            root=testing.Container(self.name).get_filesystem(ctx),
            environment=dict(kwargs.get("environment") or {}),
            working_dir=None if working_dir is None else str(working_dir),
            stdin=stdin,
        )
        try:
            result = _as_result(handler(call))
        except Exception as e:
            raise ExecHandlerError(
                f"the exec handler for {self.name}: {shlex.join(command)!r} raised "
                f"{type(e).__name__}: {e}"
            ) from e
        recorder.commands.append(CommandRun(self.name, call.command, result.exit_code, True))
        _remember(ctx, self.name, command, {**kwargs, "stdin": stdin})
        encoding = kwargs.get("encoding", "utf-8")
        process = _HandledProcess(command, result, encoding)
        for name in ("stdout", "stderr"):
            stream = kwargs.get(name)
            if stream is not None:
                stream.write(process._out(getattr(result, name)))
                setattr(process, name, None)
        return process

    def push(self: ops.Container, path: Any, *args: Any, **kwargs: Any) -> None:
        recorder.pushed.append((self.name, str(path)))
        try:
            original_push(self, path, *args, **kwargs)
        except pebble.PathError as e:
            recorder.push_failures.append((self.name, str(path)))
            raise pebble.PathError(e.kind, _push_message(str(path), e.message)) from None

    ops.Container.exec = exec_  # type: ignore[assignment,method-assign]
    ops.Container.push = push  # type: ignore[method-assign]
    try:
        yield
    finally:
        ops.Container.exec = original_exec  # type: ignore[method-assign]
        ops.Container.push = original_push  # type: ignore[method-assign]
