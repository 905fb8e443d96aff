"""The recipes make up no value: not for a property key, not for a restored dependency's version.

1. The missing-properties recipe writes a key only at a value the project itself has (another
   module's copy of the file, a gradle.properties, a pom's <properties>, git history); a key read
   with a default or defined by Maven, a parent POM or a profile is not the file's to provide, and
   without a value it declines: never a placeholder (a `0.0.0` would become the artifact's version).
2. A dependency removed from a module comes back at the version the project's other modules
   use, else the lockfile's, else the newest its history declared, never lower than any of these.

Unit tests on build files written here, and one real Maven build through the recipes agent for each.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest
from recipe_support import apply_repair, failed, offline, write

from buildfixer.agents.recipes.base import HistoryFolder
from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.agents.recipes.history import locked_gradle_version, past_jvm_declaration
from buildfixer.agents.recipes.properties import parse_properties, pom_properties, read_with_default
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.delivery.fix import fix_project
from buildfixer.harness.attempt import AttemptConfig
from support.git import Repo


@pytest.fixture
def private_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildOptions:
    """Offline, with caches of the test's own: the user's ~/.m2 and ~/.gradle out of sight."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)
    return offline(tmp_path)


# --- 1. a key read with a default ---------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    [
        "version = findProperty('app.version') ?: '1.0'",
        "version = project.findProperty('app.version')\n    ?: '1.0'",
        "version = project.hasProperty('app.version') ? project.property('app.version') : '1.0'",
        'val v = System.getProperty("app.version", "1.0")',
        "def v = props.getProperty('app.version', '1.0')",
        "def v = props['app.version'] ?: '1.0'",
        'val v = (props["app.version"] as String?) ?: "1.0"',
        'val v = props["app.version"]?.toString() ?: "1.0"',
        'val v = providers.gradleProperty("app.version").orElse("1.0").get()',
        'val v = providers.gradleProperty("app.version").map { it.trim() }.getOrElse("1.0")',
        "if (props.containsKey('app.version')) { version = props['app.version'] }",
    ],
)
def test_a_read_with_a_default_is_recognized(script: str) -> None:
    assert read_with_default([script], "app.version")


@pytest.mark.parametrize(
    "script",
    [
        "version = props['app.version']",
        "version = props.getProperty('app.version')",
        'val v = props.getProperty("app.version") ?: error("app.version is required")',
        'val v = props.getProperty("app.version") ?: throw GradleException("no version")',
        "def v = props['app.version'] + props['app.suffix'] ?: 'x'",  # the default is app.suffix's
        "def v = props.getProperty('app.versions', '1.0')",  # another key
    ],
)
def test_a_read_without_a_default_is_not(script: str) -> None:
    assert not read_with_default([script], "app.version")


def test_a_dotless_key_read_as_a_member_with_a_default() -> None:
    assert read_with_default(["def v = props.storeFile ?: 'debug.keystore'"], "storeFile")
    assert not read_with_default(["def v = props.storeFile"], "storeFile")


def test_properties_entries_are_read_as_written() -> None:
    text = "# a comment\n! another\napp.version = 2.4.0\nvendor:Acme Tools\nempty=\nlong=a\\\n  b\nbare\n"
    assert parse_properties(text) == {"app.version": "2.4.0", "vendor": "Acme Tools", "empty": "", "bare": ""}


def test_pom_properties_with_and_without_profiles() -> None:
    pom = (
        "<project><properties><a>1</a><b>x &amp; y</b><!-- <c>3</c> --></properties>"
        "<profiles><profile><properties><d>4</d></properties></profile></profiles></project>"
    )
    assert pom_properties(pom) == {"a": "1", "b": "x & y", "d": "4"}
    assert pom_properties(pom, profiles=False) == {"a": "1", "b": "x & y"}


GRADLE_READER = """def props = new Properties()
file('release.properties').withInputStream {{ props.load(it) }}
{read}
"""


def _gradle_failure(root: Path) -> BuildResult:
    log = f"> {root}/release.properties (No such file or directory)"
    return failed(root, "gradle", log)


@pytest.mark.parametrize(
    "read",
    [
        "version = props.getProperty('app.version', '1.0')",
        "version = props['app.version'] ?: '1.0'",
        "version = findProperty('app.version') ?: props['app.version']",
        "version = project.hasProperty('app.version') ? project.property('app.version')\n"
        "    : props['app.version']",
    ],
)
def test_gradle_key_with_a_default_declines_even_where_the_project_has_a_value(
    tmp_path: Path, read: str
) -> None:
    write(
        tmp_path,
        {"build.gradle": GRADLE_READER.format(read=read), "lib/release.properties": "app.version=2.4.0\n"},
    )
    assert diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path)) is None


def test_gradle_key_without_a_default_takes_another_modules_value(tmp_path: Path) -> None:
    write(tmp_path, {"build.gradle": GRADLE_READER.format(read="version = props['app.version']")})
    # No value anywhere in the project: declined, no placeholder.
    assert diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path)) is None
    write(tmp_path, {"lib/release.properties": "app.version=2.4.0\nother=1\n"})
    repair = diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path))
    assert repair is not None and repair.recipe == "missing-properties"
    (call,) = repair.calls
    assert call.tool == "write_file" and call.arguments["path"] == "release.properties"
    entries = parse_properties(call.arguments["content"])
    assert entries == {"app.version": "2.4.0"}, call.arguments["content"]
    assert "lib/release.properties" in repair.summary


def test_a_gradle_properties_value_is_the_projects_too(tmp_path: Path) -> None:
    write(tmp_path, {"build.gradle": GRADLE_READER.format(read="version = props['app.version']"),
                     "gradle.properties": "org.gradle.jvmargs=-Xmx1g\napp.version=3.1.0\n"})  # fmt: skip
    repair = diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path))
    assert repair is not None
    assert parse_properties(repair.calls[0].arguments["content"]) == {"app.version": "3.1.0"}


def test_two_values_or_only_a_tests_value_are_not_ours_to_take(tmp_path: Path) -> None:
    write(tmp_path, {"build.gradle": GRADLE_READER.format(read="version = props['app.version']"),
                     "a/release.properties": "app.version=1.0\n",
                     "b/release.properties": "app.version=2.0\n"})  # fmt: skip
    assert diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path)) is None  # two values
    (tmp_path / "b/release.properties").write_text("app.version=1.0\n")
    assert diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path)) is not None  # one value
    shutil.rmtree(tmp_path / "a")
    shutil.rmtree(tmp_path / "b")
    write(tmp_path, {"src/test/resources/release.properties": "app.version=9.9.9-test\n"})
    assert diagnose(tmp_path, _gradle_failure(tmp_path), offline(tmp_path)) is None  # a test fixture's


PLUGIN = """<plugin><groupId>org.codehaus.mojo</groupId><artifactId>properties-maven-plugin</artifactId>
        <version>1.2.1</version><executions><execution><phase>initialize</phase>
        <goals><goal>read-project-properties</goal></goals>
        <configuration><files><file>${project.basedir}/build.properties</file></files></configuration>
        </execution></executions></plugin>"""
APP_POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  {parent}
  <groupId>demo</groupId><artifactId>app</artifactId><version>1.0</version>
  {properties}
  <build>
    <resources><resource><directory>src/main/resources</directory><filtering>true</filtering></resource></resources>
    <plugins>{plugin}</plugins>
  </build>
</project>
"""
RESOURCE = "name=${release.name}\nversion=${project.version}\nbase=${basedir}\n"


def _maven_failure(root: Path, module: str = "app") -> BuildResult:
    log = f"[ERROR] Properties could not be loaded from File: {root}/{module}/build.properties\n"
    return failed(root, "maven", log)


def _app(root: Path, parent: str = "", properties: str = "") -> None:
    write(root, {"app/pom.xml": APP_POM.format(parent=parent, properties=properties, plugin=PLUGIN),
                 "app/src/main/resources/release.properties": RESOURCE})  # fmt: skip


def test_maven_key_a_parent_in_the_project_defines_declines(tmp_path: Path) -> None:
    root_pom = "<project><groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version>"
    root_pom += "{props}</project>"
    _app(
        tmp_path,
        parent="<parent><groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version></parent>",
    )
    write(tmp_path, {"pom.xml": root_pom.format(props=""), "tools/build.properties": "release.name=Aurora\n"})
    repair = diagnose(tmp_path, _maven_failure(tmp_path), offline(tmp_path))
    assert repair is not None  # the control: the project has a value and nothing else defines the key
    assert parse_properties(repair.calls[0].arguments["content"]) == {"release.name": "Aurora"}
    write(
        tmp_path,
        {"pom.xml": root_pom.format(props="<properties><release.name>Nova</release.name></properties>")},
    )
    assert diagnose(tmp_path, _maven_failure(tmp_path), offline(tmp_path)) is None


def test_maven_key_a_parent_in_the_local_repository_defines_declines(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    parent = (
        "<parent><groupId>com.acme</groupId><artifactId>corp-parent</artifactId><version>3</version></parent>"
    )
    _app(tmp_path, parent=parent)
    # Another module's pom has a value: what the recipe takes when no parent defines the key.
    write(
        tmp_path,
        {"tools/pom.xml": "<project><properties><release.name>Aurora</release.name></properties></project>"},
    )
    repair = diagnose(tmp_path, _maven_failure(tmp_path), private_caches)
    assert repair is not None
    assert parse_properties(repair.calls[0].arguments["content"]) == {"release.name": "Aurora"}
    repo = private_caches.cache_dir / "m2" / "repository" / "com" / "acme" / "corp-parent" / "3"
    corp = "<project><groupId>com.acme</groupId><artifactId>corp-parent</artifactId><version>3</version>"
    corp += "<properties><release.name>Corp</release.name></properties></project>"
    write(repo, {"corp-parent-3.pom": corp})
    assert diagnose(tmp_path, _maven_failure(tmp_path), private_caches) is None


def test_maven_key_a_profile_defines_declines(tmp_path: Path) -> None:
    profile = "<profiles><profile><id>rel</id><properties><release.name>Nova</release.name></properties>"
    profile += "</profile></profiles>"
    _app(tmp_path, properties=profile)
    write(tmp_path, {"tools/build.properties": "release.name=Aurora\n"})
    assert diagnose(tmp_path, _maven_failure(tmp_path), offline(tmp_path)) is None


def test_maven_builtin_keys_alone_decline(tmp_path: Path) -> None:
    _app(tmp_path)
    resource = "version=${project.version}\nbase=${basedir}\n"
    write(tmp_path, {"app/src/main/resources/release.properties": resource,
                     "tools/build.properties": "project.version=0.0.0\n"})  # fmt: skip
    assert diagnose(tmp_path, _maven_failure(tmp_path), offline(tmp_path)) is None


def test_maven_key_without_any_value_declines(tmp_path: Path) -> None:
    _app(tmp_path)
    assert diagnose(tmp_path, _maven_failure(tmp_path), offline(tmp_path)) is None


# --- 2. a restored dependency's version ---------------------------------------------------------

LANG3 = "org.apache.commons:commons-lang3"
DEP = "<dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId>"
DEP += "{version}</dependency>"
MODULE_POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>{name}</artifactId>
  <dependencies>{deps}</dependencies>
</project>
"""
PARENT_POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>a</module><module>b</module></modules>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
  {management}
  <build><pluginManagement><plugins>{plugins}</plugins></pluginManagement></build>
</project>
"""
PINNED = "".join(
    f"<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-{name}-plugin</artifactId>"
    f"<version>{version}</version></plugin>"
    for name, version in [("clean", "3.3.1"), ("resources", "3.3.1"), ("compiler", "3.11.0"),
                          ("surefire", "3.1.2"), ("jar", "3.3.0")]
)  # fmt: skip
B_SOURCE = (
    "package demo.b;\n\nimport org.apache.commons.lang3.StringUtils;\n\npublic class B {\n"
    "    public static String shout(String s) { return StringUtils.upperCase(s); }\n}\n"
)


def _dep(version: str | None) -> str:
    return DEP.format(version=f"<version>{version}</version>" if version else "")


def _managed(version: str) -> str:
    return f"<dependencyManagement><dependencies>{_dep(version)}</dependencies></dependencyManagement>"


def _maven_project(management: str, a_version: str | None, b_version: str | None) -> dict[str, str]:
    """The files of a two-module build; b's declaration left out when `b_version` is "gone"."""
    return {
        "pom.xml": PARENT_POM.format(management=management, plugins=PINNED),
        "a/pom.xml": MODULE_POM.format(name="a", deps=_dep(a_version)),
        "b/pom.xml": MODULE_POM.format(name="b", deps="" if b_version == "gone" else _dep(b_version)),
        "b/src/main/java/demo/b/B.java": B_SOURCE,
    }


def _cache_lang3(options: BuildOptions, *versions: str) -> None:
    for version in versions:
        base = (
            options.cache_dir / "m2" / "repository" / "org" / "apache" / "commons" / "commons-lang3" / version
        )
        base.mkdir(parents=True, exist_ok=True)
        (base / f"commons-lang3-{version}.pom").write_text("<project/>")
        with zipfile.ZipFile(base / f"commons-lang3-{version}.jar", "w") as jar:
            jar.writestr("org/apache/commons/lang3/StringUtils.class", b"\xca\xfe\xba\xbe")


LANG3_ERROR = BuildError(
    "package org.apache.commons.lang3 does not exist", "library_unavailable", "javac",
    "b/src/main/java/demo/b/B.java", 3,
)  # fmt: skip


def _lang3_version(pom: Path) -> str | None:
    """The version b's pom.xml declares commons-lang3 at (None: without one, a managed version)."""
    text = pom.read_text()
    blocks = [b for b in re.findall(r"<dependency>.*?</dependency>", text, re.DOTALL) if "commons-lang3" in b]
    assert len(blocks) == 1, text
    version = re.search(r"<version>\s*([^<\s]+)\s*</version>", blocks[0])
    return version.group(1) if version else None


def _restore_in_b(root: Path, options: BuildOptions) -> str | None:
    """Diagnose b's failure with the project's history, apply the repair: b's version of commons-lang3."""
    repair = diagnose(root, failed(root, "maven", "x", [LANG3_ERROR]), options, origin=root)
    assert repair is not None and repair.recipe == "undeclared-dependency"
    apply_repair(root, repair, options)
    return _lang3_version(root / "b/pom.xml")


def test_history_gives_the_most_recent_commits_version_a_managed_one_included(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.commit("3.9 everywhere", _maven_project("", "3.9", "3.9"))
    repo.commit("managed 3.12.0", _maven_project(_managed("3.12.0"), None, None))
    repo.commit("b drops it", _maven_project(_managed("3.12.0"), None, "gone"))
    assert past_jvm_declaration([HistoryFolder(tmp_path)], [LANG3]) == (LANG3, "3.12.0")
    newer = Repo(tmp_path / "newer")
    newer.commit("old", _maven_project("", "3.9", "3.9"))
    newer.commit("new", _maven_project("", "3.12.0", "3.11"))
    newer.commit("b drops it", _maven_project("", "3.12.0", "gone"))
    assert past_jvm_declaration([HistoryFolder(newer.path)], [LANG3]) == (LANG3, "3.12.0")


def test_restored_dependency_is_managed_like_the_other_modules(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    _cache_lang3(private_caches, "3.9", "3.12.0")
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.9 everywhere", _maven_project("", "3.9", "3.9"))
    repo.commit("managed 3.12.0", _maven_project(_managed("3.12.0"), None, None))
    repo.commit("b drops it", _maven_project(_managed("3.12.0"), None, "gone"))
    assert _restore_in_b(root, private_caches) is None  # managed (3.12.0), not history's 3.9


def test_restored_dependency_takes_the_other_modules_version(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    _cache_lang3(private_caches, "3.9", "3.12.0")
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.9 in b", _maven_project("", None, "3.9"))
    repo.commit("b drops it", _maven_project("", None, "gone"))
    # a uses 3.12.0 now (not committed yet: the tree, not only the history, says so).
    write(root, {"a/pom.xml": MODULE_POM.format(name="a", deps=_dep("3.12.0"))})
    assert _restore_in_b(root, private_caches) == "3.12.0"


def test_restored_dependency_is_never_lower_than_its_history(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    _cache_lang3(private_caches, "3.9", "3.12.0")
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.12.0 in b", _maven_project("", None, "3.12.0"))
    repo.commit("b drops it", _maven_project("", None, "gone"))
    write(root, {"a/pom.xml": MODULE_POM.format(name="a", deps=_dep("3.9"))})  # a lags behind
    assert _restore_in_b(root, private_caches) == "3.12.0"


def test_locked_gradle_version_is_the_highest_lockfile_entry(tmp_path: Path) -> None:
    write(tmp_path, {
        "a/gradle.lockfile": f"# a comment\n{LANG3}:3.11=compileClasspath\nempty=annotationProcessor\n",
        "b/gradle/dependency-locks/compileClasspath.lockfile": f"{LANG3}:3.12.0\n",
        "c/gradle.lockfile": f"{LANG3}-extra:9.0=compileClasspath\n",
    })  # fmt: skip
    assert locked_gradle_version(tmp_path, LANG3) == "3.12.0"
    assert locked_gradle_version(tmp_path, "org.apache.commons:commons-text") is None


def test_restored_gradle_dependency_takes_the_lockfile_version(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    _cache_lang3(private_caches, "3.9", "3.12.0")
    root = tmp_path / "p"
    script = "apply plugin: 'java'\ndependencies {{\n{deps}}}\n"
    repo = Repo(root)
    declared = script.format(deps=f"    implementation '{LANG3}:3.9'\n")
    repo.commit("3.9 in b", {"settings.gradle": "include 'b'\n", "b/src/main/java/demo/b/B.java": B_SOURCE,
                             "b/build.gradle": declared})  # fmt: skip
    lock = f"{LANG3}:3.12.0=compileClasspath,runtimeClasspath\n"
    repo.commit("b drops it", {"b/build.gradle": script.format(deps=""), "b/gradle.lockfile": lock})
    repair = diagnose(root, failed(root, "gradle", "x", [LANG3_ERROR]), private_caches, origin=root)
    assert repair is not None
    apply_repair(root, repair, private_caches)
    assert f"'{LANG3}:3.12.0'" in (root / "b/build.gradle").read_text()


# --- real builds through the recipes agent ------------------------------------------------------

REAL_PARENT = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>core</module><module>app</module></modules>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>{extra}
  </properties>
  <build><pluginManagement><plugins>{plugins}</plugins></pluginManagement></build>
</project>
"""
REAL_MODULE = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>{name}</artifactId>
  <build>
    <resources><resource><directory>src/main/resources</directory><filtering>true</filtering></resource></resources>
    <plugins>{plugin}</plugins>
  </build>
</project>
"""
OUTPUTS = {".git", "target"}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not OUTPUTS & set(p.relative_to(root).parts)
    }


def _fix(project: Path, tmp_path: Path) -> tuple[bool, str, bool]:
    """`fix --model recipes` on the project: (applied, the stop reason, resolved)."""
    config = AttemptConfig(model="recipes", options=BuildOptions(timeout_s=600))
    config.trajectory_path = tmp_path / f"{project.name}-trajectory.json"
    outcome = fix_project(project, config)
    return outcome.applied, outcome.attempt.stop_reason, outcome.attempt.resolved


def _release_project(root: Path, parent_default: bool) -> None:
    """core and app read their build.properties; app's is gone; core's holds release.name."""
    extra = "\n    <release.name>Nova</release.name>" if parent_default else ""
    files = {"pom.xml": REAL_PARENT.format(extra=extra, plugins=PINNED),
             "core/build.properties": "release.name=Aurora\n"}  # fmt: skip
    for module in ("core", "app"):
        files[f"{module}/pom.xml"] = REAL_MODULE.format(name=module, plugin=PLUGIN)
        files[f"{module}/src/main/resources/release.properties"] = (
            "name=${release.name}\nversion=${project.version}\n"
        )
    Repo(root).commit("app lost its build.properties", files)


@pytest.mark.slow
def test_real_missing_properties_declines_on_a_default_and_takes_another_modules_value(
    tmp_path: Path,
) -> None:
    with_default = tmp_path / "with-default"
    _release_project(with_default, parent_default=True)
    before = _tree(with_default)
    applied, reason, _ = _fix(with_default, tmp_path)
    assert not applied and reason.startswith("declined"), reason
    assert _tree(with_default) == before  # byte-identical

    without = tmp_path / "without-default"
    _release_project(without, parent_default=False)
    applied, reason, resolved = _fix(without, tmp_path)
    assert applied and resolved, reason
    written = (without / "app/build.properties").read_text()
    assert parse_properties(written) == {"release.name": "Aurora"}, written
    assert "0.0.0" not in written and "placeholder" not in written


@pytest.mark.slow
def test_real_restored_dependency_is_managed_not_downgraded(tmp_path: Path) -> None:
    root = tmp_path / "p"
    repo = Repo(root)
    repo.commit("3.9 everywhere", _maven_project("", "3.9", "3.9"))
    repo.commit("managed 3.12.0", _maven_project(_managed("3.12.0"), None, None))
    repo.commit("b drops it", _maven_project(_managed("3.12.0"), None, "gone"))
    applied, reason, resolved = _fix(root, tmp_path)
    assert applied and resolved, reason
    assert _lang3_version(root / "b/pom.xml") is None  # managed (3.12.0), not history's 3.9
