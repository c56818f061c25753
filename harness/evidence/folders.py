"""Where a run's evidence goes: a folder of its own, checked before the run, never shared.

Two runs started in the same second into the same ``--evidence-dir`` must not write into one
folder: the folder is claimed with ``mkdir`` (atomic: exactly one caller creates a given
name), and a name that is taken makes the next caller try the next suffix. When the chosen
place cannot be written at the end of a run, the bundle goes to a fallback folder under the
system's temporary directory, and the caller says where.
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from harness.common.errors import HarnessError

FALLBACK_ROOT = "repro-evidence"
"""The folder under the temporary directory that takes bundles nothing else could hold."""

_MAX_SUFFIX = 10_000


def check_evidence_root(root: Path | str) -> Path:
    """``root`` as a folder this process can create folders in; HarnessError otherwise.

    Called before anything else happens, so that a bad ``--evidence-dir`` costs nothing.
    It creates nothing: a run refused after the check (no controller answers) leaves no
    folder behind. Where ``root`` does not exist yet, the check is made in the nearest
    folder above it that does, which is where ``claim_folder`` will create it.
    """
    fix = "pass --evidence-dir a folder you can write to"
    if not str(root).strip():  # `--evidence-dir "$UNSET"`: not the current folder
        raise HarnessError("--evidence-dir is empty", fix)
    path = Path(root)
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        what = "is a file" if existing == path else f"is under {existing}, a file"
        raise HarnessError(f"--evidence-dir {root} {what}", fix)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise HarnessError(f"--evidence-dir {root}: {existing} is not writable", fix)
    try:
        # os.access says yes to root on read-only mounts; a real folder says the truth.
        Path(tempfile.mkdtemp(prefix=".repro-check-", dir=existing)).rmdir()
    except OSError as exc:
        problem = f"--evidence-dir {root} cannot be written: {exc.strerror}"
        raise HarnessError(problem, fix) from None
    return path


def claim_folder(root: Path | str, name: str, *, now: datetime | None = None) -> Path:
    """Create and return a new folder ``<root>/<name>-<UTC time>[-N]`` that no one else has."""
    base = Path(root)
    base.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, _MAX_SUFFIX):
        folder = base / (f"{name}-{stamp}" if n == 1 else f"{name}-{stamp}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise HarnessError(f"{_MAX_SUFFIX} runs named {name} in one second", "use another folder")


_USED_THIS_PROCESS: set[Path] = set()


def session_folder(root: Path | str, name: str) -> Path:
    """``root/name`` for this process's first run of ``name``, then ``root/name-2``...

    A pytest session is one process: a second module running the same scenario gets its own
    folder, so the first module's report keeps pointing at its own bundle. An earlier
    session's bundle at that place is moved aside when the run writes (``keep_earlier``).
    """
    base = Path(root) / name
    folder, n = base, 1
    while folder.resolve() in _USED_THIS_PROCESS:
        n += 1
        folder = base.with_name(f"{name}-{n}")
    _USED_THIS_PROCESS.add(folder.resolve())
    return folder


def keep_earlier(folder: Path | str) -> Path | None:
    """Move an earlier run's bundle out of ``folder``, to a sibling no one else has.

    pytest writes each scenario's bundle to a fixed folder; a second session (or a second
    module running the same scenario) would otherwise replace evidence a report points at.
    Returns where the earlier bundle went, or None when there was none.
    """
    path = Path(folder)
    bundle = path / "bundle.json"
    if not path.is_dir() or not bundle.exists():
        return None
    written = datetime.fromtimestamp(bundle.stat().st_mtime, timezone.utc)
    stamp = written.strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, _MAX_SUFFIX):
        kept = path.with_name(f"{path.name}.earlier-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            kept.mkdir()  # claimed atomically; the rename below replaces this empty folder
        except FileExistsError:
            continue
        try:
            os.replace(path, kept)
        except OSError:
            kept.rmdir()  # not an empty name claimed for nothing
            raise
        return kept
    raise HarnessError(f"{_MAX_SUFFIX} earlier runs of {path.name} in one second", "tidy it")


def folder_for_new_bundle(folder: Path | str) -> tuple[Path, str | None]:
    """Where a run writes its bundle, and what to say about it (None: nothing to say).

    An earlier bundle in ``folder`` is moved aside (``keep_earlier``). One that cannot be
    moved (the parent refuses the rename; another session moved it first) is left alone and
    the new bundle goes to a fallback folder: never over it, and never a traceback.
    """
    try:
        kept = keep_earlier(folder)
    except OSError as exc:
        fallback = fallback_folder(folder)
        why = exc.strerror or type(exc).__name__
        note = f"could not move the earlier bundle out of {folder} ({why}); writing to {fallback}"
        return fallback, note
    if kept is None:
        return Path(folder), None
    return Path(folder), f"an earlier run's bundle in {folder} was kept as {kept}"


def fallback_folder(intended: Path | str) -> Path:
    """A new folder for a bundle that could not be written to ``intended``."""
    root = Path(tempfile.gettempdir()) / FALLBACK_ROOT
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{Path(intended).name or 'run'}-", dir=root))
