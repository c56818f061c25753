"""How long things take in a world, and how hostile its timing is.

Durations are in *world seconds*: what they would take on a real node. A world runs them
``scale`` times faster (``World.scale``, the same number the harness's clock is given
through ``REPRO_TIME_SCALE``), so a 30 s grace period passes in 3 s of real time at scale
10 and the harness's 20 s quiet window in 2 s: their proportions are a real node's.
Wall-clock stamps (log records, pod times) are never scaled.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

# A real node's pace (world seconds).
HOOK = 1.0  # one hook, dispatch to result
GAP = 0.2  # between two hooks of one unit
AGENT_START = 2.0  # a new pod's charm container: "running containerAgent" after creation
FIRST_HOOK = 4.0  # ... and its first hook (the charm is downloaded meanwhile)
CONTAINERS_READY = 5.0  # a new pod's (or restarted node's) containers pass readiness
RESTART = 2.0  # a container whose PID 1 died is started again by the kubelet
PEBBLE_POLL = 5.0  # the uniter asks each workload's pebble for its boot id this often
STOP_START = 8.0  # `microk8s stop` / `microk8s start` themselves
AGENT_RECONNECT = 6.0  # after the controller is back, a unit agent's next dial
CLI_DIAL = 1.0  # `juju` trying the API before it says it could not connect


@dataclass(frozen=True)
class Hostility:
    """The hostile timing a world plays (every field off is a kind world).

    Each one is something a real node does; the citations are in ``pacing.py`` where it
    is applied.
    """

    # A disrupted unit's workload pebble-ready comes this long after its container is Ready
    # (pebble starting slowly, the uniter busy): longer than the harness's quiet window.
    late_pebble_ready: float = 90.0
    # A deleted pod stays Terminating for its whole terminationGracePeriodSeconds.
    linger_terminating: bool = True
    # Agent records reach the store in batches per connection (logstore.FLUSH_SECONDS); and
    # one disrupted unit's record of ``hold_hook`` is held this long besides (a slow or
    # reconnecting log connection), so it is stored after later records of other units.
    batches: bool = True
    hold_record: float = 0.0
    hold_hook: str = "start"
    # After `microk8s start` the Kubernetes API answers 503 this long, the controller
    # (a pod on the node) comes back after ``controller_outage``; ``stays_down``: never.
    kube_starting: float = 12.0
    controller_outage: float = 40.0
    stays_down: bool = False
    # The first `juju status` while the controller is away never answers.
    hang_once: bool = True
    # Names of the hostilities in force, as the world says them (bundle "world" line).
    extra: tuple[str, ...] = field(default_factory=tuple)

    def names(self) -> tuple[str, ...]:
        found = []
        if self.late_pebble_ready:
            found.append(f"pebble-ready {self.late_pebble_ready:g}s late")
        if self.linger_terminating:
            found.append("pods linger Terminating")
        if self.batches:
            found.append("log records in batches")
        if self.hold_record:
            found.append(f"a {self.hold_hook} record {self.hold_record:g}s out of order")
        if self.stays_down:
            found.append("controller stays down")
        elif self.controller_outage:
            found.append(f"controller away {self.controller_outage:g}s after restart")
        if self.hang_once:
            found.append("a juju that hangs once")
        return (*found, *self.extra)


KIND = Hostility(
    late_pebble_ready=0.0,
    linger_terminating=False,
    batches=False,
    kube_starting=0.0,
    controller_outage=0.0,
    hang_once=False,
)
HOSTILE = Hostility()


def hostility(names: str) -> Hostility:
    """``kind``, ``hostile`` (the default), or ``hostile`` with changes:
    ``hostile,hold=start:30,stays-down,no-late`` (the rehearsal tests' cases)."""
    chosen = HOSTILE
    for word in (w.strip() for w in names.split(",") if w.strip()):
        if word == "kind":
            chosen = KIND
        elif word == "hostile":
            chosen = HOSTILE
        elif word == "stays-down":
            chosen = replace(chosen, stays_down=True)
        elif word == "no-late":
            chosen = replace(chosen, late_pebble_ready=0.0)
        elif word == "no-batches":
            chosen = replace(chosen, batches=False)
        elif word == "no-hang":
            chosen = replace(chosen, hang_once=False)
        elif word.startswith("late="):
            chosen = replace(chosen, late_pebble_ready=float(word[5:]))
        elif word.startswith("hold="):
            hook, _, seconds = word[5:].partition(":")
            chosen = replace(chosen, hold_hook=hook, hold_record=float(seconds or 30))
        else:
            raise SystemExit(f"unknown hostility {word!r}")
    return chosen
