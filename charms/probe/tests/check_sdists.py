"""Check that `charmcraft pack` can build every probe requirement (the lint env runs this).

charmcraft's charm plugin installs requirements.txt from sdists (``--no-binary``), in a
build environment with no compiler and no Rust; only the packages named in
``charm-binary-python-packages`` may come as wheels. With ``charm-strict-dependencies`` it
installs exactly requirements.txt (``--no-deps``) and then runs ``pip check``. How far
``--no-binary`` reaches depends on that list (charmcraft 4's utils/package.py
get_pip_command): with packages named there it is ``--no-binary=<every other
requirement>``, and pip takes the build backends (hatchling, uv_build...) as wheels; with the
list empty it is ``--no-binary=:all:``, which pip applies to each sdist's build environment
too, so every build requirement, and what it needs, is built from its own sdist. This script
finds, before CI tries to pack, what would break that:

- a requirement that is not pinned (``name==version``), or strict mode switched off;
- a pinned sdist that builds native code: C/C++/Cython/Rust/Fortran sources, a build
  backend or build requirement that compiles (maturin, setuptools-rust, Cython, cffi,
  pybind11, scikit-build, meson-python), or a setup.py that declares extension modules;
- with ``--no-binary=:all:``, a build requirement (the newest release its range admits, as
  pip picks it) or one of its dependencies whose own sdist builds native code (lightkube
  0.22.0's uv_build is Rust);
- a dependency (from the sdist's own metadata, markers read for the charm's Python) that
  requirements.txt does not pin, or pins outside the range asked for;
- a binary-allowed package with no wheel for the charm's Python and architecture, or spelt
  differently from its requirements.txt line (charmcraft compares the names as written).

It reads PyPI's JSON API and downloads each sdist once into ``--cache`` (checked against
PyPI's sha256). Exits 1 listing every problem, 2 when PyPI cannot be reached.

Usage: python charms/probe/tests/check_sdists.py charms/probe [--cache DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin

import yaml
from packaging import tags
from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

PYPI = "https://pypi.org/pypi/{name}/json"
# The Python each charm base ships: the interpreter charmcraft builds and Juju runs with.
BASE_PYTHON = {"ubuntu@20.04": "3.8.10", "ubuntu@22.04": "3.10.12", "ubuntu@24.04": "3.12.3"}
# The newest glibc on each base bounds the manylinux wheels pip will take there.
BASE_GLIBC = {"ubuntu@20.04": 31, "ubuntu@22.04": 35, "ubuntu@24.04": 39}
ARCH = {"amd64": "x86_64", "arm64": "aarch64"}

NATIVE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".pyx", ".rs", ".f", ".f90", ".go"}
NATIVE_FILES = {"Cargo.toml"}
# Build backends and build requirements that compile (or download a compiler's output).
NATIVE_BUILD = {
    "maturin",
    "setuptools-rust",
    "cython",
    "cffi",
    "pybind11",
    "nanobind",
    "scikit-build",
    "scikit-build-core",
    "meson-python",
    "cmake",
}
# pip's build requirement for an sdist without [build-system] (PEP 518's default).
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0",)
# Sources under these folders are tests, fixtures or documentation: never built.
NOT_BUILT_DIRS = {"tests", "test", "testing", "fixtures", "docs", "doc", "examples"}
SETUP_PY_NATIVE = re.compile(r"\b(ext_modules|Extension\(|cffi_modules|rust_extensions)")

Fetch = Callable[[str], bytes]


@dataclass(frozen=True)
class Pin:
    name: str  # as written in requirements.txt: charmcraft compares names as written
    version: str
    requirement: Requirement

    @property
    def key(self) -> str:
        return canonicalize_name(self.name)


@dataclass(frozen=True)
class Target:
    """The charm's build and run environment."""

    base: str
    arch: str

    @property
    def python(self) -> str:
        return BASE_PYTHON[self.base]

    def marker_env(self) -> dict[str, str]:
        env = {str(k): str(v) for k, v in default_environment().items()}
        major_minor = ".".join(self.python.split(".")[:2])
        env.update(
            python_version=major_minor,
            python_full_version=self.python,
            sys_platform="linux",
            platform_system="Linux",
            os_name="posix",
            platform_machine=ARCH[self.arch],
            implementation_name="cpython",
            platform_python_implementation="CPython",
            extra="",
        )
        return env

    def wheel_tags(self) -> set[tags.Tag]:
        major, minor = (int(part) for part in self.python.split(".")[:2])
        machine = ARCH[self.arch]
        platforms = [f"manylinux_2_{m}_{machine}" for m in range(BASE_GLIBC[self.base], 16, -1)]
        platforms += [f"manylinux2014_{machine}", f"linux_{machine}"]
        if machine == "x86_64":
            platforms += ["manylinux2010_x86_64", "manylinux1_x86_64"]
        return {
            *tags.cpython_tags((major, minor), platforms=platforms),
            *tags.compatible_tags((major, minor), f"cp{major}{minor}", platforms=platforms),
        }


def read_pins(requirements: Path) -> tuple[list[Pin], list[str]]:
    pins: list[Pin] = []
    problems: list[str] = []
    for number, raw in enumerate(requirements.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{requirements.name}:{number}"
        if line.startswith("-"):
            problems.append(f"{where}: {line!r}: options are not allowed; pin packages only")
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement as e:
            problems.append(f"{where}: {line!r} is not a requirement ({e})")
            continue
        specs = list(req.specifier)
        if req.url or len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
            problems.append(f"{where}: {req.name} is not pinned; write {req.name}==<version>")
            continue
        pins.append(Pin(req.name, specs[0].version, req))
    return pins, problems


def read_charm_part(charmcraft_yaml: Path) -> tuple[Target, list[str], list[str]]:
    """The build target, the binary-allowed package names, and problems with the part."""
    data = yaml.safe_load(charmcraft_yaml.read_text(encoding="utf-8"))
    base = str(data.get("base"))
    arches = list(data.get("platforms") or {"amd64": None})
    problems: list[str] = []
    if base not in BASE_PYTHON:
        problems.append(f"charmcraft.yaml: base {base!r} is not one of {sorted(BASE_PYTHON)}")
        base = "ubuntu@22.04"
    part = (data.get("parts") or {}).get("charm") or {}
    if part.get("charm-strict-dependencies") is not True:
        problems.append(
            "charmcraft.yaml: parts.charm.charm-strict-dependencies is not true: pip could "
            "install unpinned dependencies; set it to true"
        )
    binary = [str(name) for name in part.get("charm-binary-python-packages") or []]
    arch = arches[0] if arches[0] in ARCH else "amd64"
    return Target(base, arch), binary, problems


def release_files(fetch: Fetch, pin: Pin) -> list[dict[str, Any]]:
    url = PYPI.format(name=pin.key)
    index = json.loads(fetch(url))
    files = index.get("releases", {}).get(pin.version)
    if files is None:
        raise LookupError(f"{pin.name}=={pin.version} is not on PyPI")
    # A mirror may answer with file URLs relative to the JSON's.
    return [{**f, "url": urljoin(url, f["url"])} for f in files if not f.get("yanked")]


def download(fetch: Fetch, file: dict[str, Any], cache: Path) -> bytes:
    digest = file["digests"]["sha256"]
    cached = cache / f"{digest}-{file['filename']}"
    if cached.is_file():
        return cached.read_bytes()
    data = fetch(file["url"])
    if hashlib.sha256(data).hexdigest() != digest:
        raise LookupError(f"{file['filename']}: sha256 does not match PyPI's")
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


@dataclass(frozen=True)
class Sdist:
    """What an sdist holds that decides how it builds."""

    names: tuple[str, ...]
    pyproject: str | None
    setup_py: str | None
    pkg_info: str | None


def open_sdist(filename: str, data: bytes) -> Sdist:
    members: dict[str, bytes] = {}
    names: list[str] = []
    wanted = re.compile(r"^[^/]+/(pyproject\.toml|setup\.py|PKG-INFO)$")
    if filename.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as zipped:
            names = zipped.namelist()
            for name in names:
                if wanted.match(name):
                    members[name.split("/", 1)[1]] = zipped.read(name)
    else:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tarred:
            for member in tarred.getmembers():
                names.append(member.name)
                if member.isfile() and wanted.match(member.name):
                    handle = tarred.extractfile(member)
                    if handle is not None:
                        members[member.name.split("/", 1)[1]] = handle.read()

    def text(key: str) -> str | None:
        raw = members.get(key)
        return raw.decode("utf-8", "replace") if raw is not None else None

    return Sdist(tuple(names), text("pyproject.toml"), text("setup.py"), text("PKG-INFO"))


def _build_system(sdist: Sdist) -> dict[str, Any]:
    if sdist.pyproject is None:
        return {}
    try:
        build = tomllib.loads(sdist.pyproject).get("build-system", {})
    except tomllib.TOMLDecodeError:
        return {}
    return build if isinstance(build, dict) else {}


def native_build_reasons(sdist: Sdist) -> list[str]:
    """Why building this sdist would need a compiler or Rust (empty: pure Python)."""
    reasons: list[str] = []
    build = _build_system(sdist)
    sources = sorted(
        name
        for name in sdist.names
        if (
            PurePosixPath(name).suffix.lower() in NATIVE_SUFFIXES
            or PurePosixPath(name).name in NATIVE_FILES
        )
        and not NOT_BUILT_DIRS & set(PurePosixPath(name).parts[1:-1])
    )
    # A backend that builds itself from its own tree and needs nothing else (backend-path, no
    # requires: setuptools, hatchling, flit-core, pdm-backend) has nothing to compile with;
    # setuptools' launcher.c is for Windows and never compiled.
    builds_itself = "backend-path" in build and not build.get("requires")
    if sources and not builds_itself:
        shown = ", ".join(s.split("/", 1)[-1] for s in sources[:3])
        more = f" and {len(sources) - 3} more" if len(sources) > 3 else ""
        reasons.append(f"ships native sources ({shown}{more})")
    if sdist.pyproject is not None:
        backend = str(build.get("build-backend", ""))
        needs = []
        for line in build.get("requires", []):
            try:
                needs.append(canonicalize_name(Requirement(line).name))
            except InvalidRequirement:
                continue
        native = sorted({n for n in needs if n in NATIVE_BUILD})
        if native:
            reasons.append(f"build requires {', '.join(native)}")
        if backend.split(".")[0] in {"maturin", "mesonpy", "scikit_build_core", "setuptools_rust"}:
            reasons.append(f"build backend {backend}")
    if sdist.setup_py is not None and SETUP_PY_NATIVE.search(sdist.setup_py):
        reasons.append("setup.py declares extension modules")
    return reasons


def build_requires(sdist: Sdist) -> list[Requirement]:
    """What pip installs into this sdist's build environment (PEP 517/518)."""
    build = _build_system(sdist)
    lines = [str(line) for line in build.get("requires", DEFAULT_BUILD_REQUIRES)]
    out = []
    for line in lines:
        try:
            out.append(Requirement(line))
        except InvalidRequirement:
            continue
    return out


def requires_dist(pkg_info: str | None) -> list[Requirement]:
    if pkg_info is None:
        return []
    headers = HeaderParser().parsestr(pkg_info)
    out = []
    for line in headers.get_all("Requires-Dist") or []:
        try:
            out.append(Requirement(line))
        except InvalidRequirement:
            continue
    return out


def closure_problems(
    pin: Pin, needs: Iterable[Requirement], pins: dict[str, Pin], env: dict[str, str]
) -> list[str]:
    problems = []
    for need in needs:
        if need.marker is not None and not need.marker.evaluate(env):
            continue
        pinned = pins.get(canonicalize_name(need.name))
        if pinned is None:
            problems.append(
                f"{pin.name}=={pin.version} needs {need}, which requirements.txt does not pin"
            )
        elif not need.specifier.contains(pinned.version, prereleases=True):
            problems.append(
                f"{pin.name}=={pin.version} needs {need}, but requirements.txt pins "
                f"{pinned.name}=={pinned.version}"
            )
    return problems


def wheel_fits(filename: str, supported: set[tags.Tag]) -> bool:
    try:
        _, _, _, wheel_tags = parse_wheel_filename(filename)
    except ValueError:
        return False
    return bool(set(wheel_tags) & supported)


def newest_sdist(
    fetch: Fetch, need: Requirement, python: str
) -> tuple[str, dict[str, Any]] | None:
    """The release pip would pick for a build requirement, built from source: the newest
    final release in the range with an sdist for the charm's Python, and that sdist."""
    url = PYPI.format(name=canonicalize_name(need.name))
    releases = json.loads(fetch(url)).get("releases", {})
    candidates = []
    for raw, files in releases.items():
        try:
            version = Version(raw)
        except InvalidVersion:
            continue
        if version.is_prerelease or not need.specifier.contains(version):
            continue
        for file in files:
            needs_python = file.get("requires_python") or ""
            try:
                fits = not needs_python or SpecifierSet(needs_python).contains(python)
            except InvalidSpecifier:
                fits = True
            if file.get("packagetype") == "sdist" and not file.get("yanked") and fits:
                candidates.append((version, {**file, "url": urljoin(url, file["url"])}))
                break
    if not candidates:
        return None
    version, file = max(candidates, key=lambda candidate: candidate[0])
    return str(version), file


class BuildFromSource:
    """``--no-binary=:all:``: each build requirement and its dependencies from their sdists.

    Checks each distinct package once (the first range that reaches it), so a backend that
    builds itself (setuptools, hatchling, flit-core) and shared dependencies end the walk.
    """

    def __init__(self, fetch: Fetch, cache: Path, target: Target) -> None:
        self.fetch = fetch
        self.cache = cache
        self.target = target
        self.env = target.marker_env()
        self.seen: set[str] = set()

    def problems(self, needs: Iterable[Requirement]) -> list[str]:
        """Why building these from source would fail; each reason names its chain."""
        problems: list[str] = []
        for need in needs:
            if need.marker is not None and not need.marker.evaluate(self.env):
                continue
            key = canonicalize_name(need.name)
            if key in self.seen:
                continue
            self.seen.add(key)
            picked = newest_sdist(self.fetch, need, self.target.python)
            if picked is None:
                problems.append(f"{need}: no release in range has an sdist to build from")
                continue
            version, file = picked
            sdist = open_sdist(file["filename"], download(self.fetch, file, self.cache))
            reasons = native_build_reasons(sdist)
            if reasons:  # one reason is enough: what it would build with is moot
                problems.append(
                    f"{canonicalize_name(need.name)}=={version} needs a compiler or Rust "
                    f"({'; '.join(reasons)})"
                )
                continue
            problems += self.problems(build_requires(sdist))
            problems += self.problems(requires_dist(sdist.pkg_info))
        return problems


def check(charm_dir: Path, fetch: Fetch, cache: Path) -> list[str]:
    pins, problems = read_pins(charm_dir / "requirements.txt")
    target, binary, part_problems = read_charm_part(charm_dir / "charmcraft.yaml")
    problems += part_problems
    by_key = {pin.key: pin for pin in pins}
    as_written = {pin.name for pin in pins}
    for name in binary:
        pinned = by_key.get(canonicalize_name(name))
        if pinned is None:
            problems.append(f"charm-binary-python-packages: {name} is not in requirements.txt")
        elif name not in as_written:
            problems.append(
                f"charm-binary-python-packages: {name!r} is spelt {pinned.name!r} in "
                "requirements.txt; charmcraft compares them as written, so it would build "
                f"{pinned.name} from source: spell both {name!r}"
            )
    binary_keys = {canonicalize_name(name) for name in binary}
    # charmcraft's get_pip_command: an empty list is --no-binary=:all:, which reaches the
    # build environments; named packages make it --no-binary=<the others>, which does not.
    from_source = BuildFromSource(fetch, cache, target) if not binary else None
    env = target.marker_env()
    supported = target.wheel_tags()
    for pin in pins:
        if pin.requirement.marker is not None and not pin.requirement.marker.evaluate(env):
            continue  # not installed on the charm's Python
        files = release_files(fetch, pin)
        if pin.key in binary_keys:
            wheels = [f for f in files if f["packagetype"] == "bdist_wheel"]
            if not any(wheel_fits(f["filename"], supported) for f in wheels):
                problems.append(
                    f"{pin.name}=={pin.version}: no wheel for Python {target.python} on "
                    f"{target.arch} ({target.base}); pick a version that has one"
                )
            sdists = [f for f in files if f["packagetype"] == "sdist"]
            if sdists:
                sdist = open_sdist(sdists[0]["filename"], download(fetch, sdists[0], cache))
                problems += closure_problems(pin, requires_dist(sdist.pkg_info), by_key, env)
            continue
        sdists = [f for f in files if f["packagetype"] == "sdist"]
        if not sdists:
            problems.append(
                f"{pin.name}=={pin.version}: no sdist on PyPI, and charmcraft builds it from "
                "source; pick a version with one or add it to charm-binary-python-packages"
            )
            continue
        sdist = open_sdist(sdists[0]["filename"], download(fetch, sdists[0], cache))
        reasons = native_build_reasons(sdist)
        if reasons:
            problems.append(
                f"{pin.name}=={pin.version} needs a compiler or Rust to build from its sdist: "
                f"{'; '.join(reasons)}. Pick a pure-Python version or another package, or "
                "allow its wheel in charm-binary-python-packages"
            )
        problems += closure_problems(pin, requires_dist(sdist.pkg_info), by_key, env)
        if from_source is not None:
            for need in build_requires(sdist):
                for reason in from_source.problems([need]):
                    problems.append(
                        f"{pin.name}=={pin.version} needs {need} to build, and with "
                        "charm-binary-python-packages empty charmcraft passes "
                        f"--no-binary=:all:, so pip builds that from source too: {reason}. "
                        "Name a package in charm-binary-python-packages (pip then takes "
                        "build backends as wheels) or pick a version built by a pure backend"
                    )
    return problems


def fetch_url(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "probe-check-sdists"})
    with urllib.request.urlopen(request, timeout=60) as response:
        data: bytes = response.read()
        return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("charm_dir", type=Path)
    parser.add_argument("--cache", type=Path, default=Path(".cache/probe-sdists"))
    args = parser.parse_args(argv)
    if not (args.charm_dir / "requirements.txt").is_file():
        print(
            f"{args.charm_dir} has no requirements.txt; pass the probe charm's directory",
            file=sys.stderr,
        )
        return 2
    try:
        problems = check(args.charm_dir, fetch_url, args.cache)
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        print(f"cannot read PyPI ({e}); check the network and run again", file=sys.stderr)
        return 2
    except LookupError as e:
        problems = [str(e)]
    if problems:
        print("the probe charm's requirements would not pack:", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        return 1
    count = sum(1 for _ in read_pins(args.charm_dir / "requirements.txt")[0])
    print(f"{count} probe requirements: pinned, closed, and buildable without a compiler")
    return 0


if __name__ == "__main__":
    sys.exit(main())
