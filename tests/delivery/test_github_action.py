"""The GitHub Action: action.yml, and its entry script run with the environment GitHub sets.

The repairs are real (a Python project whose test fails, built by buildfixer in its sandbox); the
model is scripted and GitHub is stood in for by a local bare `origin` and a `gh` that records its
arguments (see github_action_support).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from github_action_support import (
    ACTION,
    API_KEY,
    GH_TOKEN,
    files_under,
    github_env,
    make_repo,
    parse_outputs,
    repair_script,
    run_action,
    run_composite_steps,
)

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.delivery.github_action import INPUTS, check_push_target, plan_pull_request
from buildfixer.delivery.github_report import (
    RunInfo,
    pull_request_text,
    scrub,
    summary_markdown,
    write_outputs,
)
from support.git import git
from support.projects import RIGHT

WRITTEN = ("resolved", "patch-path", "trajectory-path", "artifacts-path", "pr-url", "branch", "judge")


def assert_no_secret(tmp_path: Path, job_text: str) -> None:
    """Neither the API key nor the token is in any file the job wrote, nor in its log."""
    runner = tmp_path / "runner"
    written = files_under(runner / "output", runner / "summary.md", runner / "temp" / "buildfixer")
    written += files_under(tmp_path / "gh.log")
    assert any(p.name == "trajectory.json" for p in written)
    for path in written:
        text = path.read_text(errors="replace")
        assert API_KEY not in text and GH_TOKEN not in text, path
    log = "\n".join(line for line in job_text.splitlines() if line != f"::add-mask::{API_KEY}")
    assert API_KEY not in log and GH_TOKEN not in log


def test_action_yml_declares_every_input_and_output_the_script_uses() -> None:
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["model"]["required"] is True
    assert set(INPUTS) <= set(action["inputs"]), set(INPUTS) - set(action["inputs"])
    assert set(WRITTEN) <= set(action["outputs"])
    steps = {step.get("id") or step["name"]: step for step in action["runs"]["steps"]}
    fix = steps["fix"]
    for name in INPUTS:  # each input reaches the script under the name it reads
        assert fix["env"]["INPUT_" + name.upper().replace("-", "_")] == "${{ inputs." + name + " }}"
    assert fix["env"]["GH_TOKEN"] == "${{ inputs.github-token }}"
    assert "buildfixer.delivery.github_action" in fix["run"]
    for name, output in action["outputs"].items():
        assert output["value"] == "${{ steps.fix.outputs." + name + " }}"
    # No input is spliced into shell text, where a crafted value could run commands.
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
    uses = [step["uses"] for step in action["runs"]["steps"] if "uses" in step]
    assert uses == ["actions/setup-python@v5", "actions/upload-artifact@v4"]
    upload = action["runs"]["steps"][-1]
    assert upload["if"] == "always()" and upload["with"]["path"] == "${{ runner.temp }}/buildfixer"
    assert steps["python"]["with"]["update-environment"] is False


@pytest.mark.slow
def test_a_failed_pull_request_build_is_repaired_onto_its_own_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, folder="libs/stats")
    # actions/checkout with `ref: ${{ github.head_ref }}`: the PR's branch, checked out by name.
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "README.md").write_text("stats, now with a feature\n")
    git(repo, "commit", "-qam", "feature")
    git(repo, "push", "-q", "origin", "feature")
    head = git(repo, "rev-parse", "HEAD")
    event = {
        "repository": {"default_branch": "main", "full_name": "team/stats"},
        "pull_request": {"head": {"sha": head, "ref": "feature", "repo": {"full_name": "team/stats"}}},
    }
    env = github_env(
        tmp_path, "pull_request", "refs/pull/7/merge", event, model=repair_script(tmp_path),
        api_key=API_KEY, path="libs/stats", toolset="industrial", max_calls="5",
    )  # fmt: skip
    env.update({"GITHUB_HEAD_REF": "feature", "GITHUB_BASE_REF": "main"})
    origin_main = git(tmp_path / "origin.git", "rev-parse", "main")
    job = run_action(tmp_path, env)
    assert job.code == 0, job.stdout + job.stderr[-3000:]
    assert job.stdout.splitlines()[0] == f"::add-mask::{API_KEY}"
    # Outputs: resolved, the artifacts, the pull request.
    out = job.outputs
    assert out["resolved"] == "true" and out["judge"] == "approved"
    assert out["pr-url"] == "https://github.example/team/stats/pull/7"
    artifacts = Path(out["artifacts-path"])
    assert artifacts == tmp_path / "runner" / "temp" / "buildfixer"
    assert Path(out["patch-path"]).read_text().count("+    return sum(values) / len(values)") == 1
    assert Path(out["trajectory-path"]).is_file() and (artifacts / "result.json").is_file()
    # The pull request: from the new branch onto the branch that failed, the judge's verdict in its body.
    branch = out["branch"]
    assert branch.startswith("buildfixer/fix-")
    (create,) = job.gh("pr", "create")
    assert create[:6] == ["pr", "create", "--base", "feature", "--head", branch]
    assert create[6] == "--title" and create[7].startswith("Fix test_failure failure: ")
    assert create[8] == "--body" and "Root error (python, test_failure):" in create[9]
    assert "### Judge\n\n**approved, no findings**" in create[9]
    assert "(https://github.example/team/stats/actions/runs/4242)" in create[9]
    # `buildfixer fix` itself could not push (no token reached it): its gh check failed first.
    assert job.gh_calls[0] == ["auth", "status"]
    assert len(job.gh("auth", "status")) == 2 and len(job.gh_calls) == 3
    # origin got the fix branch, one commit on the failing head; main and feature are untouched.
    origin = tmp_path / "origin.git"
    assert git(origin, "rev-parse", f"{branch}~1") == head
    assert git(origin, "show", f"{branch}:libs/stats/stats.py") + "\n" == RIGHT
    assert git(origin, "rev-parse", "main") == origin_main and git(origin, "rev-parse", "feature") == head
    assert (
        git(origin, "for-each-ref", "--format=%(refname:short)", "refs/heads") == f"{branch}\nfeature\nmain"
    )
    assert (
        git(repo, "symbolic-ref", "--short", "HEAD") == "feature" and git(repo, "status", "--porcelain") == ""
    )
    # The job summary: verdict, judge, pull request, diff.
    assert job.summary.startswith("## buildfixer: the build is repaired")
    assert "| Judge | approved, no findings |" in job.summary
    assert "| Failed build | `feature` at" in job.summary and out["pr-url"] in job.summary
    assert "```diff" in job.summary and "+    return sum(values) / len(values)" in job.summary
    assert_no_secret(tmp_path, job.stdout + job.stderr)


@pytest.mark.slow
def test_a_failed_push_to_the_default_branch_gets_a_pull_request_and_main_is_never_pushed(
    tmp_path: Path,
) -> None:
    """This one runs action.yml's own steps (sandbox, repair) with bash, inputs through their env."""
    repo = make_repo(tmp_path)
    event = {"repository": {"default_branch": "main"}, "ref": "refs/heads/main"}
    env = github_env(tmp_path, "push", "refs/heads/main", event)
    inputs = {"model": repair_script(tmp_path), "api-key": API_KEY, "toolset": "industrial"}
    origin_main = git(tmp_path / "origin.git", "rev-parse", "main")
    job = run_composite_steps(tmp_path, env, inputs, "sandbox", "fix")
    assert job.code == 0, job.stdout + job.stderr[-3000:]
    assert "::error::" not in job.stdout and "::notice::" not in job.stdout  # bubblewrap works here
    branch = job.outputs["branch"]
    (create,) = job.gh("pr", "create")
    assert create[:6] == ["pr", "create", "--base", "main", "--head", branch]
    origin = tmp_path / "origin.git"
    assert git(origin, "rev-parse", "main") == origin_main  # a proposal onto main, never a push to it
    assert git(origin, "show", f"{branch}:stats.py") + "\n" == RIGHT
    assert git(repo, "rev-parse", "main") == origin_main
    assert "| Artifacts | `buildfixer-build-1` " in job.summary  # artifact-name's default, expanded
    assert_no_secret(tmp_path, job.stdout + job.stderr)


@pytest.mark.slow
def test_an_unrepaired_build_still_leaves_its_artifacts_and_opens_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    event = {"repository": {"default_branch": "main"}}
    env = github_env(
        tmp_path,
        "push",
        "refs/heads/main",
        event,
        model=repair_script(tmp_path, repaired=False),
        api_key=API_KEY,
        toolset="industrial",
    )
    job = run_action(tmp_path, env)
    assert job.code == 1, job.stdout + job.stderr[-3000:]
    assert "::error::buildfixer could not repair the build" in job.stdout
    out = job.outputs
    assert out["resolved"] == "false" and out["pr-url"] == "" and out["branch"] == ""
    assert Path(out["patch-path"]).read_text() == "" and Path(out["trajectory-path"]).is_file()
    assert job.summary.startswith("## buildfixer: the build is not repaired")
    assert job.gh_calls == []  # nothing to publish: gh is not even asked
    assert git(tmp_path / "origin.git", "for-each-ref", "--format=%(refname:short)") == "main"
    assert git(repo, "branch", "--list", "buildfixer/*") == ""
    assert_no_secret(tmp_path, job.stdout + job.stderr)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("no-model", "the input `model` is required"),
        ("no-workspace", "GITHUB_WORKSPACE is not a directory"),
        ("not-git", "is not in a git checkout"),
        ("outside", "the input `path` is not a directory inside the workspace"),
        ("max-calls", "the input `max-calls` must be a positive whole number"),
        ("open-pr", "the input `open-pr` must be true or false"),
        ("no-default-branch", "names no repository.default_branch"),
        ("fix-of-a-fix", "refusing to repair buildfixer/fix-20250101-000000: it is a buildfixer branch"),
        ("bad-agent", "buildfixer fix failed (exit 2)"),
    ],
)
def test_bad_setups_are_refused_with_one_error_line(tmp_path: Path, case: str, expected: str) -> None:
    if case != "not-git":
        make_repo(tmp_path)
    else:
        (tmp_path / "repo").mkdir()
    event: dict[str, object] = (
        {} if case == "no-default-branch" else {"repository": {"default_branch": "main"}}
    )
    ref = "refs/heads/buildfixer/fix-20250101-000000" if case == "fix-of-a-fix" else "refs/heads/main"
    inputs = {"model": "recipes", "api_key": API_KEY}
    inputs.update({
        "no-model": {"model": ""}, "outside": {"path": "../.."}, "max-calls": {"max_calls": "many"},
        "open-pr": {"open_pr": "maybe"}, "bad-agent": {"agent": "nonesuch"},
    }.get(case, {}))  # fmt: skip
    env = github_env(tmp_path, "push", ref, event, **inputs)
    if case == "no-workspace":
        env["GITHUB_WORKSPACE"] = str(tmp_path / "absent")
    job = run_action(tmp_path, env)
    lines = job.stdout.splitlines()
    assert job.code == 2, job.stdout + job.stderr
    assert lines[0] == f"::add-mask::{API_KEY}" and len(lines) == 2, lines
    assert lines[1].startswith("::error::") and expected in lines[1], lines[1]
    assert job.outputs == {} and job.gh_calls == [] and API_KEY not in lines[1]
    if case != "not-git":
        assert git(tmp_path / "repo", "branch", "--list", "buildfixer/*") == ""


@pytest.mark.parametrize(
    ("branch", "expected"),
    [
        ("main", "only new buildfixer/fix-* branches are pushed"),
        ("buildfixer/fix-", "only new buildfixer/fix-* branches are pushed"),
        ("buildfixer/fix-1", "it is the repository's default branch"),
        ("buildfixer/fix-2", "it is the checked-out branch"),
        ("buildfixer/fix-3", "it is the pull request's base"),
    ],
)
def test_the_guard_pushes_only_a_new_buildfixer_branch(branch: str, expected: str) -> None:
    names = {
        "default_branch": "buildfixer/fix-1",
        "checked_out": "buildfixer/fix-2",
        "base": "buildfixer/fix-3",
    }
    with pytest.raises(BuildfixerError, match=re.escape(expected)):
        check_push_target(branch, **names)
    check_push_target(
        "buildfixer/fix-20250101-000000", default_branch="main", checked_out="main", base="main"
    )


def test_the_pull_request_goes_onto_the_branch_that_failed_or_nowhere() -> None:
    repo = {"GITHUB_REPOSITORY": "team/stats"}
    pull = {"head": {"sha": "abc", "repo": {"full_name": "team/stats"}}}
    assert plan_pull_request({**repo, "GITHUB_REF": "refs/heads/release/2"}, {}, "abc") == ("release/2", "")
    pr_env = {**repo, "GITHUB_HEAD_REF": "feature", "GITHUB_REF": "refs/pull/7/merge"}
    assert plan_pull_request(pr_env, {"pull_request": pull}, "abc") == ("feature", "")
    base, why = plan_pull_request(pr_env, {"pull_request": pull}, "merge-commit")
    assert base == "" and "ref: ${{ github.head_ref }}" in why
    fork = {"head": {"sha": "abc", "repo": {"full_name": "someone/stats"}}}
    assert plan_pull_request(pr_env, {"pull_request": fork}, "abc")[1].startswith(
        "the pull request comes from the fork"
    )
    assert plan_pull_request({**repo, "GITHUB_REF": "refs/tags/v1"}, {}, "abc")[0] == ""


def test_outputs_survive_multiline_values_in_githubs_format(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=1\n")
    values = {"patch-path": "/tmp/fix.patch", "summary": "line one\nname<<EOF\nEOF\n", "empty": ""}
    write_outputs(path, values)
    assert parse_outputs(path.read_text()) == {"earlier": "1", **values}


def test_the_summary_and_the_pull_request_text_carry_the_judges_findings() -> None:
    run = RunInfo("team/stats", "main", "0123456789abcdef", "https://github.example/r/1", "m", "tool", "art")
    judge = {
        "approved": False,
        "findings": [{"rule": "test_deleted", "file": "t.py", "line": 3, "detail": "gone"}],
    }
    result = {"resolved": False, "stop": "hacked", "stop_reason": "the judge | rejected", "judge": judge}
    summary = summary_markdown({**result, "patch": "diff --git a/x b/x\n```\n"}, run, "not opened")
    assert summary.startswith("## buildfixer: the build is not repaired")
    assert "| Judge | rejected (1 finding(s)) |" in summary and "- **test_deleted** `t.py:3`: gone" in summary
    assert "| Stop | hacked: the judge \\| rejected |" in summary  # a table cell cannot end early
    assert "````diff\n" in summary  # a fence inside the diff does not close the block
    text = pull_request_text("Fix build\n\nRoot error: x\n", {**result, "llm_calls": 3}, run)
    title, _, body = text.partition("\n")
    assert title == "Fix build" and body.lstrip().startswith("Root error: x")
    assert "**rejected (1 finding(s))**" in body and "[this workflow run](https://github.example/r/1)" in body
    assert scrub(f"key {API_KEY} and 12345", [API_KEY, "12345"]) == "key *** and 12345"  # short: left


def test_the_summary_and_the_pull_request_text_name_no_path_of_the_runner() -> None:
    home, cache = Path.home(), cache_root()
    run = RunInfo("team/stats", "main", "0123456789abcdef", "https://github.example/r/1",
                  f"openai/{home}/models/qwen.gguf", "tool", "art", "libs/stats")  # fmt: skip
    result = {"resolved": True, "stop": "resolved", "stop_reason": f"verdict built in {cache}/workspaces/w1",
              "judge": {"approved": True, "findings": []}, "llm_calls": 2}  # fmt: skip
    patch = 'diff --git a/t.py b/t.py\n+TMP = "/tmp/data"\n'  # the change itself is never rewritten
    summary = summary_markdown({**result, "patch": patch}, run, "https://github.example/team/stats/pull/7")
    assert "| Model | `openai/<home>/models/qwen.gguf` (agent `tool`)" in summary
    # Outside code, a placeholder's `<` is spelled for Markdown: GitHub would drop "<cache>" as a tag.
    assert "| Stop | resolved: verdict built in &lt;cache>/workspaces/w1 |" in summary
    assert '+TMP = "/tmp/data"' in summary
    message = f"Fix build\n\nRoot error (maven, other):\n  {cache}/x.jar: zip END header not found\n"
    message += f"Build: `{cache}/state/w1/sandbox/venv/bin/python -m pytest` success\n"
    text = pull_request_text(message, result, run)
    assert "  &lt;cache>/x.jar: zip END header not found" in text
    assert "Build: `<venv>/bin/python -m pytest` success" in text
    assert "repaired it with `openai/<home>/models/qwen.gguf`" in text
    for shared in (text, summary.split("### Patch")[0]):
        assert f"{home}/" not in shared and str(cache) not in shared
