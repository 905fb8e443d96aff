"""The entry script of buildfixer's GitHub Action (`action.yml`): repair a failed build in CI.

`python -m buildfixer.delivery.github_action` reads the environment GitHub sets (`GITHUB_*`,
`RUNNER_TEMP`) and the action's inputs (`INPUT_*`, passed by the composite action), runs
`buildfixer fix --json` on the checked-out project, writes the patch, the trajectory and the result
into `$RUNNER_TEMP/buildfixer` (the action uploads that folder), sets the step outputs, writes the
job summary, and opens a pull request from a new `buildfixer/fix-*` branch onto the branch whose
build failed. It never pushes any other branch: `check_push_target` refuses the default branch,
the checked-out branch and the pull request's base.

Exit codes: 0 repaired (pull request opened, or the way to open it said), 1 not repaired (the
artifacts are still written), 2 bad setup (one `::error::` line).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from buildfixer.core.errors import BuildfixerError
from buildfixer.delivery.github_report import (
    RunInfo,
    pull_request_text,
    scrub,
    summary_markdown,
    write_outputs,
)
from buildfixer.delivery.pull_request import PullRequest, open_pull_request
from buildfixer.triage import FLAKY, INFRA
from buildfixer.workspace.git import git

BRANCH_PREFIX = "buildfixer/fix-"
# The inputs of action.yml this script reads (as INPUT_<NAME>, "-" written "_").
INPUTS = ("model", "api-key", "api-base", "path", "agent", "toolset", "max-calls", "judge-model", "open-pr")
# Tokens that would let `buildfixer fix` push on its own: the push is this script's, after its guard.
_TOKEN_VARIABLES = ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")


@dataclass
class Settings:
    """The action's inputs and GitHub's environment, checked."""

    model: str
    api_key: str
    api_base: str
    project: Path
    root: Path
    agent: str
    toolset: str
    max_calls: int
    judge_model: str
    artifacts: Path
    run: RunInfo
    default_branch: str
    checked_out: str
    base: str  # the pull request's base: the branch whose build failed ("" = no pull request)
    no_pull: str  # why no pull request is opened ("" when one is)


def read_input(env: Mapping[str, str], name: str) -> str:
    """An action input as GitHub names it (`INPUT_MAX_CALLS`, or `INPUT_MAX-CALLS` for other runners)."""
    key = "INPUT_" + name.upper().replace(" ", "_")
    return (env.get(key.replace("-", "_")) or env.get(key) or "").strip()


def check_push_target(branch: str, *, default_branch: str, checked_out: str, base: str) -> None:
    """Refuse to push anything but a new `buildfixer/fix-*` branch.

    Raises:
        BuildfixerError: The branch is not a buildfixer branch, or it is the repository's default
            branch, the branch checked out in the runner, or the pull request's base.
    """
    if not branch.startswith(BRANCH_PREFIX) or branch == BRANCH_PREFIX:
        raise BuildfixerError(f"refusing to push {branch!r}: only new {BRANCH_PREFIX}* branches are pushed")
    for name, what in (
        (default_branch, "the repository's default branch"),
        (checked_out, "the checked-out branch"),
        (base, "the pull request's base"),
    ):
        if name and branch == name:
            raise BuildfixerError(f"refusing to push {branch!r}: it is {what}")


def plan_pull_request(env: Mapping[str, str], event: dict[str, Any], head: str) -> tuple[str, str]:
    """The base of the pull request (the branch that failed), or "" and why there is none.

    A pull_request event names its source branch in GITHUB_HEAD_REF; other events run on
    GITHUB_REF. The fix is committed on top of HEAD, so HEAD must be that branch's commit: the
    merge commit GitHub checks out for a pull request by default would drag the base into the fix.
    """
    pull = event.get("pull_request") or {}
    if env.get("GITHUB_HEAD_REF"):
        head_repo = ((pull.get("head") or {}).get("repo") or {}).get("full_name")
        if head_repo and head_repo != env.get("GITHUB_REPOSITORY"):
            return "", f"the pull request comes from the fork {head_repo}, where this token cannot push"
        expected = (pull.get("head") or {}).get("sha")
        if expected and expected != head:
            return "", (
                "the checkout is not the pull request's head commit (GitHub's merge commit?): check it "
                "out with `ref: ${{ github.head_ref }}` so the fix goes on top of the failing branch"
            )
        return env["GITHUB_HEAD_REF"], ""
    ref = env.get("GITHUB_REF", "")
    if ref.startswith("refs/heads/"):
        return ref.removeprefix("refs/heads/"), ""
    return "", f"the build did not run on a branch ({ref or 'GITHUB_REF is not set'})"


def settings_from(env: Mapping[str, str]) -> Settings:
    """Check the inputs and the environment before any build.

    Raises:
        BuildfixerError: A missing model, workspace or git checkout, a project outside the
            workspace, an input of the wrong form, or an event that names no default branch.
    """
    model = read_input(env, "model")
    if not model:
        raise BuildfixerError("the input `model` is required (e.g. openai/gpt-4.1, or recipes offline)")
    workspace = Path(env.get("GITHUB_WORKSPACE") or "")
    if not env.get("GITHUB_WORKSPACE") or not workspace.is_dir():
        raise BuildfixerError(
            f"GITHUB_WORKSPACE is not a directory: {str(workspace)!r} (run actions/checkout)"
        )
    project = (workspace / (read_input(env, "path") or ".")).resolve()
    if not project.is_relative_to(workspace.resolve()) or not project.is_dir():
        raise BuildfixerError(f"the input `path` is not a directory inside the workspace: {project}")
    top = git("rev-parse", "--show-toplevel", cwd=project, check=False).strip()
    if not top:
        raise BuildfixerError(f"{project} is not in a git checkout (run actions/checkout first)")
    calls = read_input(env, "max-calls") or "30"
    if not calls.isdigit() or int(calls) < 1:
        raise BuildfixerError(f"the input `max-calls` must be a positive whole number, not {calls!r}")
    open_pr = read_input(env, "open-pr").lower() or "true"
    if open_pr not in ("true", "false"):
        raise BuildfixerError(f"the input `open-pr` must be true or false, not {open_pr!r}")
    event = _event(env)
    default_branch = str((event.get("repository") or {}).get("default_branch") or "")
    root = Path(top).resolve()
    head = git("rev-parse", "--verify", "--quiet", "HEAD", cwd=root, check=False).strip()
    checked_out = git("symbolic-ref", "--quiet", "--short", "HEAD", cwd=root, check=False).strip()
    base, no_pull = plan_pull_request(env, event, head)
    if open_pr == "false":
        base, no_pull = "", "the input open-pr is false"
    elif base and not default_branch:
        raise BuildfixerError("the event (GITHUB_EVENT_PATH) names no repository.default_branch to protect")
    if base.startswith(BRANCH_PREFIX):
        raise BuildfixerError(f"refusing to repair {base}: it is a buildfixer branch (a fix of a fix)")
    temp = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())
    server = env.get("GITHUB_SERVER_URL", "https://github.com")
    repository = env.get("GITHUB_REPOSITORY", "")
    run_url = f"{server}/{repository}/actions/runs/{env.get('GITHUB_RUN_ID', '')}"
    agent = read_input(env, "agent") or "tool"
    branch = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF_NAME", "")
    artifact = env.get("BUILDFIXER_ARTIFACT_NAME") or "buildfixer"
    folder = project.relative_to(root).as_posix() if project.is_relative_to(root) else str(project)
    run = RunInfo(
        repository, branch, head or env.get("GITHUB_SHA", ""), run_url, model, agent, artifact, folder
    )
    return Settings(
        model, read_input(env, "api-key"), read_input(env, "api-base"), project, root, agent,
        read_input(env, "toolset"), int(calls), read_input(env, "judge-model"), temp / "buildfixer",
        run, default_branch, checked_out, base, no_pull,
    )  # fmt: skip


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BuildfixerError(f"cannot read the event GITHUB_EVENT_PATH={path}: {exc}") from exc
    return event if isinstance(event, dict) else {}


def fix_argv(settings: Settings) -> list[str]:
    """`buildfixer fix` as this action runs it: JSON out, trajectory into the artifacts."""
    argv = [sys.executable, "-m", "buildfixer", "fix", str(settings.project), "--model", settings.model,
            "--agent", settings.agent, "--max-calls", str(settings.max_calls), "--json",
            "--trajectory", str(settings.artifacts / "trajectory.json")]  # fmt: skip
    if settings.toolset:
        argv += ["--toolset", settings.toolset]
    if settings.judge_model:
        argv += ["--judge-model", settings.judge_model]
    # --pr commits the repair on a new branch; without a pull request the patch alone is wanted.
    return [*argv, "--pr" if settings.base else "--dry-run"]


def fix_environment(env: Mapping[str, str], settings: Settings, gh_config: Path) -> dict[str, str]:
    """The environment of `buildfixer fix`: the key under buildfixer's name, no GitHub token.

    Without a token and with an empty gh configuration, `fix --pr` only makes the branch: the push
    is done here, after `check_push_target`.
    """
    child = {k: v for k, v in env.items() if not k.startswith("INPUT_") and k not in _TOKEN_VARIABLES}
    child["GH_CONFIG_DIR"] = str(gh_config)
    child["GH_PROMPT_DISABLED"] = "1"
    if settings.api_key:
        child["BUILDFIXER_API_KEY"] = settings.api_key
    if settings.api_base:
        child["BUILDFIXER_API_BASE"] = settings.api_base
    child.setdefault("BUILDFIXER_CACHE_DIR", str(settings.artifacts.parent / "buildfixer-cache"))
    return child


def run_fix(
    argv: list[str], env: dict[str, str], log: TextIO, secrets: list[str]
) -> tuple[int, dict[str, Any] | None, str]:
    """Run the repair; its progress goes to the log as it comes. Returns (exit code, JSON, last line)."""
    # The JSON goes to a file, not a pipe: a large patch would fill a pipe nobody reads meanwhile.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as stdout:
        with subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True) as proc:
            assert proc.stderr is not None
            last = ""
            for line in proc.stderr:
                log.write(scrub(line, secrets))  # GitHub masks the key too; a local run has no mask
                log.flush()
                last = line.strip() or last
        stdout.seek(0)
        out = stdout.read()
    try:
        result = json.loads(out) if out.strip() else None
    except ValueError:
        result = None
    return proc.returncode, result if isinstance(result, dict) else None, last


def publish(settings: Settings, result: dict[str, Any], secrets: list[str]) -> tuple[str, str]:
    """Push the fix branch `fix --pr` made and open the pull request. Returns (URL, note).

    Raises:
        BuildfixerError: The branch is not one this action may push (see `check_push_target`).
    """
    made = result.get("pr") or {}
    branch, commit = str(made.get("branch") or ""), str(made.get("commit") or "")
    if not branch or not commit:
        if not str(result.get("patch") or "").strip():  # a flaky failure: the build passed as it is
            return "", "nothing to propose: the build succeeds without any change"
        return "", str(made.get("note") or "buildfixer fix made no branch")
    check_push_target(
        branch, default_branch=settings.default_branch, checked_out=settings.checked_out, base=settings.base
    )
    commit_message = git("log", "-1", "--format=%B", commit, cwd=settings.root)
    published = str(result.get("patch") or "") + commit_message  # what the push would make public
    if scrub(published, secrets) != published:
        return "", f"not pushed: the commit on {branch} holds a secret of this workflow"
    text = scrub(pull_request_text(commit_message, result, settings.run), secrets)
    pull = open_pull_request(settings.root, PullRequest(branch, commit, settings.base), text)
    return pull.url or "", pull.note


def main(env: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    """Run the action's step. Returns the exit code (0 repaired, 1 not repaired, 2 bad setup)."""
    env = dict(os.environ if env is None else env)
    out = out or sys.stdout
    key = read_input(env, "api-key")
    if key:  # first of all: GitHub then hides the key in every later line of the log
        out.write(f"::add-mask::{key}\n")
    secrets = [key, *(env.get(name, "") for name in _TOKEN_VARIABLES)]
    try:
        settings = settings_from(env)
    except BuildfixerError as exc:
        out.write(f"::error::{scrub(str(exc), secrets)}\n")
        return 2
    settings.artifacts.mkdir(parents=True, exist_ok=True)
    if settings.no_pull and read_input(env, "open-pr").lower() != "false":
        out.write(f"::warning::no pull request will be opened: {settings.no_pull}\n")
    out.flush()
    with tempfile.TemporaryDirectory(prefix="buildfixer-gh-") as gh_config:
        code, result, last = run_fix(
            fix_argv(settings), fix_environment(env, settings, Path(gh_config)), sys.stderr, secrets
        )
    if code == 2 or result is None:
        out.write(f"::error::buildfixer fix failed (exit {code}): {scrub(last, secrets)}\n")
        return 2 if code == 2 else 1
    resolved = bool(result.get("resolved"))
    url, note, refused = "", settings.no_pull, False
    if resolved and settings.base:
        try:
            url, note = publish(settings, result, secrets)
        except BuildfixerError as exc:  # the guard: nothing was pushed
            note, refused = str(exc), True
            out.write(f"::error::{scrub(note, secrets)}\n")
        if not url and not refused:
            out.write(f"::warning::{scrub(note, secrets)}\n")
    _write_results(settings, result, url, note, env, secrets)
    kind = (result.get("triage") or {}).get("class")
    if not resolved and kind in (FLAKY, INFRA):  # triage: reported, never patched
        basis = scrub(str(result["triage"].get("basis") or ""), secrets)
        out.write(f"::warning::buildfixer did not patch the build: the failure is {kind}: {basis}\n")
    elif not resolved:
        reason = str(result.get("stop_reason") or result.get("stop") or "")
        out.write(f"::error::buildfixer could not repair the build: {scrub(reason, secrets)}\n")
    out.write(
        f"buildfixer: {'repaired' if resolved else 'not repaired'}; artifacts in {settings.artifacts}\n"
    )
    return 2 if refused else 0 if resolved else 1


def _write_results(
    settings: Settings,
    result: dict[str, Any],
    url: str,
    note: str,
    env: Mapping[str, str],
    secrets: list[str],
) -> None:
    """The artifacts, the step outputs and the job summary, each scrubbed of the secrets."""
    patch_path = settings.artifacts / "fix.patch"
    patch_path.write_text(scrub(str(result.get("patch") or ""), secrets), encoding="utf-8")
    trajectory = settings.artifacts / "trajectory.json"
    if trajectory.is_file():  # redacted by buildfixer already; scrubbed again as a second line of defence
        trajectory.write_text(scrub(trajectory.read_text(encoding="utf-8"), secrets), encoding="utf-8")
    made = result.get("pr") or {}
    record = {**result, "pull_request_url": url or None, "pull_request_note": note, "base": settings.base}
    (settings.artifacts / "result.json").write_text(scrub(json.dumps(record, indent=2), secrets) + "\n")
    pull = url or (f"not opened: {note}" if note else "not opened")
    values = {
        "resolved": "true" if result.get("resolved") else "false",
        "patch-path": str(patch_path),
        "trajectory-path": str(trajectory) if trajectory.is_file() else "",
        "artifacts-path": str(settings.artifacts),
        "pr-url": url,
        "branch": str(made.get("branch") or ""),
        "judge": ""
        if not result.get("judge")
        else ("approved" if result["judge"].get("approved") else "rejected"),
    }
    if env.get("GITHUB_OUTPUT"):
        write_outputs(Path(env["GITHUB_OUTPUT"]), {k: scrub(v, secrets) for k, v in values.items()})
    if env.get("GITHUB_STEP_SUMMARY"):
        with Path(env["GITHUB_STEP_SUMMARY"]).open("a", encoding="utf-8") as summary:
            summary.write(scrub(summary_markdown(result, settings.run, pull), secrets))


if __name__ == "__main__":
    sys.exit(main())
