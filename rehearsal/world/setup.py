"""What a machine with MicroK8s and a bootstrapped controller has on disk, for a world.

- the client store (``JUJU_DATA``): controllers.yaml, accounts.yaml, models.yaml,
  cookies/<controller>.json and ssh/juju_id_rsa.pub, as ``juju bootstrap`` leaves them
  (jujuclient/*.go; python-libjuju reads them in juju/client/jujudata.py and connector.py:
  endpoints and CA from controllers.yaml, user and password from accounts.yaml, a model's
  uuid from models.yaml, and it needs a cookie file);
- the kubeconfig ``microk8s config`` prints (a token user, the CA, the API server URL);
- ``bin/``: ``juju``, ``microk8s``, ``sudo`` and ``charmcraft`` shims, small stdlib-only
  programs that forward their arguments and environment to the world over a Unix socket
  and print what it answers, with its exit code. Each is a real process with its own argv
  (the jubilant driver finds and kills its ``juju`` by ``--model`` in /proc), and a killed
  shim drops its connection, which cancels the command in the world.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import yaml

SHIM = """#!{python} -SE
# A rehearsal world's `{tool}` (rehearsal/world/setup.py): forwards to the world at
# {socket} and prints what it answers. Not the real {tool}.
import json, os, socket, sys
KEEP = ("JUJU_", "REPRO_", "KUBECONFIG", "HOME", "NO_COLOR")
try:
    conn = socket.socket(socket.AF_UNIX)
    conn.connect({socket!r})
except OSError as error:
    sys.stderr.write("ERROR the rehearsal world at {socket} is not running (%s)\\n" % error)
    sys.exit(1)
env = {{k: v for k, v in os.environ.items() if k.startswith(KEEP)}}
conn.sendall(json.dumps({{"tool": {tool!r}, "argv": sys.argv[1:], "env": env,
                         "cwd": os.getcwd()}}).encode() + b"\\n")
for line in conn.makefile("rb"):
    message = json.loads(line)
    if "out" in message:
        sys.stdout.write(message["out"])
    if "err" in message:
        sys.stderr.write(message["err"])
    if "exit" in message:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.exit(message["exit"])
sys.stderr.write("ERROR the rehearsal world went away\\n")
sys.exit(1)
"""

TOOLS = ("juju", "microk8s", "sudo", "charmcraft")
KUBE_TOKEN = "rehearsal-kube-token"


def write_shims(folder: Path, socket: str) -> Path:
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in TOOLS:
        path = bin_dir / tool
        path.write_text(SHIM.format(python=sys.executable, tool=tool, socket=socket))
        path.chmod(0o755)
    return bin_dir


def write_client_store(
    folder: Path, *, controller: str, controller_uuid: str, port: int, ca_pem: str,
    version: str, password: str, controller_model_uuid: str,
) -> Path:  # fmt: skip
    data = folder / "juju-data"
    (data / "cookies").mkdir(parents=True, exist_ok=True)
    (data / "ssh").mkdir(parents=True, exist_ok=True)
    controllers: dict[str, Any] = {
        "controllers": {
            controller: {
                "uuid": controller_uuid,
                "api-endpoints": [f"127.0.0.1:{port}"],
                "ca-cert": ca_pem,
                "cloud": "microk8s",
                "region": "localhost",
                "type": "kubernetes",
                "agent-version": version,
                "controller-machine-count": 1,
                "active-controller-machine-count": 0,
                "machine-count": 1,
            }
        },
        "current-controller": controller,
    }
    (data / "controllers.yaml").write_text(yaml.safe_dump(controllers))
    accounts = {
        "controllers": {
            controller: {"user": "admin", "password": password, "last-known-access": "superuser"}
        }
    }
    (data / "accounts.yaml").write_text(yaml.safe_dump(accounts))
    models = {
        "controllers": {
            controller: {
                "models": {"admin/controller": {"uuid": controller_model_uuid, "type": "caas"}},
                "current-model": "admin/controller",
            }
        }
    }
    (data / "models.yaml").write_text(yaml.safe_dump(models))
    (data / "cookies" / f"{controller}.json").write_text("[]")
    (data / "ssh" / "juju_id_rsa.pub").write_text("ssh-rsa AAAAB3NzaC1yc2E rehearsal@world\n")
    return data


def write_kubeconfig(folder: Path, *, port: int, ca_pem: str) -> Path:
    """As ``microk8s config`` prints it (a cluster, a context, a token user)."""
    config = {
        "apiVersion": "v1",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": base64.b64encode(ca_pem.encode()).decode(),
                    "server": f"https://127.0.0.1:{port}",
                },
                "name": "microk8s-cluster",
            }
        ],
        "contexts": [
            {"context": {"cluster": "microk8s-cluster", "user": "admin"}, "name": "microk8s"}
        ],
        "current-context": "microk8s",
        "kind": "Config",
        "preferences": {},
        "users": [{"name": "admin", "user": {"token": KUBE_TOKEN}}],
    }
    path = folder / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def write_description(folder: Path, description: dict[str, Any]) -> Path:
    path = folder / "world.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(description, indent=1))
    tmp.rename(path)
    return path
