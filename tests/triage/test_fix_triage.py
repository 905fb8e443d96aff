"""`fix` triages first: flaky and infra failures are reported and never patched, a pre-existing one
says so; the benchmark's harness records the verdict and never scores an infrastructure failure."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from triage_projects import BROKEN_JS, checked, flapping, refused_registry

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.stops import StopKind
from buildfixer.delivery.github_report import RunInfo, pull_request_text, summary_markdown
from buildfixer.delivery.pull_request import message
from buildfixer.harness.attempt import AttemptConfig, run_attempt
from buildfixer.triage import Triage
from buildfixer.workspace.workspace import Workspace
from support.git import Repo
from support.model import replace, scripted

CLI = [sys.executable, "-m", "buildfixer", "fix"]


def fix(*args: str) -> tuple[int, dict, str]:
    done = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=600)
    return done.returncode, json.loads(done.stdout), done.stderr


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_a_flaky_failure_is_reported_and_never_patched(tmp_path: Path) -> None:
    project = flapping(tmp_path / "flap")
    before = tree(project)
    code, out, err = fix(str(project))
    assert code == 1
    assert (out["resolved"], out["applied"], out["patch"], out["stop"]) == (False, False, "", "declined")
    assert out["stop_reason"].startswith("triage: flaky, not repaired: it failed, then passed")
    assert out["triage"]["class"] == "flaky" and out["triage"]["builds"] == 1
    assert tree(project) == before  # the rerun ran in fix's own copy
    assert "triage: flaky (0.90)" in err
    trajectory = json.loads(Path(out["trajectory"]).read_text())
    assert trajectory["meta"]["triage"]["class"] == "flaky" and trajectory["steps"] == []
    # The text says what and why.
    again = flapping(tmp_path / "again")
    done = subprocess.run([*CLI, str(again)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "NOT REPAIRED: the failure is flaky, so it was not patched"
    assert lines[1].startswith("FLAKY (confidence 0.90)")


@pytest.mark.slow
def test_an_infrastructure_failure_is_reported_as_one(tmp_path: Path) -> None:
    code, out, _ = fix(str(refused_registry(tmp_path / "fetches")))
    assert (code, out["resolved"], out["stop"]) == (1, False, "infra_error")
    assert out["triage"]["class"] == "infra" and out["triage"]["builds"] == 0
    assert "ECONNREFUSED" in out["stop_reason"]


@pytest.mark.slow
def test_no_triage_repairs_whatever_failed(tmp_path: Path) -> None:
    code, out, _ = fix(str(flapping(tmp_path / "flap")), "--no-triage")
    assert code == 1 and out["triage"] is None  # the recipes had nothing for a failing test
    assert not out["stop_reason"].startswith("triage")


@pytest.mark.slow
def test_a_pre_existing_failure_is_still_repaired_and_said_so(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "shop")
    checked(repo.path, BROKEN_JS)
    repo.commit("app")
    repo.branch("feature")
    repo.commit("docs", {"README.md": "shop\n"})
    # A model repairs it: the base commit is built, and the same failure there is said.
    model = scripted(tmp_path / "script.json", [replace("app.js", "}}\n", "}\n"), {"content": "done"}])
    code, out, _ = fix(str(repo.path), "--dry-run", "--model", model)
    assert out["triage"]["class"] == "pre_existing" and out["triage"]["evidence"]["base"]["ref"] == "main"
    assert out["resolved"] and code == 0, out["stop_reason"]
    # The recipes have none for it: they decline at once, with no base build to learn what they would not use.
    code, out, _ = fix(str(repo.path), "--dry-run", "--model", "recipes")
    assert out["stop_reason"].startswith("declined: no recipe") and code == 1
    assert out["triage"]["evidence"]["base"] is None and out["triage"]["builds"] == 0
    assert out["triage"]["evidence"]["notes"] == ["not built: the repair declines this failure at once"]


@pytest.mark.slow
def test_a_real_compile_error_costs_fix_no_extra_build(tmp_path: Path) -> None:
    code, out, _ = fix(str(checked(tmp_path / "app", BROKEN_JS)))
    assert code == 1 and out["triage"]["class"] == "real" and out["triage"]["builds"] == 0


@pytest.mark.slow
def test_fix_refuses_a_base_that_is_no_ref_before_building(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "shop")
    checked(repo.path, BROKEN_JS)
    repo.commit("app")
    argv = [*CLI, str(repo.path), "--base", "nope"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--base nope" in done.stderr and done.stdout == ""


@pytest.mark.slow
def test_the_benchmark_never_scores_an_infrastructure_failure(tmp_path: Path, cache_dir: Path) -> None:
    """As bench/worker.py runs an attempt: triage from the log alone, no build of its own."""
    source = Repo(tmp_path / "repo")
    refused_registry(source.path)
    source.commit("fetches")
    workspace = Workspace.create(source.path, cache_dir=cache_dir)
    try:
        config = AttemptConfig(agent="recipes", triage="log", options=BuildOptions(cache_dir=cache_dir))
        attempt = run_attempt(workspace.root, config)
    finally:
        workspace.remove()
    assert attempt.stop.kind is StopKind.INFRA_ERROR and attempt.stop.infrastructure  # a rerun retries it
    assert attempt.triage is not None and attempt.triage.kind == "infra" and attempt.triage.builds == 0
    assert not attempt.resolved and attempt.llm_calls == 0


def test_the_pull_request_says_a_failure_was_already_on_the_base(tmp_path: Path) -> None:
    error = BuildError("SyntaxError: Unexpected token '}'", "syntax", "node", "app.js", 3)
    initial = BuildResult("failure", 1, 2.0, "npm", ["npm", "run", "build"], None, "", errors=[error],
                          category="syntax")  # fmt: skip
    verdict = BuildResult("success", 0, 1.0, "npm", ["npm", "run", "build"], None, "")
    triaged = Triage("pre_existing", 0.9, "the base commit (main at 0123456789ab) fails the same way", {})
    text = message(initial, verdict, "", {"approved": True, "findings": []}, triage=triaged)
    assert ("Triage: pre_existing (0.90): the base commit (main at 0123456789ab) fails the same way. "
            "The failure was already on the base branch.") in text  # fmt: skip
    run = RunInfo("team/shop", "feature", "0123456789abcdef", "https://github.example/r/1", "m", "tool", "a")
    assert "The failure was already on the base branch." in pull_request_text(text, {}, run)
    summary = summary_markdown({"resolved": True, "triage": triaged.to_dict()}, run, "url")
    said = "| Triage | **pre_existing** (0.90): the base commit (main at 0123456789ab) fails the same way."
    assert said in summary
    flaky = Triage("flaky", 0.9, "it failed, then passed when built again unchanged", {})
    summary = summary_markdown({"resolved": False, "triage": flaky.to_dict()}, run, "not opened")
    assert "| Triage | **flaky** (0.90): it failed, then passed when built again unchanged. Not patched" in (
        summary
    )
    assert "| Triage |" not in summary_markdown({"resolved": False, "triage": None}, run, "not opened")
