"""How a report says what produced it: the twin (SIMULATED), a rehearsal world (REHEARSAL:
the live code against stand-in servers), or a real Juju. Neither of the first two is ever
evidence of what Juju does, and a reader must not be able to miss it."""

from __future__ import annotations

from harness.evidence.document import Banner, Block, Strong
from harness.evidence.model import Evidence

SIMULATED_BANNER = Banner(
    (
        Strong("SIMULATED"),
        ": produced by the twin backend (an in-process simulation through ops.testing), not "
        "by a real Juju controller. It shows what the catalogue predicts; it is not "
        "regression evidence.",
    )
)


def title_prefix(evidence: Evidence) -> str:
    if evidence.rehearsal is not None:
        return "REHEARSAL reproduction"
    return "SIMULATED reproduction" if evidence.simulated else "Reproduction"


def banners(evidence: Evidence) -> list[Block]:
    """The notices under the title."""
    found: list[Block] = [SIMULATED_BANNER] if evidence.simulated else []
    if evidence.rehearsal is not None:
        found.append(Banner((Strong("REHEARSAL"), f": {evidence.rehearsal.describe()}.")))
    return found


def backend_text(evidence: Evidence) -> str:
    """The summary's backend: ``live``, ``twin (SIMULATED)`` or what rehearsed it."""
    e = evidence
    if e.rehearsal is None:
        return f"{e.backend} (SIMULATED)" if e.simulated else e.backend
    text = f"{e.backend} code against a REHEARSAL world ({e.rehearsal.world})"
    return text + (f", waits {e.rehearsal.time_scale:g}x faster" if e.rehearsal.scaled else "")
