"""Builds buildfixer runs speak English whatever the caller's locale (the analyzer reads English)."""

import json
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.buildsys.sandbox.variables import build_environment

PYPROJECT = """[project]
name = "localeprobe"
version = "0.1.0"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
"""
# A test that records the environment the build gave it, in the project (the one writable place).
PROBE = """import json, os, pathlib

def test_records_locale():
    seen = {name: os.environ.get(name) for name in ("LC_ALL", "LANG", "LANGUAGE", "LC_MESSAGES")}
    pathlib.Path(__file__).with_name("seen.json").write_text(json.dumps(seen))
"""


def test_caller_locale_is_replaced_by_english(monkeypatch) -> None:
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de:fr")
    env = build_environment()
    assert env["LC_ALL"] == "C.UTF-8" and "LANGUAGE" not in env
    assert build_environment({"LC_ALL": "ja_JP.UTF-8"})["LC_ALL"] == "ja_JP.UTF-8"  # an explicit extra wins


@pytest.mark.slow
def test_a_real_build_runs_in_english(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    project = tmp_path / "probe"
    (project / "src" / "localeprobe").mkdir(parents=True)
    (project / "src" / "localeprobe" / "__init__.py").write_text("")
    (project / "tests").mkdir()
    (project / "tests" / "test_locale.py").write_text(PROBE)
    (project / "pyproject.toml").write_text(PYPROJECT)
    result = build_project(project, BuildOptions())
    assert result.ok, Path(result.log_path).read_text(errors="replace")[-3000:]
    seen = json.loads((project / "tests" / "seen.json").read_text())
    assert seen["LC_ALL"] == "C.UTF-8" and seen["LANGUAGE"] is None
