"""`buildfixer triage --json` as a user (or a judge) runs it: a subprocess and real, sandboxed builds.

One project per class: a test that fails once then passes, a registry that refuses connections, a
full disk, a JVM and a sandbox out of memory, a failure already on the base branch, real errors.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from triage_projects import (
    BROKEN_JS,
    GOOD_JS,
    checked,
    flapping,
    hungry,
    refused_registry,
    scratch_writer,
    thumbs,
)

from buildfixer.buildsys.sandbox import cgroups
from support.git import Repo, git

CLI = [sys.executable, "-m", "buildfixer", "triage"]


def triage(*args: str, **variables: str) -> tuple[int, dict, str]:
    """Run `buildfixer triage --json ARGS`: its exit code, its JSON and its stderr."""
    env = {**os.environ, **variables}
    done = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.slow
def test_a_test_that_fails_once_then_passes_is_flaky(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(flapping(tmp_path / "flap")))
    assert code == 1
    assert verdict["class"] == "flaky" and verdict["confidence"] == 0.9 and verdict["builds"] == 1
    first, rerun = verdict["evidence"]["first"], verdict["evidence"]["reruns"][0]
    assert first["category"] == "test_failure" and "passes the second time" in first["root_error"]
    assert rerun["status"] == "success"


@pytest.mark.slow
def test_a_registry_that_refuses_connections_is_infra_without_another_build(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(refused_registry(tmp_path / "fetches")))
    assert (code, verdict["class"], verdict["builds"]) == (1, "infra", 0)
    signals = verdict["evidence"]["signals"]
    assert signals[0]["kind"] == "network" and "ECONNREFUSED" in signals[0]["detail"]


@pytest.mark.slow
def test_a_full_disk_is_infra(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(scratch_writer(tmp_path / "writes")), BUILDFIXER_SANDBOX_TMP_SIZE="1M")
    assert (code, verdict["class"], verdict["builds"]) == (1, "infra", 0)
    assert verdict["evidence"]["signals"][0]["kind"] == "disk"
    assert "no space left on device" in verdict["basis"].lower()


@pytest.mark.slow
def test_a_jvm_out_of_heap_is_infra(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(thumbs(tmp_path / "thumbs")))
    assert (code, verdict["class"], verdict["builds"]) == (1, "infra", 0)
    assert verdict["evidence"]["signals"][0]["kind"] == "memory"
    assert "OutOfMemoryError: Java heap space" in verdict["basis"]


@pytest.mark.slow
@pytest.mark.skipif(not cgroups.memory_available(), reason="no writable control groups here")
def test_the_sandboxs_memory_limit_is_infra(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(hungry(tmp_path / "hungry")), BUILDFIXER_SANDBOX_MEMORY="256M")
    assert (code, verdict["class"]) == (1, "infra")
    assert verdict["evidence"]["signals"][0]["kind"] == "limit"
    assert "BUILDFIXER_SANDBOX_MEMORY" in verdict["basis"]


def branch_repo(root: Path, main_app: str, feature_app: str) -> Repo:
    """main with app.js as `main_app`; the branch `feature` adds a commit, app.js `feature_app`."""
    repo = Repo(root)
    checked(root, main_app)
    repo.commit("app")
    repo.branch("feature")
    repo.commit("feature work", {"README.md": "The feature.\n", "app.js": feature_app})
    return repo


@pytest.mark.slow
def test_a_failure_already_on_the_base_branch_is_pre_existing(tmp_path: Path, cache_dir: Path) -> None:
    repo = branch_repo(tmp_path / "shop", BROKEN_JS, BROKEN_JS)
    main = repo.git("rev-parse", "main")
    before = git(repo.path, "status", "--porcelain"), repo.git("for-each-ref"), repo.git("worktree", "list")
    code, verdict, _ = triage(str(repo.path), BUILDFIXER_CACHE_DIR=str(cache_dir))
    assert (code, verdict["class"], verdict["confidence"], verdict["builds"]) == (1, "pre_existing", 0.9, 1)
    base = verdict["evidence"]["base"]
    assert (base["ref"], base["commit"], base["status"]) == ("main", main, "failure") and base["same_failure"]
    # The user's checkout as it was; buildfixer's worktree of the base is gone.
    after = git(repo.path, "status", "--porcelain"), repo.git("for-each-ref"), repo.git("worktree", "list")
    assert after == before
    assert not any((cache_dir / "workspaces").iterdir()) if (cache_dir / "workspaces").is_dir() else True


@pytest.mark.slow
def test_a_failure_the_branch_made_is_real(tmp_path: Path) -> None:
    repo = branch_repo(tmp_path / "shop", GOOD_JS, BROKEN_JS)
    code, verdict, _ = triage(str(repo.path))
    assert (code, verdict["class"], verdict["confidence"]) == (1, "real", 0.95)
    assert verdict["evidence"]["base"]["status"] == "success"
    assert verdict["evidence"]["reruns"] == []  # a syntax error is never built again


@pytest.mark.slow
def test_a_real_error_outside_git_costs_no_build(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(checked(tmp_path / "app", BROKEN_JS)))
    assert (code, verdict["class"], verdict["builds"], verdict["confidence"]) == (1, "real", 0, 0.8)
    assert verdict["evidence"]["first"]["category"] == "syntax"
    assert verdict["evidence"]["notes"] == ["not a git checkout: no base to compare with"]


@pytest.mark.slow
def test_a_passing_build_exits_0_and_the_text_names_the_class(tmp_path: Path) -> None:
    code, verdict, _ = triage(str(checked(tmp_path / "ok", GOOD_JS)))
    assert (code, verdict["class"]) == (0, None)
    project = flapping(tmp_path / "flap")
    done = subprocess.run([*CLI, str(project)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert done.stdout.startswith("FLAKY (confidence 0.90): it failed, then passed when built again")
    assert "built again (1): success" in done.stdout and "triage: building again" in done.stderr


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["{missing}"], "not a directory"),
        (["{project}", "--max-builds", "-1"], "--max-builds"),
        (["{project}", "--max-builds", "11"], "--max-builds"),
        (["{project}", "--base", "no-such-branch"], "--base no-such-branch"),
        (["{project}", "--timeout", "0"], "--timeout"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_build(
    tmp_path: Path, cache_dir: Path, args: list[str], fragment: str
) -> None:
    repo = branch_repo(tmp_path / "shop", BROKEN_JS, BROKEN_JS)
    shown = [a.format(project=repo.path, missing=tmp_path / "nowhere") for a in args]
    env = {**os.environ, "BUILDFIXER_CACHE_DIR": str(cache_dir)}
    done = subprocess.run([*CLI, *shown], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and fragment in done.stderr
    assert not (cache_dir / "state").exists()  # nothing built
