"""Which probe charm ``repro run`` deploys, and a one-line refusal when it cannot be used."""

from __future__ import annotations

from pathlib import Path

from harness.common.errors import HarnessError
from harness.run.options import RunOptions


def probe_charm_for(options: RunOptions, backend: str) -> str:
    """The probe charm a run deploys: a packed .charm live, a folder (or the bundled probe)
    on the twin; checked before an evidence folder is claimed, so bad input leaves nothing."""
    given = Path(options.probe_charm) if options.probe_charm else None
    # The twin runs a probe folder's code; checked before an evidence folder is claimed.
    if (
        backend == "twin"
        and given is not None
        and given.is_dir()
        and not ((given / "src" / "charm.py").is_file() and (given / "charmcraft.yaml").is_file())
    ):
        raise HarnessError(
            f"--probe-charm {given} is a folder without the probe charm "
            "(src/charm.py and charmcraft.yaml)",
            "pass charms/probe of a checkout, or leave --probe-charm out on the twin",
        )
    if options.probe_charm:
        if not options.dry_run and not Path(options.probe_charm).exists():
            raise HarnessError(
                f"no such probe charm: {options.probe_charm}",
                "pack it with charmcraft pack in charms/probe and pass the .charm file",
            )
        return str(options.probe_charm)
    if backend == "twin":
        from harness.twin.charms import default_probe_dir

        return str(default_probe_dir())
    if options.dry_run:
        return "./charms/probe/probe_amd64.charm"
    raise HarnessError(
        "the live backend needs the packed probe charm",
        "run charmcraft pack in charms/probe, then pass --probe-charm ./probe_*.charm",
    )
