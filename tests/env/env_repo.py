"""A small Python repository whose tests fail, for the environment's tests (its fixture: conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.git import Repo
from support.projects import PYPROJECT, stats_project


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """An assistant message that calls one tool (an action of the environment)."""
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c-{name}", "type": "function", "function": function}],
    }


def make_instance(root: Path) -> dict[str, Any]:
    """The repository at `root/stats`, committed, as a dataset row."""
    return _instance(Repo(stats_project(root / "stats")))


def _instance(repo: Repo) -> dict[str, Any]:
    base = repo.commit("broken")
    return {"instance_id": "stats-1", "repo": str(repo.path), "base_commit": base, "build_system": "python"}


UTIL = "def double(value):\n    return value + 2\n"
UTIL_TEST = "from util import double\n\n\ndef test_double():\n    assert double(3) == 6\n"


def make_two_error_instance(root: Path) -> dict[str, Any]:
    """The repository of `make_instance` with a second, unrelated failure (`util.double`)."""
    repo = Repo(stats_project(root / "stats"))
    instance = _instance(repo)
    two_modules = PYPROJECT + '\n[tool.setuptools]\npy-modules = ["stats", "util"]\n'  # say which
    files = {"util.py": UTIL, "tests/test_util.py": UTIL_TEST, "pyproject.toml": two_modules}
    return {**instance, "instance_id": "stats-2", "base_commit": repo.commit("a second failure", files)}
