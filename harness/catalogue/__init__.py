"""The expectation catalogue: ``load()`` reads and validates ``catalogue.yaml``.

    >>> from harness.catalogue import load
    >>> catalogue = load()
    >>> catalogue.expect("pod-delete", "3.6").hooks
    ('stop', 'upgrade-charm', 'config-changed', 'start')
    >>> catalogue.expect("pod-delete", "3.6").required_hooks(["workload"], leader=False)[3:]
    ('start', 'leader-settings-changed', 'workload-pebble-ready')
    >>> [b.branch for b in catalogue.branches("pod-delete", "3.6")]
    ['main', 'interrupted-stop']
    >>> kill = catalogue.expect("container-restart", "3.6", container="charm", signal="KILL")
    >>> kill.variant, kill.hooks
    ('charm-kill', ('start',))
    >>> e = catalogue.expect("pod-delete", "3.0")
    >>> (e.termination_grace_seconds, e.stop_budget_seconds)
    (300, 5)

Public API (every value is a frozen dataclass):

- ``load(path=None) -> Catalogue`` (the packaged catalogue is read once and cached).
- ``Catalogue.expect(disruption, juju, *, variant=None, container=None, signal=None)``:
  the ``Expectation`` for one branch on one Juju version (``"3.6"`` or a ``JujuVersion``).
  ``variant=None`` (or ``"main"``) is the main branch. For ``container-restart``,
  ``container`` (``"charm"`` or a workload container's name) and ``signal`` (``TERM``,
  ``KILL``, ``OOM``) pick the branch. Unknown names are ``UnknownName`` errors naming
  the valid ones; a branch asked for before it exists says from which version it does.
- ``Catalogue.branches(disruption, juju)``: every branch on that version, main first.
  A branch's ``selected_by`` says which observation makes the verdict use it
  (``stop-not-completed``, ``second-roll``).
- ``Catalogue.variants(disruption)``, ``Catalogue.disruptions()``,
  ``Catalogue.boundaries()`` (every version where some entry or fact changes).
- ``Catalogue.gone_on(disruption, juju)``: why a disruption does not exist on that Juju
  (``pod-spec-set`` needs a podspec charm, gone from 4.0), else None; ``expect`` and
  ``branches`` raise ``NotOnThisJuju`` with that reason in one line.
- ``Expectation``: ``hooks`` (required, in order), ``optional`` (placed hooks, some
  required, some for leaders or non-leaders only), ``required_hooks(...)`` and
  ``expected_sequence(..., leader=)`` with templates expanded, ``survives`` per layer
  (``container-root``, ``charm-dir``, ``storage``), ``relation_data`` /
  ``app_relation_data``, ``pod_uid``, ``restart_count``, ``unit_identity``,
  ``unit_name`` (``reused`` after scale-down-up), ``pebble_state``,
  ``termination_grace_seconds``, ``stop_budget_seconds``, ``background`` hooks,
  ``container``/``signals`` (container-restart), ``new_units`` (scale-down-up),
  ``sources`` (each with its claim, URL and, where low, why), ``known_bugs``.

Validation happens on load, so a broken catalogue fails at once with one line naming the
entry: every entry has a source, the main branch's version ranges of one disruption
neither overlap nor leave gaps from 2.9 on (a branch's are contiguous from where it
starts), hook names are Juju hooks or ``{container}``/``{endpoint}``/``{storage}``
templates, every disruption is one of ``harness.catalogue.names.NAMES``, of ``PREDICT_ONLY``
(catalogued for ``repro predict``, not yet runnable), a podspec charm's (``PODSPEC``, in
the file's ``podspec`` section, ending where podspec charms are gone) or a lifecycle entry
(``deploy``, ``integrate``), and every fact of ``juju_facts`` covers 2.9 on with a source.
Facts (grace period, stop budget, ``leader-settings-changed``) and versioned background
hooks are applied by splitting each entry at their boundaries (``harness.catalogue.facts``).

Where it lives: ``names`` (the disruption and lifecycle names: a leaf, so that reading the
catalogue imports no disruption), ``model`` (the values), ``catalogue`` (the ``Catalogue``
and its look-ups), ``reading``, ``entries`` and ``fields`` (the YAML, section by section,
entry by entry, field by field), ``validation`` (the rules, and ``CatalogueError``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from harness.catalogue.catalogue import CHARM_CONTAINER, Catalogue, NotOnThisJuju, normal_signal
from harness.catalogue.model import (
    MAIN,
    SIGNALS,
    SUPPORTED_FROM,
    Expectation,
    Gone,
    KnownBug,
    Layer,
    OptionalHook,
    Source,
)
from harness.catalogue.names import LIFECYCLE, PODSPEC
from harness.catalogue.reading import read
from harness.catalogue.validation import CatalogueError

DEFAULT_PATH = Path(__file__).with_name("catalogue.yaml")

__all__ = [
    "CHARM_CONTAINER",
    "DEFAULT_PATH",
    "LIFECYCLE",
    "MAIN",
    "PODSPEC",
    "SIGNALS",
    "SUPPORTED_FROM",
    "Catalogue",
    "CatalogueError",
    "Expectation",
    "Gone",
    "KnownBug",
    "Layer",
    "NotOnThisJuju",
    "OptionalHook",
    "Source",
    "load",
    "normal_signal",
]


def load(path: str | Path | None = None) -> Catalogue:
    """Read and validate a catalogue; the packaged one (cached) when ``path`` is None."""
    if path is None:
        return _load_default()
    return read(Path(path))


@lru_cache(maxsize=1)
def _load_default() -> Catalogue:
    return read(DEFAULT_PATH)
