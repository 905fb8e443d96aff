"""The dependency tools on real builds: the failing build passes after the tool's edit, and only then.

Gradle 4.4.1 (the Gradle here) ignores Kotlin DSL scripts and predates version catalogs, and the
Gradle distributions server is out of this network's reach (`upgrade_gradle` cannot be followed by
a build): those forms are tested on their files only (tests/deps/test_deps.py,
tests/tools/test_build_tools.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.examples import get_example, materialize
from buildfixer.tools.dependency import dependency_tools
from support.tools import tool_context, tools_by_name


def call(root: Path, system: str, tool: str, **arguments: str) -> str:
    tools = tools_by_name(tool_context(root, system), dependency_tools)
    return tools[tool].call(arguments)


def status(root: Path, system: str) -> str:
    return build_and_analyze(root, BuildOptions(), system)[0].status


def managed(pom: str) -> str:
    """The maven example's pom with commons-lang3's version held in <dependencyManagement>."""
    declared = re.search(
        r"\s*<dependency>\s*<groupId>org.apache.commons</groupId>.*?</dependency>", pom, re.S
    )
    assert declared
    block = declared.group(0)
    unversioned = re.sub(r"\s*<version>[^<]*</version>", "", block)
    pom = pom.replace(block, unversioned)
    management = f"\n  <dependencyManagement>\n    <dependencies>{block}\n    </dependencies>"
    management += "\n  </dependencyManagement>"
    return pom.replace("\n  <dependencies>", management + "\n  <dependencies>", 1)


CASES = {
    # example, build system, tool arguments, a file and the text it must hold afterwards
    "maven-version": ("maven-app/missing-version", "maven", {"dependency": "org.apache.commons:commons-lang3",
                      "version": "3.12.0"}, "pom.xml", "<version>3.12.0</version>"),
    "maven-property": ("kotlin-app/missing-version", "maven",
                       {"dependency": "org.jetbrains.kotlin:kotlin-stdlib", "version": "1.9.24"},
                       "pom.xml", "<kotlin.version>1.9.24</kotlin.version>"),
    "gradle-groovy": ("gradle-app/missing-version", "gradle", {"dependency": "gson", "version": "2.8.9"},
                      "build.gradle", "com.google.code.gson:gson:2.8.9"),
    "pyproject": ("python-app/missing-version", "python", {"dependency": "packaging", "version": "23.2"},
                  "pyproject.toml", '"packaging==23.2"'),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_dependency_upgrade_makes_the_failing_build_pass(case: str, tmp_path: Path) -> None:
    example, system, arguments, path, expected = CASES[case]
    root = materialize(get_example(example), tmp_path / "project")  # fails as it is (test_fix_examples)
    out = call(root, system, "dependency_upgrade", **arguments)
    assert expected in (root / path).read_text(), out
    assert status(root, system) == "success"


@pytest.mark.slow
def test_dependency_upgrade_edits_dependency_management(tmp_path: Path) -> None:
    root = materialize(get_example("maven-app/missing-version"), tmp_path / "project")
    pom = root / "pom.xml"
    pom.write_text(managed(pom.read_text()))
    assert "<dependencyManagement>" in pom.read_text() and status(root, "maven") == "failure"
    call(root, "maven", "dependency_upgrade", dependency="org.apache.commons:commons-lang3", version="3.12.0")
    managed_block = pom.read_text().split("</dependencyManagement>")[0]
    assert "<version>3.12.0</version>" in managed_block
    assert status(root, "maven") == "success"


@pytest.mark.slow
def test_remove_dependency_drops_an_unpublished_one_and_the_build_passes(tmp_path: Path) -> None:
    root = materialize(get_example("maven-app/missing-version"), tmp_path / "project")
    pom = root / "pom.xml"
    call(root, "maven", "dependency_upgrade", dependency="org.apache.commons:commons-lang3", version="3.12.0")
    unused = (
        "\n    <dependency>\n      <groupId>com.example.nowhere</groupId>\n"
        "      <artifactId>never-published</artifactId>\n      <version>1.0</version>\n    </dependency>"
    )
    pom.write_text(pom.read_text().replace("\n  <dependencies>", "\n  <dependencies>" + unused, 1))
    assert status(root, "maven") == "failure"
    out = call(root, "maven", "remove_dependency", dependency="com.example.nowhere:never-published")
    assert "never-published" not in pom.read_text(), out
    assert status(root, "maven") == "success"


@pytest.mark.slow
def test_dependency_upgrade_in_package_json_updates_the_lockfile(tmp_path: Path) -> None:
    root = materialize(get_example("npm-app/missing-version"), tmp_path / "project")  # typescript 5.4.9
    out = call(root, "npm", "dependency_upgrade", dependency="typescript", version="5.4.5")
    assert '"typescript": "5.4.5"' in (root / "package.json").read_text()
    assert "package-lock.json updated" in out
    lock = (root / "package-lock.json").read_text()
    assert '"version": "5.4.5"' in lock and "5.4.9" not in lock
    assert status(root, "npm") == "success"  # npm ci accepts the lockfile
