"""Secrets in a user's bundle are never published: not in any evidence file, nor on a terminal.

A config option is secret when its charm declares it ``type: secret`` (Juju 3.1+; charmcraft
``config.options``), when its key looks secret (``admin_password``), or when the user names
it (``--redact KEY``). Its value is shown as ``<redacted sha256:...>``, the first digits of
its digest, so two runs can still be compared. The charm below leaks every value it is
given into relation data, its status and a file, as a careless charm would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common.redact import digest, redacted
from harness.evidence.bundle import read_bundle, schema_errors

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "charm-repo"

SECRET_URI = "secret:d0h1s2e3c4r5e6t7u8v9"  # a user secret's URI (secret:<20 of [0-9a-z]>)
PASSWORD = "Hunter2-SuperSecret-Value-0042"  # its key looks secret
GREETING = "Bonjour-Named-By-User-7731"  # --redact greeting
SECRETS = {"api-credentials": SECRET_URI, "admin_password": PASSWORD, "greeting": GREETING}

LEAKY_CHARM = """
import ops

class Leaky(ops.CharmBase):
    def __init__(self, framework):
        super().__init__(framework)
        framework.observe(self.on.app_pebble_ready, self._write)
        framework.observe(self.on.config_changed, self._write)
        framework.observe(self.on.info_relation_joined, self._publish)
        framework.observe(self.on.collect_unit_status, self._status)

    def _all(self):
        keys = ("greeting", "admin_password", "api-credentials")
        return " ".join(str(self.config.get(k, "")) for k in keys)

    def _write(self, event):
        container = self.unit.get_container("app")
        if container.can_connect():
            container.push("/etc/demo/demo.conf", self._all(), make_dirs=True)

    def _publish(self, event):
        if self.unit.is_leader():
            data = event.relation.data[self.app]
            data["greeting"] = str(self.config.get("greeting", ""))
            data["copy"] = self._all()  # a key that does not look secret

    def _status(self, event):
        event.add_status(ops.ActiveStatus("serving " + self._all()))

if __name__ == "__main__":
    ops.main(Leaky)
"""

CONFIG = """
config:
  options:
    greeting:
      type: string
      default: hello
      description: What demo.conf says.
    admin_password:
      type: string
      default: ""
      description: The admin's password.
    api-credentials:
      type: secret
      description: A user secret holding the API credentials (Juju 3.1+).
"""


def leaky_project(tmp_path: Path, charm: str = "./demo-config_ubuntu-22.04-amd64.charm") -> Path:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project / "charm", ignore=shutil.ignore_patterns("tests"))
    meta = (project / "charm" / "charmcraft.yaml").read_text()
    meta = meta[: meta.index("config:")] + CONFIG.lstrip("\n")
    (project / "charm" / "charmcraft.yaml").write_text(meta)
    (project / "charm" / "src" / "charm.py").write_text(LEAKY_CHARM)
    (project / "bundle.yaml").write_text(
        f"""bundle: kubernetes
applications:
  demo:
    charm: {charm}
    scale: 1
    resources:
      app-image: ubuntu/nginx:1.24-24.04_beta
    options:
      greeting: {GREETING}
      admin_password: "{PASSWORD}"   # quoted, with a comment
      api-credentials: {SECRET_URI}
  demo-client:
    charm: {charm}
    scale: 1
    resources:
      app-image: ubuntu/nginx:1.24-24.04_beta
relations:
- - demo:info
  - demo-client:upstream
"""
    )
    return project


def repro(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT), str(ROOT / "charms/probe/src"))))
    return subprocess.run(
        [sys.executable, "-m", "harness.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=cwd,
        env=env,
    )


def leaks(texts: dict[str, bytes]) -> list[str]:
    return [
        f"{key}'s value in {where}"
        for where, text in texts.items()
        for key, value in SECRETS.items()
        if value.encode() in text
    ]


def test_a_bundles_secrets_are_in_no_evidence_file_and_on_no_terminal(tmp_path: Path) -> None:
    project = leaky_project(tmp_path)
    charm = f"demo={project / 'charm'}"

    done = repro(
        "run", "pod-delete", "--bundle", str(project / "bundle.yaml"), "--app", "demo",
        "--charm-source", charm, "--no-probe", "--redact", "greeting",
        "--watch", "demo:app:/etc/demo/demo.conf", "--backend", "twin",
        "--evidence-dir", str(tmp_path / "evidence"), cwd=project,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.splitlines()[-1])
    files = {str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert {Path(p).name for p in files} >= {
        "bundle.json",
        "report.md",
        "report.txt",
        "timeline.svg",
    }
    assert leaks({**files, "stdout": done.stdout.encode(), "stderr": done.stderr.encode()}) == []

    # What is kept: which option was hidden, why, and a digest to compare runs by.
    raw = json.loads(files[str(folder / "bundle.json")])
    assert schema_errors(raw) == []
    hidden = {(r["app"], r["key"]): r for r in raw["bundle"]["redacted"]}
    assert set(hidden) == {("demo", key) for key in SECRETS}
    assert hidden[("demo", "api-credentials")]["why"].startswith("the charm declares it")
    assert hidden[("demo", "admin_password")]["why"] == "its key looks secret"
    assert hidden[("demo", "greeting")]["why"] == "named with --redact"
    for key, value in SECRETS.items():
        assert hidden[("demo", key)]["digest"] == digest(value)
    # The bundle file in the evidence is the user's, each secret value replaced in place.
    yaml_text = raw["bundle"]["yaml"]
    assert f"admin_password: '{redacted(PASSWORD)}'   # quoted, with a comment" in yaml_text
    assert f"api-credentials: '{redacted(SECRET_URI)}'" in yaml_text
    report = files[str(folder / "report.md")].decode()
    assert redacted(PASSWORD) in report  # the same value gives the same digest in every run
    evidence = read_bundle(folder)
    copies = [b.data.get("copy") for b in evidence.after.relations if b.data.get("copy")]
    assert copies
    assert all(redacted(GREETING) in c for c in copies)
    reproduce = report.split("## Reproduce", 1)[1]
    assert "--redact greeting" in reproduce


def test_the_live_dry_run_shows_no_secret_in_its_config_lines(tmp_path: Path) -> None:
    project = leaky_project(tmp_path, charm="demo-config")
    (project / "bundle.yaml").write_text(
        (project / "bundle.yaml").read_text().replace("scale: 1", "channel: edge\n    scale: 1")
    )
    charm = project / "charm"

    done = repro(
        "run", "pod-delete", "--bundle", str(project / "bundle.yaml"), "--app", "demo",
        "--charm-source", f"demo={charm}", "--charm-source", f"demo-client={charm}",
        "--no-probe", "--redact", "greeting", "--backend", "live", "--dry-run", cwd=project,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert leaks({"stdout": done.stdout.encode(), "stderr": done.stderr.encode()}) == []
    deploy = next(line for line in done.stdout.splitlines() if line.startswith("juju deploy"))
    assert f"--config 'admin_password={redacted(PASSWORD)}'" in deploy
    assert "--config greeting=" not in deploy
    assert "# config shown redacted" in done.stdout


@pytest.mark.parametrize("key", ["admin_password", "db-token", "API_KEY"])
def test_an_earlier_bundle_is_redacted_again_when_rendered(tmp_path: Path, key: str) -> None:
    """A bundle written before redaction still has the value: ``repro report`` hides it."""
    from dataclasses import replace

    from evidence_samples import evidence

    from harness.evidence.bundle import to_json
    from harness.evidence.user_bundle import UserBundle

    text = f"applications:\n  a:\n    charm: x\n    options:\n      {key}: {PASSWORD}\n"
    old = replace(
        evidence(backend="twin"),
        bundle=UserBundle("b", "bundle.yaml", "0" * 64, text, "a", False, (), "juju deploy"),
    )
    (tmp_path / "bundle.json").write_text(to_json(old), "utf-8")  # as an old writer did

    for form in ("md", "text", "json", "svg"):
        done = repro("report", str(tmp_path), "--format", form, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert PASSWORD not in done.stdout


SECRET_CONFIG = "options:\n  creds:\n    type: secret\n  name:\n    type: string\n"


def test_secret_options_are_read_from_charmhub_a_packed_charm_and_a_source_folder(
    tmp_path: Path,
) -> None:
    import zipfile

    from harness.scenario.charm_meta import read_charmhub, read_local

    def fetch(url: str) -> bytes:
        assert "default-release.revision.config-yaml" in url
        revision = {"metadata-yaml": "name: x\n", "config-yaml": SECRET_CONFIG}
        return json.dumps({"default-release": {"revision": revision}}).encode()

    assert read_charmhub("x", "edge", fetch).secret_options == {"creds"}

    packed = tmp_path / "x.charm"
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("metadata.yaml", "name: x\ncontainers: {app: {}}\n")
        archive.writestr("config.yaml", SECRET_CONFIG)
    assert read_local(packed).secret_options == {"creds"}

    source = tmp_path / "src-charm"
    source.mkdir()
    (source / "metadata.yaml").write_text("name: x\ncontainers: {app: {}}\n")
    (source / "config.yaml").write_text(SECRET_CONFIG)
    assert read_local(source).secret_options == {"creds"}
    (source / "config.yaml").unlink()
    (source / "metadata.yaml").unlink()
    (source / "charmcraft.yaml").write_text(
        "name: x\ncontainers: {app: {}}\nconfig:\n  " + SECRET_CONFIG.replace("\n", "\n  ")
    )
    assert read_local(source).secret_options == {"creds"}
