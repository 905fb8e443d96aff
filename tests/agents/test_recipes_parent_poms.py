"""What a parent POM outside the project gives: the recipes write through it, never past it.

The parent (and a BOM it imports) is in a local Maven repository, as a real build leaves it:
- `deps.maven_parents` reads its properties and dependencyManagement through the chain;
- a removed dependency whose version came from the parent comes back through the same property
  (or without a version when the parent manages it), not at an older commit's literal (a
  downgrade: junit 4.12 under a parent's 4.13.2);
- a version broken from `${version.x}` to a missing literal comes back as `${version.x}` when that
  is the nearest published version;
- a new <dependency> is indented like the file, one stray tab line notwithstanding.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from recipe_support import apply_repair, failed, offline, write

from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError
from buildfixer.deps.maven import add_pom_dependency
from buildfixer.deps.maven_parents import inherited_properties, managed_version, resolve
from support.git import Repo

LANG3 = "org.apache.commons:commons-lang3"
SOURCE = (
    "package demo;\n\nimport org.apache.commons.lang3.StringUtils;\n\npublic class App {\n"
    "    public static String shout(String s) { return StringUtils.upperCase(s); }\n}\n"
)
ERROR = BuildError(
    "package org.apache.commons.lang3 does not exist", "library_unavailable", "javac",
    "src/main/java/demo/App.java", 3,
)  # fmt: skip
POM = """<project>
    <modelVersion>4.0.0</modelVersion>
    <parent>
        <groupId>org.example</groupId>
        <artifactId>oss-parent</artifactId>
        <version>7</version>
    </parent>
    <artifactId>app</artifactId>
    <properties>
	<own.value>1</own.value>
    </properties>
    <dependencies>{deps}
    </dependencies>
</project>
"""
OSS_PARENT = """<project>
  <parent><groupId>org.example</groupId><artifactId>root</artifactId><version>1</version></parent>
  <artifactId>oss-parent</artifactId><version>7</version><packaging>pom</packaging>
  <properties><version.lang3>3.12.0</version.lang3><own.value>parent's</own.value></properties>
  {management}
</project>
"""
ROOT = """<project><groupId>org.example</groupId><artifactId>root</artifactId><version>1</version>
  <properties><version.bom>2</version.bom><version.lang3>3.9</version.lang3></properties>
</project>
"""
BOM = """<project><groupId>org.example</groupId><artifactId>bom</artifactId><version>2</version>
  <properties><text.version>1.10.0</text.version></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-text</artifactId>
      <version>${text.version}</version></dependency>
  </dependencies></dependencyManagement>
</project>
"""
IMPORT_BOM = """<dependencyManagement><dependencies>
    <dependency><groupId>org.example</groupId><artifactId>bom</artifactId><version>${version.bom}</version>
      <type>pom</type><scope>import</scope></dependency>
  </dependencies></dependencyManagement>"""
MANAGE_LANG3 = """<dependencyManagement><dependencies>
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId>
      <version>${version.lang3}</version></dependency>
  </dependencies></dependencyManagement>"""


def _dep(version: str | None) -> str:
    written = f"\n            <version>{version}</version>" if version else ""
    return (
        "\n        <dependency>\n            <groupId>org.apache.commons</groupId>\n"
        f"            <artifactId>commons-lang3</artifactId>{written}\n        </dependency>"
    )


def _repository(options: BuildOptions, management: str = "") -> Path:
    """The local repository a build left: the parents, the BOM, commons-lang3 3.9 and 3.12.0."""
    repo = options.cache_dir / "m2" / "repository"
    poms = {
        "org/example/oss-parent/7/oss-parent-7.pom": OSS_PARENT.format(management=management),
        "org/example/root/1/root-1.pom": ROOT,
        "org/example/bom/2/bom-2.pom": BOM,
    }
    write(repo, poms)
    for version in ("3.9", "3.12.0"):
        base = repo / "org/apache/commons/commons-lang3" / version
        base.mkdir(parents=True, exist_ok=True)
        (base / f"commons-lang3-{version}.pom").write_text("<project/>")
        with zipfile.ZipFile(base / f"commons-lang3-{version}.jar", "w") as jar:
            jar.writestr("org/apache/commons/lang3/StringUtils.class", b"\xca\xfe\xba\xbe")
    return repo


@pytest.fixture
def options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildOptions:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the user's ~/.m2 out of sight
    return offline(tmp_path)


def _lang3(pom: Path) -> str | None:
    block = re.search(
        r"<dependency>\s*<groupId>org.apache.commons</groupId>.*?</dependency>", pom.read_text(), re.S
    )
    assert block is not None, pom.read_text()
    version = re.search(r"<version>([^<]+)</version>", block.group(0))
    return version.group(1) if version else None


def test_the_chain_of_parents_gives_properties_and_managed_versions(
    tmp_path: Path, options: BuildOptions
) -> None:
    repo = _repository(options, IMPORT_BOM)
    write(tmp_path / "p", {"pom.xml": POM.format(deps="")})
    pom = tmp_path / "p" / "pom.xml"
    found = inherited_properties(pom, [repo])
    # The nearest definition wins: the pom's own, then oss-parent's, then root's.
    assert found["own.value"] == "1" and found["version.lang3"] == "3.12.0" and found["version.bom"] == "2"
    assert resolve("${version.lang3}", found) == "3.12.0" and resolve("${nowhere}", found) is None
    # commons-text is managed by the BOM the parent imports through root's ${version.bom}.
    assert managed_version(pom, [repo], "org.apache.commons:commons-text") == "1.10.0"
    assert managed_version(pom, [repo], LANG3) is None
    assert inherited_properties(pom, []) == {"own.value": "1"}  # no repository: the pom alone


def test_removed_dependency_comes_back_through_the_parents_property(
    tmp_path: Path, options: BuildOptions
) -> None:
    _repository(options)
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.9", {"pom.xml": POM.format(deps=_dep("3.9")), "src/main/java/demo/App.java": SOURCE})
    repo.commit("through the parent", {"pom.xml": POM.format(deps=_dep("${version.lang3}"))})
    repo.commit("dropped", {"pom.xml": POM.format(deps="")})
    repair = diagnose(root, failed(root, "maven", "x", [ERROR]), options, origin=root)
    assert repair is not None and repair.recipe == "undeclared-dependency"
    apply_repair(root, repair, options)
    assert _lang3(root / "pom.xml") == "${version.lang3}"  # 3.12.0 from the parent, not 3.9


def test_removed_dependency_a_parent_manages_comes_back_without_a_version(
    tmp_path: Path, options: BuildOptions
) -> None:
    _repository(options, MANAGE_LANG3)
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.9", {"pom.xml": POM.format(deps=_dep("3.9")), "src/main/java/demo/App.java": SOURCE})
    repo.commit("managed", {"pom.xml": POM.format(deps=_dep(None))})
    repo.commit("dropped", {"pom.xml": POM.format(deps="")})
    repair = diagnose(root, failed(root, "maven", "x", [ERROR]), options, origin=root)
    assert repair is not None
    apply_repair(root, repair, options)
    text = (root / "pom.xml").read_text()
    assert _lang3(root / "pom.xml") is None, text
    # Indented like the file (spaces), the stray tab of <own.value> notwithstanding.
    assert "\n            <artifactId>commons-lang3</artifactId>" in text and "\t<groupId>" not in text


def test_a_broken_property_version_comes_back_as_the_property(tmp_path: Path, options: BuildOptions) -> None:
    _repository(options)
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("through the parent", {
        "pom.xml": POM.format(deps=_dep("${version.lang3}")), "src/main/java/demo/App.java": SOURCE,
    })  # fmt: skip
    write(root, {"pom.xml": POM.format(deps=_dep("3.99"))})  # the user's edit, not committed
    log = f"Could not find artifact {LANG3}:jar:3.99 in central (https://repo.maven.apache.org/maven2)\n"
    repair = diagnose(root, failed(root, "maven", log), options, origin=root)
    assert repair is not None and repair.recipe == "missing-version", repair
    assert "${version.lang3} = 3.12.0" in repair.summary
    apply_repair(root, repair, options)
    assert _lang3(root / "pom.xml") == "${version.lang3}"


def test_a_new_dependency_is_indented_like_most_of_the_file(tmp_path: Path) -> None:
    write(tmp_path, {"pom.xml": POM.format(deps=_dep("1"))})
    edit = add_pom_dependency(tmp_path, tmp_path / "pom.xml", "junit:junit", "4.13.2", test=True)
    assert "\n            <groupId>junit</groupId>" in edit.new_text, edit
    tabbed = (
        "<project>\n\t<modelVersion>4.0.0</modelVersion>\n\t<artifactId>a</artifactId>\n\t<dependencies>\n"
    )
    write(tmp_path, {"pom.xml": tabbed + "\t</dependencies>\n</project>\n"})
    edit = add_pom_dependency(tmp_path, tmp_path / "pom.xml", "junit:junit", "4.13.2", test=True)
    assert "\n\t\t\t<groupId>junit</groupId>" in edit.new_text, edit
