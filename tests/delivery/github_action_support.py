"""A GitHub Actions job, locally: a checkout with a bare `origin`, the env GitHub sets, a stand-in `gh`.

This network has no GitHub. `origin` is a local bare repository, `gh` a script on PATH that records
its arguments (and, like the real one, is logged in only when GH_TOKEN is set), and the variables
GitHub sets point at files in the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from support.git import Repo, git
from support.model import scripted, write_file
from support.projects import RIGHT, stats_project

# One record per call (ended by \036), its arguments apart (each ended by \037): a body has newlines.
GH = """#!/bin/sh
for arg in "$@"; do printf '%s\\037' "$arg"; done >> "{log}"
printf '\\036' >> "{log}"
case "$1 $2" in
  "auth status") [ -n "$GH_TOKEN" ] || exit 1 ;;
  "pr create") echo "https://github.example/team/stats/pull/7" ;;
esac
"""
# A key of no known shape: only buildfixer's value-based redaction and the action's scrub can hide it.
API_KEY = "bfcanary" + secrets.token_hex(16)
GH_TOKEN = "ghcanary" + secrets.token_hex(16)


def make_repo(tmp_path: Path, folder: str = "", pushed: bool = True) -> Path:
    """A repository (main) holding the stats project (in `folder`), and a bare `origin`.

    Pushed: `origin` has main, as in a checkout; else it has nothing yet.
    """
    root = tmp_path / "repo"
    stats_project(root / folder)
    if folder:
        (root / "README.md").write_text("stats\n")
    repo = Repo(root)
    repo.commit("stats")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(tmp_path / "origin.git"))
    repo.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    if pushed:
        repo.git("push", "-q", "origin", "main")
    return root


def repair_script(tmp_path: Path, repaired: bool = True) -> str:
    """Scripted model replies (the model spec): write the fix (or give up), then a last word with the key.

    The key in the model's words stands for a leak: redaction must keep it out of every file.
    """
    replies = [write_file("stats.py", RIGHT)] if repaired else []
    replies.append({"content": f"mean() divides without flooring (key {API_KEY})."})
    return scripted(tmp_path / "script.json", replies)


@dataclass
class Job:
    """One run of the action's entry script and the files it wrote."""

    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    gh_calls: list[list[str]]

    def gh(self, *command: str) -> list[list[str]]:
        """The calls of `gh COMMAND...` (e.g. "pr", "create"), each its whole argument list."""
        return [call for call in self.gh_calls if call[: len(command)] == list(command)]


def github_env(
    tmp_path: Path, event_name: str, ref: str, event: Mapping[str, object], **inputs: str
) -> dict[str, str]:
    """The variables GitHub sets for a step, plus the action's inputs (INPUT_MODEL=...)."""
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(GH.format(log=tmp_path / "gh.log"))
    gh.chmod(0o755)
    event_path = runner / "event.json"
    event_path.write_text(json.dumps(event))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_", "GH_"))}
    env = {
        **base,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "BUILDFIXER_MEMORY": str(tmp_path / "fixes.sqlite3"),
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_WORKSPACE": str(tmp_path / "repo"),
        "GITHUB_REPOSITORY": "team/stats",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REF": ref,
        "GITHUB_REF_NAME": ref.rsplit("/", 1)[-1],
        "GITHUB_RUN_ID": "4242",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "RUNNER_TEMP": str(runner / "temp"),
        "GH_TOKEN": GH_TOKEN,
    }
    (runner / "temp").mkdir(exist_ok=True)
    if (tmp_path / "repo" / ".git").exists():
        env["GITHUB_SHA"] = git(tmp_path / "repo", "rev-parse", "HEAD")
    env.update({"INPUT_" + name.upper(): value for name, value in inputs.items()})
    return env


def run_action(tmp_path: Path, env: dict[str, str]) -> Job:
    """Run the entry script as the composite action does, and read back what it wrote."""
    cmd = [sys.executable, "-m", "buildfixer.delivery.github_action"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    return read_job(tmp_path, env, done.returncode, done.stdout, done.stderr)


def read_job(tmp_path: Path, env: dict[str, str], code: int, stdout: str, stderr: str) -> Job:
    """What a step wrote: its outputs, the job summary and the stand-in gh's calls."""
    output, summary, log = Path(env["GITHUB_OUTPUT"]), Path(env["GITHUB_STEP_SUMMARY"]), tmp_path / "gh.log"
    return Job(
        code,
        stdout,
        stderr,
        parse_outputs(output.read_text()) if output.exists() else {},
        summary.read_text() if summary.exists() else "",
        [record.split("\037")[:-1] for record in log.read_text().split("\036")[:-1]] if log.exists() else [],
    )


def parse_outputs(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT file as the runner does: `name=value` and `name<<DELIMITER` blocks."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        heredoc = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if heredoc is None:
            name, _, value = line.partition("=")
            values[name] = value
            continue
        name, delimiter = heredoc.groups()
        body = []
        for inner in lines:
            if inner == delimiter:
                break
            body.append(inner)
        else:
            raise AssertionError(f"output {name}: delimiter {delimiter} never closes")
        values[name] = "\n".join(body)
    return values


def files_under(*roots: Path) -> list[Path]:
    """Every regular file below the given folders (or the files themselves)."""
    found: list[Path] = []
    for root in roots:
        if root.is_file():
            found.append(root)
        elif root.is_dir():
            found += [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    return found


ACTION = Path(__file__).resolve().parents[2] / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def evaluate(text: str, inputs: dict[str, str], env: dict[str, str]) -> str:
    """Expand the few `${{ ... }}` expressions action.yml uses, as the runner would for this job."""
    context = {
        "github.token": env.get("GH_TOKEN", ""),
        "github.job": "build",
        "github.run_attempt": "1",
        "github.action_path": str(ACTION.parent),
        "runner.temp": env["RUNNER_TEMP"],
    }

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        if name not in context:
            raise AssertionError(f"action.yml uses an expression this stand-in runner does not know: {name}")
        return context[name]

    return _EXPRESSION.sub(value, text)


def run_composite_steps(tmp_path: Path, env: dict[str, str], given: dict[str, str], *names: str) -> Job:
    """Run the named `run:` steps of action.yml with bash, as the runner runs a composite action.

    The inputs get action.yml's defaults; each step's `env:` is expanded; the interpreter the
    install step would have made in `$RUNNER_TEMP/buildfixer-venv` is this test's Python.
    """
    action = yaml.safe_load(ACTION.read_text())
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs = {name: evaluate(value, {}, env) for name, value in inputs.items()} | given
    venv_bin = Path(env["RUNNER_TEMP"]) / "buildfixer-venv" / "bin"
    venv_bin.mkdir(parents=True, exist_ok=True)
    (venv_bin / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv_bin / "python").chmod(0o755)
    steps = {step.get("id") or step["name"]: step for step in action["runs"]["steps"]}
    code, stdout, stderr = 0, "", ""
    for name in names:
        step = steps[name]
        step_env = {**env, **{k: evaluate(str(v), inputs, env) for k, v in (step.get("env") or {}).items()}}
        # GitHub runs `shell: bash` steps as `bash --noprofile --norc -eo pipefail {0}`.
        script = tmp_path / "step.sh"
        script.write_text(evaluate(step["run"], inputs, env))
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=step_env)
        code, stdout, stderr = done.returncode, stdout + done.stdout, stderr + done.stderr
        if code != 0:
            break
    return read_job(tmp_path, env, code, stdout, stderr)
