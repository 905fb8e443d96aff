"""`fix --pr`: the repair as a commit on a new branch, the working tree untouched, a pull request via `gh`.

This network has no GitHub: the pull-request step runs against a stand-in `gh` on PATH that
records its arguments, and `origin` is a local bare repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from github_action_support import make_repo

from buildfixer.core.paths import cache_root
from buildfixer.delivery.pull_request import subject as pr_subject
from support.git import git
from support.model import scripted, write_file
from support.projects import FLOORED, RIGHT

REPAIR = [write_file("stats.py", RIGHT), {"content": "mean() divides without flooring."}]
GH = """#!/bin/sh
echo "$@" >> "{log}"
case "$1 $2" in
  "auth status") exit {auth} ;;
  "pr create") echo "https://github.example/team/stats/pull/7" ;;
esac
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose project lives in a subfolder, with a local bare `origin` (nothing pushed)."""
    return make_repo(tmp_path, folder="libs/stats", pushed=False)


def run_fix(
    tmp_path: Path, project: Path, *extra: str, gh_auth: int | None = None
) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if gh_auth is not None:
        gh = bin_dir / "gh"
        gh.write_text(GH.format(log=tmp_path / "gh.log", auth=gh_auth))
        gh.chmod(0o755)
    model = scripted(tmp_path / "script.json", REPAIR)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "BUILDFIXER_MEMORY": str(tmp_path / "fixes.sqlite3"),
    }
    cmd = [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", model,
           "--toolset", "industrial", "--json", *extra]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.slow
def test_the_repair_becomes_a_commit_on_a_new_branch_and_a_pull_request(tmp_path: Path, repo: Path) -> None:
    project = repo / "libs" / "stats"
    head = git(repo, "rev-parse", "HEAD")
    # An LLM judge beside the rules, its answer in the record.
    judge = scripted(tmp_path / "judge.json", [{"content": '{"approved": true, "reasons": []}'}])
    loop = ("--agent", "pipeline")  # the repair loop, as a user starts it
    done = run_fix(tmp_path, project, "--pr", "--judge-model", judge, *loop, gh_auth=0)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "error 1, try 1 (no remembered fix)" in done.stderr
    out = json.loads(done.stdout)
    pr = out["pr"]
    assert out["judge"]["approved"] and out["judge"]["llm"]["approved"] is True
    assert out["resolved"] and not out["applied"] and pr["base"] == "main"
    # The working tree, the index and the checked-out branch are as they were.
    assert (project / "stats.py").read_text() == FLOORED
    assert git(repo, "status", "--porcelain") == "" and git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "symbolic-ref", "--short", "HEAD") == "main"
    # One commit on the new branch, on top of HEAD, changing the file where it lives in the repository.
    branch = pr["branch"]
    assert branch.startswith("buildfixer/fix-") and git(repo, "rev-parse", branch) == pr["commit"]
    assert git(repo, "rev-parse", f"{branch}~1") == head
    assert git(repo, "diff", "--name-only", head, branch) == "libs/stats/stats.py"
    assert git(repo, "show", f"{branch}:libs/stats/stats.py") + "\n" == RIGHT
    text = git(repo, "log", "-1", "--format=%B", branch)
    assert text.startswith("Fix test_failure failure: ")
    assert "Root error (python, test_failure):" in text and "test_mean" in text
    assert "stats.py (+1 -1)" in text and "Judge: approved, no findings" in text
    assert "Build: `" in text and "success" in text
    # Pushed to origin, and the pull request opened from that branch onto main.
    assert git(tmp_path / "origin.git", "rev-parse", branch) == pr["commit"]
    calls = (tmp_path / "gh.log").read_text().splitlines()
    assert calls[0] == "auth status"
    assert calls[1].startswith(f"pr create --base main --head {branch} --title Fix test_failure failure: ")
    assert pr["url"] == "https://github.example/team/stats/pull/7" and pr["note"] == ""


@pytest.mark.slow
def test_without_a_logged_in_gh_the_branch_is_made_and_the_way_to_open_it_said(
    tmp_path: Path, repo: Path
) -> None:
    done = run_fix(tmp_path, repo / "libs" / "stats", "--pr", gh_auth=1)
    assert done.returncode == 0, done.stderr[-2000:]
    pr = json.loads(done.stdout)["pr"]
    assert (
        pr["url"] is None and "gh is not logged in" in pr["note"] and f"--head {pr['branch']}" in pr["note"]
    )
    assert git(repo, "rev-parse", "--verify", pr["branch"]) == pr["commit"]
    assert (tmp_path / "gh.log").read_text().splitlines() == ["auth status"]  # no pull request tried
    assert git(tmp_path / "origin.git", "branch", "--list") == ""  # and nothing pushed


@pytest.mark.slow
def test_the_message_cuts_its_subject_after_a_word_and_quotes_the_whole_command_without_machine_paths(
    tmp_path: Path, repo: Path
) -> None:
    done = run_fix(tmp_path, repo / "libs" / "stats", "--pr", gh_auth=1)
    assert done.returncode == 0, done.stderr[-2000:]
    text = git(repo, "log", "-1", "--format=%B", json.loads(done.stdout)["pr"]["branch"])
    subject = text.splitlines()[0]
    full = "Fix test_failure failure: tests/test_stats.py::test_mean - assert 1 == 1.5"  # 75 characters
    assert subject == "Fix test_failure failure: tests/test_stats.py::test_mean - assert 1 ==…"
    assert len(subject) <= 72 and full.startswith(subject[:-1] + " ")
    assert "  tests/test_stats.py:5: " + full.partition(": ")[2] in text  # the root error whole, in the body
    # The verdict build's command whole, its interpreter in buildfixer's cache named as a venv.
    assert "Build: `<venv>/bin/python -m pytest -q -p no:cacheprovider` success" in text
    for local in (str(cache_root()), f"{tempfile.gettempdir()}/", f"{Path.home()}/"):
        assert local not in text


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Fix syntax failure: ';' expected", "Fix syntax failure: ';' expected"),  # short: as it is
        # Cut after the last whole word that fits, with no separator left before the ellipsis.
        (
            "Fix build failure: " + "word " * 10 + "- " + "tail" * 10,
            "Fix build failure: " + "word " * 9 + "word…",
        ),
        ("Fix other failure: " + "x" * 80, "Fix other failure…"),  # no word of the line's end fits
        ("y" * 80, "y" * 71 + "…"),  # one word longer than a line: the only cut inside a word
    ],
)
def test_subjects_end_on_a_whole_word(text: str, subject: str) -> None:
    assert pr_subject(text) == subject and len(pr_subject(text)) <= 72


@pytest.mark.parametrize(
    ("case", "extra", "expected"),
    [
        ("dirty", ["--pr"], "uncommitted changes (libs/stats/stats.py ...): commit or stash them first"),
        ("no-repo", ["--pr"], "fix --pr needs a git repository"),
        ("dry-run", ["--pr", "--dry-run"], "--pr and --dry-run exclude each other"),
    ],
)
def test_bad_pr_requests_are_refused_before_any_build(
    tmp_path: Path, repo: Path, case: str, extra: list[str], expected: str
) -> None:
    project = repo / "libs" / "stats"
    if case == "dirty":
        (project / "stats.py").write_text(FLOORED + "# wip\n")
    if case == "no-repo":
        project = tmp_path / "plain"
        project.mkdir()
        (project / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1"\n')
    done = run_fix(tmp_path, project, *extra)
    assert done.returncode == 2 and expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
    assert git(repo, "branch", "--list", "buildfixer/*") == ""
