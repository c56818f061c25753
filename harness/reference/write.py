"""Writing the site: checked first, built beside the target, then moved into place.

The whole site is written into a new folder next to ``--out`` and renamed onto it, so a
reader (a web server, a browser) sees the old site or the new one, never half of each. A
folder is only replaced when it is empty or is a site this command wrote before (its
index.html says so); anything else is refused, so a mistyped ``--out`` never deletes a
folder of someone's files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from harness.common.errors import HarnessError
from harness.reference.html import GENERATOR

FIX_FOLDER = "pass a new or empty folder, or one `repro reference` wrote before"
_MARK = f'<meta name="generator" content="{GENERATOR}">'.encode()


def _ours(folder: Path) -> bool:
    index = folder / "index.html"
    try:
        with index.open("rb") as handle:
            return _MARK in handle.read(4096)
    except OSError:
        return False


def check_out(out: Path) -> None:
    """HarnessError, in one line with the fix, unless the site can be written to ``out``."""
    if out.is_symlink():
        raise HarnessError(f"--out {out} is a symbolic link", "pass the folder it points to")
    if out.exists() and not out.is_dir():
        raise HarnessError(
            f"--out {out} is a file, not a folder", "pass a folder path; it is made if missing"
        )
    if out.is_dir():
        try:
            crowded = any(out.iterdir()) and not _ours(out)
        except OSError as err:
            raise HarnessError(f"cannot read --out {out}: {err.strerror}", FIX_FOLDER) from None
        if crowded:
            raise HarnessError(
                f"--out {out} holds files that are not a reference site", FIX_FOLDER
            )
    parent = out.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = tempfile.mkdtemp(prefix=f".{out.name}.check-", dir=parent)
        os.rmdir(probe)
    except OSError as err:
        raise HarnessError(
            f"cannot write in {parent}: {err.strerror or err}",
            "choose a folder you can write, e.g. --out ./site",
        ) from None


def write_site(out: Path, files: Mapping[str, bytes]) -> int:
    """Write ``files`` (site path -> bytes) as the folder ``out``; return the bytes written."""
    check_out(out)
    parent = out.absolute().parent
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=parent))
    try:
        for relative, data in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        for folder in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            folder.chmod(0o755)  # mkdtemp's 0700 would hide the site from a web server
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            os.rename(out, old / "site")
            os.rename(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, out)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise HarnessError(
            f"cannot write the site to {out}: {err.strerror or err}",
            "check the folder's permissions and free space",
        ) from None
    return sum(len(data) for data in files.values())
