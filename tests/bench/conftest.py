"""A tiny real Python repository with two broken commits, as a benchmark dataset for runner tests."""

import os
import subprocess

import pytest

GOOD = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b)\n    return a + b\n"
PYPROJECT = """[project]
name = "tinycalc"
version = "0.1.0"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
"""


def _git(cwd, *args):
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00",
    }
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    _git(repo, "init", "-q")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "src" / "tinycalc").mkdir(parents=True)
    (repo / "src" / "tinycalc" / "__init__.py").write_text(GOOD)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "good")
    instances = []
    for number, broken in enumerate([BROKEN, GOOD.replace("a + b", "a +* b")]):
        (repo / "src" / "tinycalc" / "__init__.py").write_text(broken)
        _git(repo, "commit", "-qam", f"break {number}")
        base = _git(repo, "rev-parse", "HEAD")
        (repo / "src" / "tinycalc" / "__init__.py").write_text(GOOD)
        _git(repo, "commit", "-qam", f"fix {number}")
        fix = _git(repo, "rev-parse", "HEAD")
        instances.append({
            "instance_id": f"tinycalc-{number}", "repo": str(repo), "base_commit": base, "fix_commit": fix,
            "gold_patch": _git(repo, "diff", base, fix) + "\n", "origin": "human", "category": "syntax",
            "build_system": "python", "build_command": None, "jdk": None, "error_log": "",
            "files_changed": 1, "lines_changed": 2, "created_at": "2024-01-01T00:00:00", "split": "test",
        })  # fmt: skip
    return repo, instances
