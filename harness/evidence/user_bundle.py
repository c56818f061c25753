"""The user's Juju bundle a run deployed, as the evidence records it (``bundle`` in bundle.json).

The file text and its sha256 are kept, so the report can say what was deployed and a reader
can deploy the same thing, but for the value of each secret option: replaced in the text by
its redacted digest and listed in ``hidden`` (the sha256 is the original file's); each
application says what ran it (on the twin: the real
charm code or a generic SIMULATED stand-in; live: the charm itself), and whether the probe
observer was there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.common.redact import HiddenOption
from harness.evidence.document import (
    Block,
    Bullets,
    Code,
    CodeBlock,
    Heading,
    Strong,
    para,
    table,
)

# What ran an application's hooks.
REAL = "real charm code"
STAND_IN = "generic stand-in (SIMULATED: records hooks, keeps databags, writes nothing)"
DEPLOYED = "the charm, deployed"


@dataclass(frozen=True)
class UserBundle:
    name: str
    file: str  # the file's name (not this machine's path)
    digest: str  # sha256 of the file
    text: str
    app: str  # the application disrupted
    probe: bool  # whether the probe observer was deployed alongside
    runs: tuple[tuple[str, str], ...]  # (app, what ran it)
    deploy: str  # the `juju deploy` of the file
    # (app, container, path, layer or "unknown", how it is judged: "marker, judged",
    # "judged on content and metadata" (--watch), "judged" or "recorded")
    watched: tuple[tuple[str, str, str, str, str], ...] = ()
    # What Juju ignores in the file, or does with it and the harness did not.
    notes: tuple[str, ...] = ()
    # Options whose values the text shows redacted (harness.common.redact).
    hidden: tuple[HiddenOption, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "file": self.file,
            "digest": self.digest,
            "yaml": self.text,
            "app": self.app,
            "probe": self.probe,
            "runs": [{"app": a, "ran_by": r} for a, r in self.runs],
            "deploy": self.deploy,
            "watched": [
                {"app": a, "container": c, "path": p, "layer": la, "judged": j}
                for a, c, p, la, j in self.watched
            ],
            "notes": list(self.notes),
            **(
                {
                    "redacted": [
                        {"app": h.app, "key": h.key, "why": h.why, "digest": h.digest}
                        for h in self.hidden
                    ]
                }
                if self.hidden
                else {}
            ),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> UserBundle:
        return cls(
            name=str(raw["name"]),
            file=str(raw["file"]),
            digest=str(raw["digest"]),
            text=str(raw["yaml"]),
            app=str(raw["app"]),
            probe=bool(raw["probe"]),
            runs=tuple((str(r["app"]), str(r["ran_by"])) for r in raw.get("runs", ())),
            deploy=str(raw["deploy"]),
            watched=tuple(
                (
                    str(w["app"]),
                    str(w["container"]),
                    str(w["path"]),
                    str(w["layer"]),
                    str(w["judged"]),
                )
                for w in raw.get("watched", ())
            ),
            notes=tuple(str(n) for n in raw.get("notes", ())),
            hidden=tuple(
                HiddenOption(str(h["app"]), str(h["key"]), str(h["why"]), str(h["digest"]))
                for h in raw.get("redacted", ())
            ),
        )


def bundle_blocks(bundle: UserBundle) -> list[Block]:
    """The report's "Bundle" section: the file, the observer, what ran each app, secrets."""
    b = bundle
    blocks: list[Block] = [
        Heading("Bundle"),
        para(
            Code(b.file),
            f" ({b.name}), sha256 ",
            Code(b.digest),
            "; disrupted: ",
            Strong(b.app),
            ".",
        ),
    ]
    if b.probe:
        blocks.append(
            para(
                "The probe observer (",
                Code("probe"),
                ", ",
                Code("probe-peer"),
                ": its own apps, related only to each other) was deployed and disrupted "
                "alongside; its journal cross-checks the hooks.",
            )
        )
    else:
        blocks.append(
            para(
                Strong("The probe observer was not deployed"),
                " (",
                Code("--no-probe"),
                "): hooks come from ",
                Code("juju debug-log"),
                " only, with no journal to cross-check them.",
            )
        )
    if b.notes:
        blocks += [
            para("Not as ", Code("juju deploy"), " of the file would be:"),
            Bullets(tuple((note,) for note in b.notes)),
        ]
    if b.hidden:
        blocks += [
            para(
                "Secret options, shown redacted everywhere in this evidence as ",
                Code("<redacted sha256:…>"),
                " (the first digits of the value's sha256: the same value gives the same "
                "digits in every run). Put your own values back in the file below before you "
                "deploy it:",
            ),
            table(
                ("application", "option", "why", "sha256"),
                (
                    (h.app, Code(h.key), h.why, Code(h.digest.removeprefix("sha256:")[:8]))
                    for h in b.hidden
                ),
            ),
        ]
    blocks.append(table(("application", "ran by"), b.runs))
    if b.watched:
        blocks += [
            para(
                "Watched paths, each judged against the survival its layer is catalogued with (",
                Code("--mark"),
                ": written by the harness, judged on its content; ",
                Code("--watch"),
                ": written by the charm, judged on its content and metadata, "
                "and undetermined when the charm wrote it again after the disruption):",
            ),
            table(
                ("application", "container", "path", "layer", ""),
                ((a, c, Code(p), la, j) for a, c, p, la, j in b.watched),
            ),
        ]
    return blocks


def bundle_file_blocks(bundle: UserBundle) -> list[Block]:
    """The bundle file itself (secret values redacted), for the report's "Reproduce" section."""
    return [
        para(Code(bundle.file), " (sha256 ", Code(bundle.digest), "):"),
        CodeBlock(tuple(bundle.text.rstrip("\n").split("\n")), "yaml"),
    ]
