"""The probe's requirements pack under charmcraft: pinned, closed, and no compiler needed.

``tests/check_sdists.py`` reads PyPI in ``tox -e lint``; here it runs against a stand-in
index serving sdists built in memory, shaped like real ones (pydantic-core's Rust,
msgspec's C extension, a Cython build requirement, a wheel-only release).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
import tarfile
import urllib.error
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from probe_testing import PROBE_DIR

HOST = "https://pypi.example"


def _load() -> ModuleType:
    path = PROBE_DIR / "tests" / "check_sdists.py"
    spec = importlib.util.spec_from_file_location("check_sdists", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_sdists"] = module  # dataclasses resolve annotations through it
    spec.loader.exec_module(module)
    return module


check_sdists = _load()


def sdist(name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ()) -> bytes:
    root = f"{name}-{version}"
    pkg_info = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n{}".format(
        name, version, "".join(f"Requires-Dist: {r}\n" for r in requires)
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for rel, text in {"PKG-INFO": pkg_info, **files}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{root}/{rel}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


HATCH = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
PURE = {"pyproject.toml": HATCH, "src/pkg/__init__.py": ""}
RUST = {
    "pyproject.toml": '[build-system]\nrequires = ["maturin>=1,<2"]\nbuild-backend = "maturin"\n',
    "Cargo.toml": "[package]\n",
    "src/lib.rs": "",
}
C_EXT = {
    "setup.py": "from setuptools import Extension, setup\n"
    "setup(ext_modules=[Extension('m._core', ['src/m/_core.c'])])\n",
    "src/m/_core.c": "",
}
CYTHON = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools", "Cython>=3"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "m/__init__.py": "",
}


def _reasons(files: dict[str, str]) -> list[str]:
    data = sdist("m", "1.0", files)
    reasons: list[str] = check_sdists.native_build_reasons(
        check_sdists.open_sdist("m-1.0.tar.gz", data)
    )
    return reasons


def test_a_pure_python_sdist_needs_nothing_to_build() -> None:
    assert _reasons(PURE) == []
    # Sources a build never compiles: tests and fixtures (tomlkit's .go, pdm-backend's .c),
    # and a backend that builds itself (setuptools' Windows launcher.c).
    assert _reasons({**PURE, "tests/toml-test/main.go": "", "tests/fixtures/m/a.c": ""}) == []
    self_built = {
        "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "setuptools.build_meta"'
        '\nbackend-path = ["."]\n',
        "launcher.c": "",
    }
    assert _reasons(self_built) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (RUST, ["ships native sources (Cargo.toml, src/lib.rs)", "build requires maturin"]),
        (C_EXT, ["ships native sources (src/m/_core.c)", "setup.py declares extension"]),
        (CYTHON, ["build requires cython"]),
    ],
    ids=["rust", "c-extension", "cython"],
)
def test_an_sdist_that_compiles_is_named_with_why(
    files: dict[str, str], expected: list[str]
) -> None:
    reasons = _reasons(files)
    for part in expected:
        assert any(part in reason for reason in reasons), (part, reasons)


class Index:
    """A stand-in PyPI JSON API and file host; counts what was fetched."""

    def __init__(self) -> None:
        self.releases: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self.blobs: dict[str, bytes] = {}
        self.fetched: list[str] = []

    def add_sdist(self, name: str, version: str, data: bytes) -> None:
        self._add(name, version, f"{name}-{version}.tar.gz", "sdist", data)

    def add_wheel(self, name: str, version: str, tag: str) -> None:
        filename = f"{name.replace('-', '_')}-{version}-{tag}.whl"
        self._add(name, version, filename, "bdist_wheel", b"wheel")

    def _add(self, name: str, version: str, filename: str, kind: str, data: bytes) -> None:
        # Relative, as some mirrors answer; the checker resolves it against the JSON's URL.
        url = f"../../packages/{filename}"
        self.blobs[f"{HOST}/packages/{filename}"] = data
        entry = {
            "filename": filename,
            "packagetype": kind,
            "url": url,
            "digests": {"sha256": hashlib.sha256(data).hexdigest()},
            "yanked": False,
        }
        self.releases.setdefault(name, {}).setdefault(version, []).append(entry)

    def fetch(self, url: str) -> bytes:
        self.fetched.append(url)
        if url.startswith(f"{HOST}/pypi/"):
            name = url.split("/")[-2]
            if name not in self.releases:
                raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)  # type: ignore[arg-type]
            return json.dumps({"releases": self.releases[name]}).encode()
        return self.blobs[url]


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Index:
    monkeypatch.setattr(check_sdists, "PYPI", HOST + "/pypi/{name}/json")
    fake = Index()
    fake.add_sdist("ops", "3.9.0", sdist("ops", "3.9.0", PURE, ("pyyaml==6.*",)))
    fake.add_sdist("pyyaml", "6.0.4", sdist("pyyaml", "6.0.4", C_EXT))
    fake.add_wheel("pyyaml", "6.0.4", "cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64")
    fake.add_sdist(
        "exceptiongroup",
        "1.3.2",
        sdist(
            "exceptiongroup", "1.3.2", PURE, ("typing-extensions>=4.6.0; python_version<'3.13'",)
        ),
    )
    fake.add_sdist("typing-extensions", "4.16.0", sdist("typing_extensions", "4.16.0", PURE))
    return fake


GOOD = """\
ops==3.9.0
pyyaml==6.0.4
exceptiongroup==1.3.2; python_version < "3.11"
typing_extensions==4.16.0
"""


def _charm(tmp_path: Path, requirements: str = GOOD, **part: Any) -> Path:
    meta = yaml.safe_load((PROBE_DIR / "charmcraft.yaml").read_text())
    meta["parts"]["charm"].update(part)
    (tmp_path / "charmcraft.yaml").write_text(yaml.safe_dump(meta))
    (tmp_path / "requirements.txt").write_text(requirements)
    return tmp_path


def _check(charm: Path, index: Index) -> list[str]:
    problems: list[str] = check_sdists.check(charm, index.fetch, charm / "cache")
    return problems


def test_pinned_pure_and_closed_requirements_pass(tmp_path: Path, index: Index) -> None:
    assert _check(_charm(tmp_path), index) == []


def test_each_sdist_is_downloaded_once_and_checked_against_its_digest(
    tmp_path: Path, index: Index
) -> None:
    charm = _charm(tmp_path)
    _check(charm, index)
    downloads = [u for u in index.fetched if "/packages/" in u]
    _check(charm, index)
    assert [u for u in index.fetched if "/packages/" in u] == downloads  # from the cache

    url = f"{HOST}/packages/ops-3.9.0.tar.gz"
    index.blobs[url] = sdist("ops", "3.9.0", RUST)  # not the file PyPI's digest names
    for cached in (charm / "cache").iterdir():
        cached.unlink()
    with pytest.raises(LookupError, match="sha256 does not match"):
        _check(charm, index)


def test_a_requirement_that_needs_rust_fails_with_the_fix(tmp_path: Path, index: Index) -> None:
    index.add_sdist("pydantic-core", "2.33.2", sdist("pydantic_core", "2.33.2", RUST))

    problems = _check(_charm(tmp_path, GOOD + "pydantic-core==2.33.2\n"), index)

    (problem,) = problems
    assert problem.startswith("pydantic-core==2.33.2 needs a compiler or Rust")
    assert "charm-binary-python-packages" in problem


@pytest.mark.parametrize("line", ["lightkube>=0.15", "lightkube", "lightkube==0.*"])
def test_an_unpinned_requirement_fails(tmp_path: Path, index: Index, line: str) -> None:
    problems = _check(_charm(tmp_path, GOOD + line + "\n"), index)
    assert problems == ["requirements.txt:5: lightkube is not pinned; write lightkube==<version>"]


def test_a_dependency_that_is_not_pinned_fails(tmp_path: Path, index: Index) -> None:
    requirements = GOOD.replace("typing_extensions==4.16.0\n", "")
    problems = _check(_charm(tmp_path, requirements), index)
    assert problems == [
        'exceptiongroup==1.3.2 needs typing-extensions>=4.6.0; python_version < "3.13", '
        "which requirements.txt does not pin"
    ]


def test_a_dependency_pinned_outside_the_range_asked_for_fails(
    tmp_path: Path, index: Index
) -> None:
    index.add_sdist("typing-extensions", "4.5.0", sdist("typing_extensions", "4.5.0", PURE))
    requirements = GOOD.replace("typing_extensions==4.16.0", "typing_extensions==4.5.0")
    problems = _check(_charm(tmp_path, requirements), index)
    assert len(problems) == 1
    assert "but requirements.txt pins typing_extensions==4.5.0" in problems[0]


def test_a_release_without_an_sdist_fails(tmp_path: Path, index: Index) -> None:
    index.add_wheel("certifi", "2026.10.19.post1", "py3-none-any")
    problems = _check(_charm(tmp_path, GOOD + "certifi==2026.10.19.post1\n"), index)
    assert problems == [
        "certifi==2026.10.19.post1: no sdist on PyPI, and charmcraft builds it from source; "
        "pick a version with one or add it to charm-binary-python-packages"
    ]


def test_a_binary_package_needs_a_wheel_for_the_charms_python(
    tmp_path: Path, index: Index
) -> None:
    index.releases["pyyaml"]["6.0.4"] = [
        f for f in index.releases["pyyaml"]["6.0.4"] if f["packagetype"] == "sdist"
    ]
    index.add_wheel("pyyaml", "6.0.4", "cp311-cp311-manylinux_2_17_x86_64")
    index.add_wheel("pyyaml", "6.0.4", "cp310-cp310-win_amd64")
    problems = _check(_charm(tmp_path), index)
    assert problems == [
        "pyyaml==6.0.4: no wheel for Python 3.10.12 on amd64 (ubuntu@22.04); "
        "pick a version that has one"
    ]


def test_a_binary_package_spelt_differently_is_named(tmp_path: Path, index: Index) -> None:
    problems = _check(_charm(tmp_path, GOOD.replace("pyyaml==", "PyYAML==")), index)
    assert problems == [
        "charm-binary-python-packages: 'pyyaml' is spelt 'PyYAML' in requirements.txt; "
        "charmcraft compares them as written, so it would build PyYAML from source: "
        "spell both 'pyyaml'"
    ]


def test_strict_dependencies_must_be_on(tmp_path: Path, index: Index) -> None:
    problems = _check(_charm(tmp_path, **{"charm-strict-dependencies": False}), index)
    assert len(problems) == 1
    assert "charm-strict-dependencies is not true" in problems[0]


def test_markers_are_read_for_the_charms_python(tmp_path: Path, index: Index) -> None:
    # exceptiongroup is only for Python < 3.11: a 24.04 charm (3.12) neither needs nor fetches it.
    _check(_charm(tmp_path), index)
    assert any("exceptiongroup" in url for url in index.fetched)
    meta = yaml.safe_load((tmp_path / "charmcraft.yaml").read_text())
    meta["base"] = "ubuntu@24.04"
    (tmp_path / "charmcraft.yaml").write_text(yaml.safe_dump(meta))
    index.fetched.clear()
    index.add_wheel("pyyaml", "6.0.4", "cp312-cp312-manylinux_2_17_x86_64")
    assert _check(tmp_path, index) == []
    assert not any("exceptiongroup" in url for url in index.fetched)


def test_unreachable_pypi_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def refuse(url: str) -> bytes:
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(check_sdists, "fetch_url", refuse)
    code = check_sdists.main([str(PROBE_DIR), "--cache", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("cannot read PyPI (")


def test_the_probes_own_requirements_are_pinned_and_strict() -> None:
    pins, problems = check_sdists.read_pins(PROBE_DIR / "requirements.txt")
    target, binary, part_problems = check_sdists.read_charm_part(PROBE_DIR / "charmcraft.yaml")
    assert problems == []
    assert part_problems == []
    assert target.python.startswith("3.10.")
    names = {pin.name for pin in pins}
    assert set(binary) <= names, "binary packages must be spelt as in requirements.txt"
    assert {"ops", "lightkube"} <= names
    assert "kubernetes" not in names, "kubernetes pulls pydantic-core (Rust) and aiohttp (C)"


# --- build requirements: charmcraft's --no-binary reaches pip's build environments ---------

UV_BUILD = '[build-system]\nrequires = ["uv_build>=0.8.0,<0.9"]\nbuild-backend = "uv_build"\n'


def _uv_build_backend(index: Index) -> None:
    """lightkube 0.22.0 as PyPI has it: built by uv_build, whose sdist is Rust (maturin)."""
    index.add_sdist(
        "lightkube", "0.22.0", sdist("lightkube", "0.22.0", {"pyproject.toml": UV_BUILD})
    )
    for version in ("0.8.3", "0.8.24", "0.9.1"):  # pip takes the newest the range admits
        index.add_sdist("uv-build", version, sdist("uv_build", version, RUST))
        index.add_wheel("uv-build", version, "py3-none-manylinux_2_17_x86_64")
    for name, version in (("hatchling", "1.27.0"), ("setuptools", "80.9.0")):
        index.add_sdist(name, version, sdist(name, version, SELF_BUILT))


# hatchling, setuptools and flit-core build themselves: no build requirement of their own.
SELF_BUILT = {
    "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "hatchling.ouroboros"\n'
    'backend-path = ["src"]\n'
}


def test_with_binary_packages_named_build_backends_come_as_wheels(
    tmp_path: Path, index: Index
) -> None:
    # charmcraft passes --no-binary=<every other requirement>: pip builds those from their
    # sdists but takes build backends (uv_build, hatchling) as wheels.
    _uv_build_backend(index)
    assert _check(_charm(tmp_path, GOOD + "lightkube==0.22.0\n"), index) == []
    assert not any("uv-build" in url or "uv_build" in url for url in index.fetched)


def test_with_no_binary_packages_build_backends_are_built_from_source_too(
    tmp_path: Path, index: Index
) -> None:
    # An empty charm-binary-python-packages makes charmcraft pass --no-binary=:all:, which
    # pip applies to build requirements too: lightkube's uv_build then needs Rust.
    _uv_build_backend(index)
    charm = _charm(
        tmp_path,
        GOOD + "lightkube==0.22.0\n",
        **{"charm-binary-python-packages": []},
    )
    problems = _check(charm, index)
    assert any(p.startswith("pyyaml==6.0.4 needs a compiler") for p in problems), problems
    (uv,) = [p for p in problems if "uv_build" in p or "uv-build" in p]
    assert uv.startswith("lightkube==0.22.0 needs uv_build"), uv
    assert "uv-build==0.8.24" in uv, "pip builds the newest release the range admits"
    assert "build requires maturin" in uv
    assert "--no-binary=:all:" in uv
    assert "charm-binary-python-packages" in uv
    # Pure sdists built by a backend that builds itself pass: hatchling is checked, once.
    assert not any(p.startswith(("ops==", "hatchling")) for p in problems), problems
    assert sum("/packages/hatchling-" in url for url in index.fetched) == 1
