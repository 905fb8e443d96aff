"""The README's library example runs as written (real builds), and the API refuses bad settings."""

import re
from pathlib import Path

import pytest

import buildfixer
from buildfixer.core.errors import BuildfixerError

README = Path(__file__).resolve().parents[1] / "README.md"


def _library_example() -> str:
    section = README.read_text().split("## As a library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "the README's library section has no Python example"
    return match.group(1)


@pytest.mark.slow
def test_the_readme_library_example_runs(tmp_path, monkeypatch, capsys):
    code = _library_example().replace("/tmp/api-demo", str(tmp_path))
    monkeypatch.chdir(README.parent)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the documented example, verbatim
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "failure library_unavailable pyproject.toml:12"
    assert printed[1] == "True resolved"
    assert printed[2] == "diff --git a/pyproject.toml b/pyproject.toml"
    assert "'1': 1.0" in printed[-1]


def test_the_api_checks_settings_before_building(tmp_path):
    with pytest.raises(BuildfixerError, match="unknown toolset"):
        buildfixer.fix(tmp_path, toolset="typo")
    with pytest.raises(AttributeError):
        buildfixer.no_such_function  # noqa: B018


def test_every_api_name_is_reachable_from_the_package():
    """`buildfixer.X` lists its names without importing the API; the list must match the API's own."""
    from buildfixer import api

    assert set(api.__all__) == buildfixer._API
    assert all(getattr(buildfixer, name) is getattr(api, name) for name in api.__all__)
