"""Holds a child ``repro`` at named moments until the test that started it says go.

A test that sends a real signal to a real process must send it at the right moment, and must
not guess that moment with a sleep. It starts the child with this folder first on
PYTHONPATH (Python imports ``sitecustomize`` at start-up, before the program's own code:
the console script's first line included) and names the moments in ``REPRO_HOLDS``, comma
separated, in the order the child reaches them:

- ``import:MODULE``: just after MODULE has been imported (its body has run);
- ``call:MODULE:FUNCTION`` or ``call:MODULE:FUNCTION#N``: when FUNCTION of MODULE is called
  the Nth time (the first if not given), before it runs. A coroutine function waits with
  ``await``, so a cancel reaches it there, as it reaches a real deploy awaiting ``juju``.
- ``exit``: while the interpreter exits, after the program's own code has returned (the
  last of the ``atexit`` callbacks).

At its k-th moment (from 0) the child creates ``held-k`` in ``REPRO_HOLD_DIR`` and waits,
for at most ``HOLD_FOR`` seconds, until the test creates ``go-k`` (after sending its signal).
Nothing here is used outside the tests.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import time
from pathlib import Path
from typing import Any

HOLD_FOR = 120.0  # seconds: bounds a child whose test never says go
POLL = 0.002


class _Moment:
    def __init__(self, index: int, text: str) -> None:
        self.index = index
        kind, _, rest = text.partition(":")
        self.kind = kind
        target, _, count = rest.partition("#")
        self.module, _, self.function = target.partition(":")
        self.nth = int(count or 1)
        self.calls = 0

    def _files(self) -> tuple[Path, Path]:
        folder = Path(os.environ["REPRO_HOLD_DIR"])
        return folder / f"held-{self.index}", folder / f"go-{self.index}"

    def hold(self) -> None:
        held, go = self._files()
        held.write_text("held")
        deadline = time.monotonic() + HOLD_FOR
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(POLL)

    async def hold_async(self) -> None:
        held, go = self._files()
        held.write_text("held")
        deadline = time.monotonic() + HOLD_FOR
        # The go is a file another process creates: nothing in this loop could set an Event.
        while not go.exists() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(POLL)

    def wrap(self, module: Any) -> None:
        original = getattr(module, self.function)
        moment = self

        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def held_async(*args: Any, **kwargs: Any) -> Any:
                moment.calls += 1
                if moment.calls == moment.nth:
                    await moment.hold_async()
                return await original(*args, **kwargs)

            setattr(module, self.function, held_async)
        else:

            @functools.wraps(original)
            def held(*args: Any, **kwargs: Any) -> Any:
                moment.calls += 1
                if moment.calls == moment.nth:
                    moment.hold()
                return original(*args, **kwargs)

            setattr(module, self.function, held)


class _AfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs each moment's hook once its module has been executed."""

    def __init__(self, moments: list[_Moment]) -> None:
        self.moments = moments
        self.wrapped: dict[str, Any] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if not any(m.module == name for m in self.moments) or name in self.wrapped:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        self.wrapped[name] = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec: Any) -> Any:
        return self.wrapped[spec.name].create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.wrapped[module.__name__].exec_module(module)
        for moment in self.moments:
            if moment.module != module.__name__:
                continue
            if moment.kind == "import":
                moment.hold()
            else:
                moment.wrap(module)


def _install() -> None:
    holds = os.environ.get("REPRO_HOLDS", "")
    if not holds:
        return
    moments = [_Moment(i, text.strip()) for i, text in enumerate(holds.split(","))]
    sys.meta_path.insert(0, _AfterImport([m for m in moments if m.kind != "exit"]))
    for moment in moments:
        if moment.kind == "exit":
            atexit.register(moment.hold)  # registered first: called last


_install()
