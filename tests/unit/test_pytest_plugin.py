"""The pytest plugin's options and markers, driven through pytester."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_known_bug_marker_is_a_strict_xfail_naming_the_bug(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.known_bug("https://bugs.launchpad.net/juju/+bug/2021891")
        def test_reporter_expectation():
            assert ["stop", "upgrade-charm"] == ["stop"]

        @pytest.mark.known_bug("https://bugs.launchpad.net/juju/+bug/1")
        def test_juju_changed():
            assert True
        """
    )
    result = pytester.runpytest("-rxX", "--backend", "twin")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_reporter_expectation*+bug/2021891*"])
    # strict: an unexpected pass fails, so the suite alarms when Juju changes.
    result.stdout.fnmatch_lines(["*XPASS(strict)*+bug/1:*"])


def test_known_bug_does_not_hide_an_infrastructure_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.known_bug("https://bugs.launchpad.net/juju/+bug/2021891")
        def test_broken_setup():
            raise RuntimeError("controller went away")
        """
    )
    result = pytester.runpytest("--backend", "twin")
    result.assert_outcomes(failed=1)


def test_node_restart_tests_skip_on_live_without_opt_in(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.node_restart
        def test_restart():
            pass
        """
    )
    result = pytester.runpytest("-rs", "--backend", "live")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*--allow-node-restart*"])
    assert pytester.runpytest("--backend", "live", "--allow-node-restart").ret == 0


def test_node_restart_runs_on_the_twin_without_opt_in(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.node_restart
        def test_restart():
            pass
        """
    )
    pytester.runpytest("--backend", "twin").assert_outcomes(passed=1)


def test_failure_summary_points_at_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_fails(request):
            request.node.user_properties.append(("evidence", "evidence/twin/lp2021891-pod-delete"))
            assert False
        """
    )
    result = pytester.runpytest("--backend", "twin")
    result.stdout.fnmatch_lines(["*evidence/twin/lp2021891-pod-delete/report.md*"])


def test_live_lab_skips_with_what_is_missing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(pytester.path))  # no juju, no charmcraft
    pytester.makepyfile(
        """
        def test_needs_lab(lab):
            raise AssertionError("must not run without a controller")
        """
    )
    result = pytester.runpytest("-rs", "--backend", "live")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs a live Juju controller on MicroK8s*`juju` CLI*"])


def test_charm_disrupt_without_a_charm_stack_says_what_to_define(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        async def test_pod_delete(charm_disrupt):
            await charm_disrupt("pod-delete")
        """
    )
    result = pytester.runpytest("--backend", "twin", "-p", "asyncio", "-o", "asyncio_mode=auto")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*define a module-scoped charm_stack fixture in conftest.py*"])


def test_a_failing_charm_disruption_test_points_at_its_report(pytester: pytest.Pytester) -> None:
    from pathlib import Path

    example = Path(__file__).parents[2] / "examples" / "charm-repo"
    _charm_stack_conftest(pytester, example)
    pytester.makepyfile(
        """
        async def test_pod_delete_keeps_the_pod(charm_disrupt):
            run = await charm_disrupt("pod-delete")
            assert not run.evidence.hooks, "hooks ran"
        """
    )
    result = pytester.runpytest(
        "--backend", "twin", "-p", "asyncio", "-o", "asyncio_mode=auto",
        "--evidence-dir", str(pytester.path / "ev"),
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*evidence (paste report.md into the bug)*", "*pod-delete/report.md"]
    )


def test_require_live_fails_a_run_where_every_live_test_skipped(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        def test_live():
            pytest.skip("needs a live Juju controller on MicroK8s: no juju")
        """
    )
    plain = pytester.runpytest("--backend", "live")
    assert plain.ret == 0  # what a runner with no controller used to report: green
    required = pytester.runpytest("--backend", "live", "--require-live")
    assert required.ret == 1
    lines = [line for line in required.errlines if line.startswith("--require-live")]
    assert lines == [
        "--require-live: no test ran on the live backend; "
        "skipped: Skipped: needs a live Juju controller on MicroK8s: no juju"
    ]


def test_require_live_fails_a_run_that_wrote_no_bundle(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_live():\n    assert True\n")
    result = pytester.runpytest("--backend", "live", "--require-live", "--evidence-dir", "ev")
    assert result.ret == 1
    assert any("no evidence bundle was written under ev" in line for line in result.errlines)


def test_require_live_passes_a_run_that_tested_and_wrote_evidence(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        from pathlib import Path

        def test_live():
            folder = Path("ev") / "pod-delete"
            folder.mkdir(parents=True)
            (folder / "bundle.json").write_text("{}")
        """
    )
    result = pytester.runpytest("--backend", "live", "--require-live", "--evidence-dir", "ev")
    assert result.ret == 0


def _one_usage_line(result: pytest.RunResult, *words: str) -> None:
    """pytest stopped before any test, with one line naming the option and the fix."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = "\n".join(result.errlines)
    assert "Traceback" not in text
    (line,) = [line for line in result.errlines if line.strip()]
    for word in words:
        assert word in line


@pytest.mark.parametrize(
    ("version", "words"),
    [("banana", ("--juju-version", "not a Juju version")), ("1.0", ("--juju-version", "2.9"))],
)
def test_a_bad_twin_juju_version_stops_the_session_in_one_line(
    pytester: pytest.Pytester, version: str, words: tuple[str, ...]
) -> None:
    pytester.makepyfile("def test_twin(lab):\n    pass\n")

    result = pytester.runpytest("--backend", "twin", "--juju-version", version)

    _one_usage_line(result, *words)
    assert "ERROR at setup" not in result.stdout.str()  # not one traceback per test


def test_require_live_with_the_twin_is_refused_before_any_test_runs(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_ran():\n    open('ran', 'w').close()\n")

    result = pytester.runpytest("--backend", "twin", "--require-live")

    _one_usage_line(result, "--require-live", "--backend live")
    assert not (pytester.path / "ran").exists()


def test_an_evidence_dir_that_is_a_file_stops_the_session_before_deploying(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "notes.txt").write_text("mine")
    pytester.makepyfile(
        "def test_uses_the_harness(harness_options):\n    open('ran', 'w').close()\n"
    )

    result = pytester.runpytest("--backend", "twin", "--evidence-dir", "notes.txt")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*--evidence-dir notes.txt is a file*"])
    assert "Traceback" not in result.stdout.str()
    assert not (pytester.path / "ran").exists()
    assert (pytester.path / "notes.txt").read_text() == "mine"


def test_an_interrupted_run_ends_the_session_after_its_teardown(pytester: pytest.Pytester) -> None:
    # What run_scenario raises when a signal stopped the run (also when the node restart
    # caught it and started MicroK8s again): the next test must not start a new disruption,
    # and the fixtures' teardown (destroying the model the harness made) must still run.
    pytester.makepyfile(
        """
        from pathlib import Path

        import pytest
        from harness.common.interrupt import RunInterrupted

        @pytest.fixture
        def model():
            yield
            Path("torn-down").write_text("yes")

        async def test_node_restart(model):
            raise RunInterrupted("SIGINT", "node-restart of the node")

        async def test_next_disruption(model):
            Path("next-ran").write_text("yes")
        """
    )
    result = pytester.runpytest("--backend", "twin", "-p", "asyncio", "-o", "asyncio_mode=auto")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*interrupted by SIGINT during node-restart of the node*"])
    assert not (pytester.path / "next-ran").exists()
    assert (pytester.path / "torn-down").exists()


def test_a_charm_its_juju_would_refuse_is_one_line_not_a_traceback(
    pytester: pytest.Pytester,
) -> None:
    import shutil
    from pathlib import Path

    example = Path(__file__).parents[2] / "examples" / "charm-repo"
    root = pytester.path / "charm"
    shutil.copytree(example, root, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    charmcraft = root / "charmcraft.yaml"
    charmcraft.write_text(charmcraft.read_text() + "assumes:\n  - juju >= 3.6\n")
    _charm_stack_conftest(pytester, root)
    pytester.makepyfile(
        """
        async def test_pod_delete(charm_disrupt):
            await charm_disrupt("pod-delete")
        """
    )
    # --show-capture=no: the failure's own line names the bundle, not only the captured log.
    result = pytester.runpytest(
        "--backend", "twin", "--juju-version", "3.4", "-p", "asyncio",
        "-o", "asyncio_mode=auto", "--evidence-dir", str(pytester.path / "ev"),
        "--show-capture=no",
    )  # fmt: skip
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*SIMULATED: Juju 3.4.0 would refuse to deploy demo-config*"])
    import re

    assert not re.search(r"\.py:\d+: in ", result.stdout.str()), "a traceback was printed"
    named = re.search(
        r"would refuse to deploy demo-config.*; evidence: (\S+)", result.stdout.str()
    )
    assert named, "the failure does not name the failed deploy's bundle"
    assert named[1].endswith("report.md"), named[1]
    assert Path(named[1]).is_file(), named[1]


def test_a_stack_deploy_juju_refuses_is_one_line_with_its_evidence(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        import importlib

        import pytest
        from harness.common.errors import HarnessError

        # The module the plugin will import: pytester restores sys.modules between runs, so
        # an attribute of the harness package may be an earlier run's copy.
        session = importlib.import_module("harness.suite.session")

        @pytest.fixture(autouse=True, scope="module")
        def refused(request):
            async def deploy(self):
                raise HarnessError("Juju refused to deploy mysql-k8s (mysql-k8s 8.0/edge): x",
                                   "pass --mysql-channel")
            patch = pytest.MonkeyPatch()
            patch.setattr(session.Deployment, "deploy", deploy)
            yield
            patch.undo()
        """
    )
    pytester.makepyfile(
        """
        async def test_pod_delete(disrupt):
            await disrupt("lp2021891-pod-delete")
        """
    )
    result = pytester.runpytest(
        "--backend", "twin", "-p", "asyncio", "-o", "asyncio_mode=auto",
        "--evidence-dir", str(pytester.path / "ev"),
    )  # fmt: skip
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*deploying the stack failed: Juju refused to deploy mysql-k8s*evidence: *report.md"]
    )
    import re

    assert not re.search(r"\.py:\d+: in ", result.stdout.str()), "a traceback was printed"


def _charm_stack_conftest(pytester: pytest.Pytester, root: object) -> None:
    """A conftest whose charm_stack is the charm at ``root`` (as examples/charm-repo has it)."""
    pytester.makeconftest(
        f"""
        import pytest
        from pathlib import Path
        from harness.charm_suite import CharmStack

        @pytest.fixture(scope="module")
        def charm_stack():
            root = Path({str(root)!r})
            return CharmStack(bundle=root / "bundle.yaml", app="demo", source=root)
        """
    )
