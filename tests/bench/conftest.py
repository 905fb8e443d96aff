"""A tiny real Python repository with two broken commits, as a benchmark dataset for runner tests."""

import pytest

from support.git import Repo

GOOD = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b)\n    return a + b\n"
PYPROJECT = """[project]
name = "tinycalc"
version = "0.1.0"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
"""


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("repo")
    repo = Repo(path)
    repo.commit("good", {"pyproject.toml": PYPROJECT, "src/tinycalc/__init__.py": GOOD})
    instances = []
    for number, broken in enumerate([BROKEN, GOOD.replace("a + b", "a +* b")]):
        base = repo.commit(f"break {number}", {"src/tinycalc/__init__.py": broken})
        fix = repo.commit(f"fix {number}", {"src/tinycalc/__init__.py": GOOD})
        instances.append({
            "instance_id": f"tinycalc-{number}", "repo": str(path), "base_commit": base, "fix_commit": fix,
            "gold_patch": repo.diff(base, fix), "origin": "human", "category": "syntax",
            "build_system": "python", "build_command": None, "jdk": None, "error_log": "",
            "files_changed": 1, "lines_changed": 2, "created_at": "2024-01-01T00:00:00", "split": "test",
        })  # fmt: skip
    return path, instances
