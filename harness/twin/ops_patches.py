"""What the twin changes in ops.testing and PyYAML while a charm's hook runs: the charm
sees what it would under Juju (a missing resource is ``ModelError``), a little faster."""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Iterator
from typing import Any

import ops
import yaml
from ops import testing


def scenario_backend() -> Any:
    """ops.testing's model backend class (ops-scenario's mocking module)."""
    package = testing.State.__module__.rpartition(".")[0]
    try:
        mocking = importlib.import_module(f"{package}.mocking")
    except ImportError:
        return None
    return getattr(mocking, "_MockModelBackend", None)


def no_resource_is_a_model_error() -> Any:
    """A resource the State does not hold is ``ModelError``, as ops gives it under Juju.

    ops.testing raises RuntimeError("Inconsistent state: resource ... not found in State"),
    a test-writing hint; under Juju, ``resource-get`` of a file resource nobody uploaded
    fails and ops turns the failed hook tool into ``ModelError`` (ops/model.py
    ``_ModelBackend._run``), which charms catch (redis-k8s does, for its three). Returns
    the method it replaced, or None when ops.testing has no such backend.
    """
    backend = scenario_backend()
    original = getattr(backend, "resource_get", None)
    if original is None:
        return None

    def resource_get(self: Any, resource_name: str) -> str:
        try:
            return str(original(self, resource_name))
        except RuntimeError as exc:
            raise ops.ModelError(f"ERROR could not download resource: {resource_name}") from exc

    backend.resource_get = resource_get
    return original


@contextlib.contextmanager
def libyaml() -> Iterator[None]:
    """PyYAML's C emitter and parser while a hook runs, when PyYAML has them.

    ops.testing writes the charm's metadata as YAML and ops reads it back on every hook;
    with the pure-Python ones that is a quarter of a hook's time. Same YAML, same values.
    """
    if not yaml.__with_libyaml__:
        yield
        return
    saved = yaml.safe_dump, yaml.safe_load
    yaml.safe_dump = functools.partial(yaml.dump, Dumper=yaml.CSafeDumper)  # type: ignore[assignment]
    yaml.safe_load = functools.partial(yaml.load, Loader=yaml.CSafeLoader)  # type: ignore[assignment]
    try:
        yield
    finally:
        yaml.safe_dump, yaml.safe_load = saved
