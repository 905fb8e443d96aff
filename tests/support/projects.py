"""The small projects many tests repair.

`stats_project`: Python, its `mean` floors, so `test_mean` fails. `npm_project`: npm, its build
(`node --check app.js`) fails on a stray brace.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.git import git

PYPROJECT = '[project]\nname = "stats"\nversion = "1"\n'
FLOORED = "def mean(values):\n    return sum(values) // len(values)\n"  # test_mean fails
RIGHT = "def mean(values):\n    return sum(values) / len(values)\n"
TEST = "from stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"


def stats_project(root: Path, stats: str = FLOORED, test: str = TEST) -> Path:
    """Write the project at root (pyproject.toml, stats.py, tests/test_stats.py); returns root."""
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "stats.py").write_text(stats)
    (root / "tests" / "test_stats.py").write_text(test)
    return root


def broken(project: Path, stats: str) -> Path:
    """The stats project (a git checkout) at a new commit whose stats.py is `stats`, clean otherwise."""
    git(project, "reset", "-q", "--hard")
    git(project, "clean", "-qfdx", "-e", ".venv")
    (project / "stats.py").write_text(stats)
    git(project, "commit", "-qam", "break", "--allow-empty")
    return project


BROKEN_JS = "function total(a, b) {\n  return a + b\n}}\n"
FIXED_JS = "function total(a, b) {\n  return a + b\n}\n"


def npm_project(root: Path, app: str = BROKEN_JS) -> Path:
    """Write the project at root (package.json, app.js); returns root."""
    root.mkdir(parents=True, exist_ok=True)
    package = {"name": "demo", "version": "1.0.0", "scripts": {"build": "node --check app.js"}}
    (root / "package.json").write_text(json.dumps(package))
    (root / "app.js").write_text(app)
    return root
