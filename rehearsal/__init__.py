"""The rehearsal: ``harness.live`` run unchanged against a world that speaks Juju's and
Kubernetes' own protocols (``tox -e rehearsal``).

- ``rehearsal.world``: one process owning a simulated controller and cluster. Its state is
  the twin's (``harness.twin``: the probe charm's real code through ops.testing), played out
  in real time at a chosen scale, with hostile timing. It serves a TLS websocket Juju API
  (python-libjuju), a TLS Kubernetes API (the ``kubernetes`` client through a kubeconfig),
  and the commands ``juju``, ``microk8s`` and ``sudo`` through small shims on PATH.
- ``rehearsal.runner``: one case, as a CI runner runs it: a world, then ``pytest
  tests/integration --backend live`` (or ``repro run --backend live``) against it, then
  what the run left behind (its evidence bundles, its junit report).

Not shipped with the harness and never evidence of what Juju does: every bundle it makes
says REHEARSAL (``harness.common.rehearsal``).
"""
