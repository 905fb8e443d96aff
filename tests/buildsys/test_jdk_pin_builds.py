"""`buildfixer build` honours the JDK a project pins: real Maven builds of a project needing Java 21.

The machine's default JDK (17) cannot compile it; the newer one installed (25 here) can, and a
`.java-version` naming it is enough for `buildfixer build` to pick it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from support.projects import maven_release_project

pytestmark = pytest.mark.slow  # every test runs real Maven builds

INSTALLED = sorted({j.version for j in discover_jdks()})
DEFAULT = default_jdk()
# The oldest installed JDK that compiles for Java 21.
NEWER = min((v for v in INSTALLED if v >= 21), default=None)


def build(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buildfixer", "build", str(project), *args],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if NEWER is None or DEFAULT is None or DEFAULT.version >= 21:
        pytest.skip("needs a default JDK older than 21 and a JDK 21 or newer")
    return maven_release_project(tmp_path / "shapes")


def test_without_a_pin_the_default_jdk_fails(project: Path) -> None:
    proc = build(project, "--json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["jdk"] == DEFAULT.version if DEFAULT else False
    assert "release version 21 not supported" in result["errors"][0]["message"]
    assert "jdk_pin" not in result["environment"]


def test_a_java_version_file_picks_the_jdk_and_jdk_still_overrides_it(project: Path) -> None:
    (project / ".java-version").write_text(f"{NEWER}\n")
    proc = build(project)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.stdout.startswith(f"SUCCESS maven, JDK {NEWER} (.java-version) in ")
    assert DEFAULT is not None
    named = build(project, "--jdk", str(DEFAULT.version), "--json")  # the option wins over the pin
    assert named.returncode == 1 and json.loads(named.stdout)["jdk"] == DEFAULT.version


def test_a_tool_versions_pin_of_a_missing_jdk_is_named(project: Path) -> None:
    missing = next(v for v in range(21, 99) if v not in INSTALLED)
    (project / ".tool-versions").write_text(f"java temurin-{missing}.0.1+12\n")
    proc = build(project)
    assert proc.returncode == 1
    found = ", ".join(map(str, INSTALLED))
    line = (
        f"note: the project pins JDK {missing} (.tool-versions), which is not installed here (found: {found})"
    )
    assert line in proc.stdout.replace("\n", " "), proc.stdout
