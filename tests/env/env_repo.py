"""A small Python repository whose tests fail, for the environment's tests (its fixture: conftest.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

BROKEN = "def mean(values):\n    return sum(values) // len(values)\n"
TEST = "from stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """An assistant message that calls one tool (an action of the environment)."""
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c-{name}", "type": "function", "function": function}],
    }


def git(repo: Path, *args: str) -> str:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    return subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def make_instance(root: Path) -> dict[str, Any]:
    """The repository at `root/stats`, committed, as a dataset row."""
    repo = root / "stats"
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "stats"\nversion = "1"\n')
    (repo / "stats.py").write_text(BROKEN)
    (repo / "tests" / "test_stats.py").write_text(TEST)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "broken")
    base = git(repo, "rev-parse", "HEAD").strip()
    return {"instance_id": "stats-1", "repo": str(repo), "base_commit": base, "build_system": "python"}


UTIL = "def double(value):\n    return value + 2\n"
UTIL_TEST = "from util import double\n\n\ndef test_double():\n    assert double(3) == 6\n"


def make_two_error_instance(root: Path) -> dict[str, Any]:
    """The repository of `make_instance` with a second, unrelated failure (`util.double`)."""
    instance = make_instance(root)
    repo = Path(instance["repo"])
    (repo / "util.py").write_text(UTIL)
    (repo / "tests" / "test_util.py").write_text(UTIL_TEST)
    project = (
        '[project]\nname = "stats"\nversion = "1"\n\n[tool.setuptools]\npy-modules = ["stats", "util"]\n'
    )
    (repo / "pyproject.toml").write_text(project)  # two top-level modules: say which
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a second failure")
    return {**instance, "instance_id": "stats-2", "base_commit": git(repo, "rev-parse", "HEAD").strip()}
