"""The recipes policy: unit tests on synthetic failures, and real repairs of the bundled examples."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from recipe_support import apply_repair, failed, offline, write

from buildfixer.agents.recipes import diagnose as recipes
from buildfixer.agents.recipes import files as recipes_files
from buildfixer.agents.recipes import jdk as recipes_jdk
from buildfixer.agents.recipes.base import PlannedCall, Repair
from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult
from support.git import Repo

# --- unit tests on synthetic failures --------------------------------------------------------


@pytest.fixture
def jdks(monkeypatch: pytest.MonkeyPatch) -> list[Jdk]:
    installed = [Jdk(8, "/jdks/8"), Jdk(11, "/jdks/11"), Jdk(17, "/jdks/17"), Jdk(21, "/jdks/21")]
    monkeypatch.setattr(recipes_jdk, "discover_jdks", lambda: installed)
    return installed


@pytest.mark.parametrize(
    ("log", "current", "expected"),
    [
        ("[ERROR] Fatal error compiling: error: release version 21 not supported", 17, 21),
        ("error: invalid target release: 11", 8, 11),
        ("error: invalid source release: 1.8", 17, None),  # JDK 17 compiles for 8: not the JDK's fault
        ("class file has wrong version 65.0, should be 61.0", 17, 21),
        ("> Android Gradle plugin requires Java 17 to run. You are currently using Java 11.", 11, 17),
        ("Dependency requires at least JVM runtime version 21. This build uses a Java 17 JVM.", 17, 21),
    ],
)
def test_jdk_needed_at_least(
    tmp_path: Path, jdks: list[Jdk], log: str, current: int, expected: int | None
) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log, jdk=current), offline(tmp_path))
    if expected is None:
        assert repair is None
        return
    assert repair is not None and repair.recipe == "jdk-level"
    assert repair.calls == [PlannedCall("change_java_version", {"version": expected})]


LEVELS_POM = """<project>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
  </properties>
  <build><plugins><plugin>
    <artifactId>maven-compiler-plugin</artifactId>
    <configuration><release>{release}</release><testSource>17</testSource></configuration>
  </plugin></plugins></build>
</project>
"""


@pytest.mark.parametrize(
    ("log", "levels", "expected"),
    [
        # One level out of step with three others: it goes back to theirs, the JDK stays.
        ("release version 25 not supported", (25, 17), "17"),
        ("invalid target release: 25", (25, 17), "17"),
        # Every level says 21: the project moved to 21, so the JDK switches.
        ("release version 21 not supported", (21, 21), None),
    ],
)
def test_a_level_out_of_step_with_the_project_goes_back_to_its_level(
    tmp_path: Path, jdks: list[Jdk], log: str, levels: tuple[int, int], expected: str | None
) -> None:
    release, rest = levels
    (tmp_path / "pom.xml").write_text(LEVELS_POM.format(release=release).replace(">17<", f">{rest}<"))
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log, jdk=17), offline(tmp_path))
    assert repair is not None and repair.recipe == "jdk-level"
    if expected is None:
        assert repair.calls == [PlannedCall("change_java_version", {"version": 21})], repair.calls
        return
    assert [call.tool for call in repair.calls] == ["replace"] and "back to 17" in repair.summary
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert "<release>17</release>" in (tmp_path / "pom.xml").read_text()


def test_jdk_too_new_for_gradle_picks_an_older_one(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\nsourceCompatibility = 1.8\n")
    wrapper = tmp_path / "gradle" / "wrapper"
    wrapper.mkdir(parents=True)
    wrapper.joinpath("gradle-wrapper.properties").write_text(
        "distributionUrl=https\\://services.gradle.org/distributions/gradle-6.8-bin.zip\n"
    )
    log = "Could not open cp_settings class cache\n> BUG! Unsupported class file major version 61"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments == {"version": 11}  # Gradle 6.8 runs on Java 15 at most


def test_jdk_kotlin_unknown_target(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "build.gradle").write_text("plugins { id 'org.jetbrains.kotlin.jvm' version '1.4.32' }\n")
    log = "e: Unknown JVM target version: 17\nSupported versions: 1.6, 1.8, 9, 10, 11, 12, 13, 14, 15"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments == {"version": 11}


def test_jdk_recipe_declines_without_a_fitting_jdk(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    log = "error: release version 26 not supported"
    assert diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path)) is None


def test_hardcoded_jdk_home_in_gradle_properties(
    tmp_path: Path, jdks: list[Jdk], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "jdk11"
    (home / "bin").mkdir(parents=True)
    monkeypatch.setattr(recipes_files, "discover_jdks", lambda: [Jdk(11, str(home)), Jdk(17, "/nowhere")])
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\n")
    (tmp_path / "gradle.properties").write_text("org.gradle.java.home=/opt/oldjdks/jdk1.8.0_202\n")
    log = "Value '/opt/oldjdks/jdk1.8.0_202' given for org.gradle.java.home Gradle property is invalid"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.recipe == "hardcoded-path"
    assert repair.calls == [
        PlannedCall(
            "replace",
            {
                "file_path": "gradle.properties",
                "old_string": "/opt/oldjdks/jdk1.8.0_202",
                "new_string": str(home),
                "expected_replacements": 1,
            },
        )
    ]


def test_hardcoded_windows_jdk_in_gradle_properties(
    tmp_path: Path, jdks: list[Jdk], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "jdk17"
    home.mkdir()
    monkeypatch.setattr(recipes_files, "discover_jdks", lambda: [Jdk(17, str(home))])
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\n")
    (tmp_path / "gradle.properties").write_text(
        "org.gradle.java.home=C\\:\\\\Program Files\\\\Java\\\\jdk1.8.0_202\n"
    )
    log = "Value 'C:\\Program Files\\Java\\jdk1.8.0_202' given for org.gradle.java.home is invalid"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert (tmp_path / "gradle.properties").read_text() == f"org.gradle.java.home={home}\n"


def test_missing_path_only_in_source_code_is_declined(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    (tmp_path / "App.java").write_text('new File("/data/input/words.txt")')
    log = "java.io.FileNotFoundException: /data/input/words.txt (No such file or directory)"
    assert diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path)) is None


def test_missing_properties_from_kotlin_dsl(tmp_path: Path) -> None:
    (tmp_path / "build.gradle.kts").write_text(
        "import java.util.Properties\n"
        "val keystoreProperties = Properties().apply {\n"
        '    load(rootProject.file("keystore.properties").inputStream())\n'
        "}\n"
        'val alias = keystoreProperties["keyAlias"] as String\n'
        'val count = keystoreProperties.getProperty("retry.count")\n'
    )
    log = f"java.io.FileNotFoundException: {tmp_path}/keystore.properties (No such file or directory)"
    # No value for the keys anywhere in the project: none is made up.
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None
    write(tmp_path, {"wear/keystore.properties": "keyAlias=release\nretry.count=3\nunread=1\n"})
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.recipe == "missing-properties"
    (call,) = repair.calls
    assert call.tool == "write_file" and call.arguments["path"] == "keystore.properties"
    content = call.arguments["content"]
    assert content.startswith("# Created by buildfixer")
    assert "keyAlias=release\n" in content and "retry.count=3\n" in content and "unread" not in content


def test_missing_properties_copied_from_template(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "def p = new Properties()\nfile('secrets.properties').withInputStream { p.load(it) }\n"
    )
    (tmp_path / "secrets.properties.example").write_text("api.key=CHANGE_ME\n")
    log = "> /x/secrets.properties (No such file or directory)"
    # The log's path is not inside the project: declined (a file somewhere else is not ours to create).
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None
    log = f"> {tmp_path}/secrets.properties (No such file or directory)"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments["content"] == "api.key=CHANGE_ME\n"


def test_missing_properties_restored_from_git_history(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    gradle = "def p = new Properties()\nfile('app.properties').withInputStream { p.load(it) }\n"
    repo.commit("one", {"build.gradle": gradle, "app.properties": "name=real value\n"})
    repo.commit("two", {"app.properties": None})
    log = f"> {tmp_path}/app.properties (No such file or directory)"
    # History is read through the git directory buildfixer recorded, never the project's `.git`;
    # without it the project has no value for `name`, and none is made up.
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path), git_dir=tmp_path / ".git")
    assert repair is not None and "git history" in repair.summary
    assert repair.calls[0].arguments == {"path": "app.properties", "content": "name=real value\n"}


def test_missing_data_file_that_is_not_properties_is_declined(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "def cfg = new groovy.json.JsonSlurper().parse(file('cfg.json'))\n"
    )
    log = f"> {tmp_path}/cfg.json (No such file or directory)"
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None


def test_missing_version_uses_the_caches_offline(tmp_path: Path) -> None:
    options = offline(tmp_path)
    jar_dir = options.cache_dir / "m2" / "repository" / "com" / "acme" / "widget" / "2.4.1"
    jar_dir.mkdir(parents=True)
    (jar_dir / "widget-2.4.1.pom").write_text("<project/>")
    (tmp_path / "build.gradle").write_text("dependencies {\n    implementation 'com.acme:widget:2.4.7'\n}\n")
    log = "> Could not find com.acme:widget:2.4.7.\n  Required by:\n      project :"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), options)
    assert repair is not None and repair.recipe == "missing-version"
    assert repair.calls[0].arguments["new_string"] == "    implementation 'com.acme:widget:2.4.1'\n"


def test_npm_missing_version_falls_back_to_the_lockfile(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{\n  "devDependencies": {\n    "typescript": "5.4.9"\n  }\n}\n')
    lock = {"packages": {"node_modules/typescript": {"version": "5.4.5"}}}
    (tmp_path / "package-lock.json").write_text(__import__("json").dumps(lock))
    log = "npm error notarget No matching version found for typescript@5.4.9."
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == '    "typescript": "5.4.5"\n'


def test_missing_version_declines_a_transitive_dependency(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text("dependencies {\n    implementation 'com.acme:app:1.0'\n}\n")
    log = "> Could not find com.acme:widget:2.4.7.\n  Required by:\n      project : > com.acme:app:1.0"
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None


def test_pip_versions_listed_in_the_log(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("requests==2.31.9\n")
    log = (
        "ERROR: Could not find a version that satisfies the requirement requests==2.31.9 "
        "(from versions: 2.30.0, 2.31.0, 2.32.0)\n"
        "ERROR: No matching distribution found for requests==2.31.9\n"
    )
    repair = diagnose(tmp_path, failed(tmp_path, "python", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == "requests==2.31.0\n"


def test_kotlin_unresolved_reference_off_an_import_is_declined(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    src = tmp_path / "A.kt"
    src.write_text("package a\n\nfun f(x: Shape) = x.radus\n")
    errors = [BuildError("Unresolved reference: radus", "syntax", "kotlinc", "A.kt", 3)]
    assert (
        diagnose(
            tmp_path,
            failed(tmp_path, "maven", "e: A.kt:3 Unresolved reference: radus", errors),
            offline(tmp_path),
        )
        is None
    )


def test_success_is_never_diagnosed(tmp_path: Path) -> None:
    result = BuildResult("success", 0, 1.0, "maven", ["mvn"], 17, str(tmp_path / "none.log"))
    assert diagnose(tmp_path, result, offline(tmp_path)) is None


def test_a_recipe_bug_declines_instead_of_raising(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_ev: Any) -> Repair:
        raise RuntimeError("bug")

    monkeypatch.setattr(recipes, "RECIPES", (broken,))
    assert diagnose(tmp_path, failed(tmp_path, "maven", "x"), offline(tmp_path)) is None


# --- real-world shapes (each a failure seen on real projects) ---------------------------------


@pytest.fixture
def private_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildOptions:
    """Offline, with caches of the test's own: ~/.m2, ~/.gradle and ~/.npm out of sight."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)
    return offline(tmp_path)


def cached_jar(options: BuildOptions, coordinate: str, classes: list[str]) -> None:
    group, artifact, version = coordinate.split(":")
    base = options.cache_dir / "m2" / "repository" / Path(*group.split(".")) / artifact / version
    base.mkdir(parents=True, exist_ok=True)
    (base / f"{artifact}-{version}.pom").write_text("<project/>")
    with zipfile.ZipFile(base / f"{artifact}-{version}.jar", "w") as jar:
        for name in classes:
            jar.writestr(name, b"\xca\xfe\xba\xbe")


def javac_error(file: str, line: int, message: str) -> BuildError:
    return BuildError(message, "library_unavailable", "javac", file, line)


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        # maven-enforcer 3.4+ names JAVA_HOME and says "version" in lower case
        (
            "[ERROR] Rule 0: org.apache.maven.enforcer.rules.version.RequireJavaVersion failed with "
            "message:\n"
            "[ERROR] Detected JDK version 17.0.15 (JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64) is not in "
            "the allowed range [21,).",
            21,
        ),
        ("Detected JDK Version: 17.0.2 is not in the allowed range [1.8,12).", 11),
        ("Detected JDK Version: 17.0.2 is not in the allowed range 21.", 21),
    ],
)
def test_jdk_enforcer_ranges(tmp_path: Path, jdks: list[Jdk], log: str, expected: int) -> None:
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments == {"version": expected}


def test_jdk_never_above_what_the_running_gradle_runs_on(tmp_path: Path, jdks: list[Jdk]) -> None:
    # Debian's Gradle 4.4.1 runs on 17 at most: JDK 21 would only trade one failure for another.
    result = failed(tmp_path, "gradle", "> error: release version 21 not supported")
    result.environment = {"gradle": "4.4.1 (system)"}
    assert diagnose(tmp_path, result, offline(tmp_path)) is None
    result.environment = {"gradle": "8.5 (wrapper)"}
    repair = diagnose(tmp_path, result, offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments == {"version": 21}


MULTI_POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <modules><module>core</module><module>app</module></modules>
  <properties>
    <jackson.version>2.16.1</jackson.version>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.apache.commons</groupId>
        <artifactId>commons-lang3</artifactId>
        <version>3.14.0</version>
      </dependency>
    </dependencies>
  </dependencyManagement>
</project>
"""
CORE_POM = """<project>
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>core</artifactId>
  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>${jackson.version}</version>
    </dependency>
  </dependencies>
</project>
"""
APP_POM = """<project>
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>app</artifactId>
  <dependencies>
    <dependency>
      <groupId>com.acme</groupId>
      <artifactId>core</artifactId>
      <version>1.0</version>
    </dependency>
  </dependencies>
</project>
"""
APP_JAVA = "package com.acme.app;\n\nimport org.apache.commons.lang3.StringUtils;\nimport {imp};\n"


def test_undeclared_dependencies_of_a_maven_module_managed_or_declared_elsewhere(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    options = private_caches
    project = tmp_path / "p"
    java = "app/src/main/java/com/acme/app/Main.java"
    write(
        project,
        {
            "pom.xml": MULTI_POM,
            "core/pom.xml": CORE_POM,
            "app/pom.xml": APP_POM,
            java: APP_JAVA.format(imp="com.fasterxml.jackson.databind.ObjectMapper"),
        },
    )
    for version in ("3.14.0", "3.20.0", "3.21.0-beta1"):
        cached_jar(
            options,
            f"org.apache.commons:commons-lang3:{version}",
            ["org/apache/commons/lang3/StringUtils.class"],
        )
    cached_jar(
        options,
        "com.fasterxml.jackson.core:jackson-databind:2.18.3",
        ["com/fasterxml/jackson/databind/ObjectMapper.class"],
    )
    errors = [
        javac_error(f"{project}/{java}", 3, "package org.apache.commons.lang3 does not exist"),
        javac_error(f"{project}/{java}", 4, "package com.fasterxml.jackson.databind does not exist"),
    ]
    repair = diagnose(project, failed(tmp_path, "maven", "[ERROR] COMPILATION ERROR", errors), options)
    assert repair is not None and repair.recipe == "undeclared-dependency"
    assert len(repair.calls) == 1  # both into app/pom.xml, in one edit that still applies
    apply_repair(project, repair, options)
    app = (project / "app/pom.xml").read_text()
    # Managed by the parent: no version of its own. Declared by core through the parent's
    # property: the same property. Indented like the file's other entries.
    assert (
        "    <dependency>\n      <groupId>org.apache.commons</groupId>\n"
        "      <artifactId>commons-lang3</artifactId>\n    </dependency>\n"
    ) in app
    assert "<artifactId>jackson-databind</artifactId>\n      <version>${jackson.version}</version>" in app
    assert "<scope>" not in app


GRADLE_ROOT = """ext {
    gsonVersion = '2.10.1'
}

subprojects {
    apply plugin: 'java'
}
"""


def test_undeclared_in_a_gradle_module_reuses_the_root_variable(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    options = private_caches
    java = "app/src/main/java/com/acme/app/Main.java"
    write(
        tmp_path,
        {
            "settings.gradle": "include 'core', 'app'\n",
            "build.gradle": GRADLE_ROOT,
            "core/build.gradle": (
                'dependencies {\n    implementation "com.google.code.gson:gson:${gsonVersion}"\n}\n'
            ),
            "app/build.gradle": "dependencies {\n    implementation project(':core')\n}\n",
            java: "package com.acme.app;\n\nimport com.google.gson.JsonParser;\n",
        },
    )
    cached_jar(options, "com.google.code.gson:gson:2.13.1", ["com/google/gson/JsonParser.class"])
    errors = [javac_error(java, 3, "package com.google.gson does not exist")]
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", "> Compilation failed", errors), options)
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    assert (tmp_path / "app/build.gradle").read_text() == (
        'dependencies {\n    implementation "com.google.code.gson:gson:${gsonVersion}"\n'
        "    implementation project(':core')\n}\n"
    )


def test_undeclared_import_of_a_jpms_module_is_declined(tmp_path: Path, private_caches: BuildOptions) -> None:
    java = "src/main/java/org/acme/Seq.java"
    write(
        tmp_path,
        {
            "pom.xml": "<project><dependencies></dependencies></project>\n",
            "src/main/java/module-info.java": "module org.acme { exports org.acme; }\n",
            java: "package org.acme;\n\nimport org.apache.commons.lang3.StringUtils;\n",
        },
    )
    cached_jar(
        private_caches,
        "org.apache.commons:commons-lang3:3.14.0",
        ["org/apache/commons/lang3/StringUtils.class"],
    )
    errors = [javac_error(java, 3, "package org.apache.commons.lang3 does not exist")]
    # Declaring it is not enough: module-info.java (source code) must `requires` it.
    assert diagnose(tmp_path, failed(tmp_path, "maven", "x", errors), private_caches) is None


def test_missing_class_of_a_present_package_needs_a_jar_with_that_class(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    java = "src/test/java/a/ATest.java"
    project = tmp_path / "p"
    write(
        project,
        {
            "build.gradle": "dependencies {\n    testImplementation 'junit:junit:4.13.2'\n}\n",
            java: "package a;\n\nimport static org.hamcrest.Matchers.containsString;\n",
        },
    )
    # hamcrest-core holds org.hamcrest but not Matchers (junit already brings it).
    cached_jar(private_caches, "org.hamcrest:hamcrest-core:1.3", ["org/hamcrest/CoreMatchers.class"])
    errors = [BuildError("cannot find symbol", "syntax", "javac", java, 3)]
    assert diagnose(project, failed(tmp_path, "gradle", "x", errors), private_caches) is None
    cached_jar(private_caches, "org.hamcrest:hamcrest:2.2", ["org/hamcrest/Matchers.class"])
    repair = diagnose(project, failed(tmp_path, "gradle", "x", errors), private_caches)
    assert repair is not None
    assert "    testImplementation 'org.hamcrest:hamcrest:2.2'\n" in repair.calls[0].arguments["new_string"]


def test_a_project_inside_a_tests_directory_is_not_all_test_code(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    project = tmp_path / "tests" / "app"
    java = "src/main/java/a/A.java"
    write(
        project,
        {"build.gradle": "apply plugin: 'java'\n", java: "package a;\n\nimport com.google.gson.Gson;\n"},
    )
    cached_jar(private_caches, "com.google.code.gson:gson:2.10.1", ["com/google/gson/Gson.class"])
    errors = [javac_error(str(project / java), 3, "package com.google.gson does not exist")]
    repair = diagnose(project, failed(tmp_path, "gradle", "x", errors), private_caches)
    assert repair is not None
    assert "implementation 'com.google.code.gson:gson:2.10.1'" in repair.calls[0].arguments["new_string"]
    assert "testImplementation" not in repair.calls[0].arguments["new_string"]


def test_missing_versions_all_repaired_at_once(tmp_path: Path, private_caches: BuildOptions) -> None:
    options = private_caches
    for coordinate in ("com.acme:widget:2.4.1", "com.acme:gadget:1.3.0", "com.acme:gadget:1.4.0-RC1"):
        cached_jar(options, coordinate, [])
    (tmp_path / "build.gradle").write_text(
        "dependencies {\n    implementation 'com.acme:widget:2.4.7'\n"
        "    implementation 'com.acme:gadget:1.4.2'\n}\n"
    )
    log = "> Could not find com.acme:widget:2.4.7.\n> Could not find com.acme:gadget:1.4.2.\n"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), options)
    assert repair is not None and len(repair.calls) == 1
    apply_repair(tmp_path, repair, options)
    assert (tmp_path / "build.gradle").read_text() == (
        "dependencies {\n    implementation 'com.acme:widget:2.4.1'\n"
        "    implementation 'com.acme:gadget:1.3.0'\n}\n"
    )


def test_a_shared_version_property_moves_to_a_version_all_its_users_have(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    options = private_caches
    (tmp_path / "pom.xml").write_text(
        "<project>\n  <properties>\n    <jackson.version>2.12.8</jackson.version>\n  </properties>\n"
        "  <dependencies>\n"
        "    <dependency><groupId>com.fasterxml.jackson.core</groupId>"
        "<artifactId>jackson-databind</artifactId>"
        "<version>${jackson.version}</version></dependency>\n"
        "    <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-core</artifactId>"
        "<version>${jackson.version}</version></dependency>\n"
        "  </dependencies>\n</project>\n"
    )
    for version in ("2.12.7", "2.12.7.1"):  # databind alone had a 2.12.7.1 patch release
        cached_jar(options, f"com.fasterxml.jackson.core:jackson-databind:{version}", [])
    cached_jar(options, "com.fasterxml.jackson.core:jackson-core:2.12.7", [])
    log = "[ERROR] Could not find artifact com.fasterxml.jackson.core:jackson-databind:jar:2.12.8 in central"
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log), options)
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == "    <jackson.version>2.12.7</jackson.version>\n"


def test_snapshots_are_never_moved(tmp_path: Path, private_caches: BuildOptions) -> None:
    cached_jar(private_caches, "com.acme:core:0.9.0", [])
    (tmp_path / "build.gradle").write_text(
        "dependencies {\n    implementation 'com.acme:core:1.0.0-SNAPSHOT'\n}\n"
    )
    log = "> Could not find com.acme:core:1.0.0-SNAPSHOT."
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), private_caches) is None


def test_poetry_caret_reaches_pip_as_a_range(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.poetry.dependencies]\npython = "^3.9"\nattrs = "^23.9.0"\n\n'
        '[tool.poetry.group.dev.dependencies]\npytest = "^7.4"\n'
    )
    log = (
        "ERROR: Could not find a version that satisfies the requirement attrs<24.0.0,>=23.9.0 "
        "(from inventory) (from versions: 22.2.0, 23.1.0, 23.2.0, 24.1.0)\n"
        "ERROR: No matching distribution found for attrs<24.0.0,>=23.9.0\n"
    )
    repair = diagnose(tmp_path, failed(tmp_path, "python", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == 'attrs = "^23.2.0"\n'


@pytest.mark.parametrize(
    ("pyproject", "expected"),
    [
        (
            '[project]\nname = "x"\n\n[dependency-groups]\ntests = [\n    "pytest",\n]\n',
            '[dependency-groups]\ntests = [\n    "pytest",\n    "PyYAML",\n]\n',
        ),
        (
            '[tool.poetry.dependencies]\npython = "^3.9"\n\n'
            '[tool.poetry.group.dev.dependencies]\npytest = "^7"\n',
            '[tool.poetry.group.dev.dependencies]\npytest = "^7"\nPyYAML = "*"\n',
        ),
    ],
)
def test_a_module_only_tests_import_goes_to_the_test_dependencies(
    tmp_path: Path, pyproject: str, expected: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject)
    errors = [BuildError("ModuleNotFoundError: No module named 'yaml'", "library_unavailable", "python",
                         "tests/test_io.py", 1)]  # fmt: skip
    repair = diagnose(tmp_path, failed(tmp_path, "python", "x", errors, jdk=None), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert (tmp_path / "pyproject.toml").read_text().endswith(expected)


def test_a_python_module_of_the_project_itself_is_not_a_distribution(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"requirements.txt": "requests==2.31.0\n", "tests/git/__init__.py": "", "tests/test_a.py": ""},
    )
    errors = [BuildError("No module named 'git'", "library_unavailable", "python", "tests/test_a.py", 1)]
    # "git" would be GitPython; here it is the project's own tests/git package, run from elsewhere.
    assert diagnose(tmp_path, failed(tmp_path, "python", "x", errors, jdk=None), offline(tmp_path)) is None


def test_npm_missing_version_in_a_caret_range(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{\n  "dependencies": {\n    "mime-db": "^1.99.0"\n  }\n}\n')
    lock = {"packages": {"node_modules/mime-db": {"version": "1.54.0"}}}
    (tmp_path / "package-lock.json").write_text(__import__("json").dumps(lock))
    log = "npm error notarget No matching version found for mime-db@^1.99.0."
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == '    "mime-db": "^1.54.0"\n'


def test_npm_esm_import_of_an_undeclared_package(tmp_path: Path, private_caches: BuildOptions) -> None:
    index = private_caches.cache_dir / "npm" / "_cacache" / "index-v5" / "ab"
    index.mkdir(parents=True)
    (index / "cd").write_text('{"key":"pacote:tarball:debug@4.4.3"}\n')
    (tmp_path / "package.json").write_text(
        '{\n  "type": "module",\n  "dependencies": {\n    "ms": "^2.1.3"\n  }\n}\n'
    )
    log = (
        "node:internal/modules/esm/resolve:873\n"
        f"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'debug' imported from {tmp_path}/src/index.js\n"
    )
    errors = [BuildError("not ok 1 - test failed", "test_failure", "node", None, None)]
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log, errors, jdk=None), private_caches)
    assert repair is not None
    assert '"debug": "^4.4.3",' in repair.calls[0].arguments["new_string"]


def test_missing_properties_restored_from_the_origins_history(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    gradle = "def props = new Properties()\nprops.load(new FileInputStream(file('version.properties')))\n"
    repo = Repo(origin)
    repo.commit("one", {"build.gradle": gradle, "version.properties": "versionMajor=3\n"})
    repo.commit("two", {"version.properties": None})
    snapshot = tmp_path / "snapshot"  # what `buildfixer fix` builds: a copy without that history
    write(snapshot, {"build.gradle": gradle})
    log = f"> {snapshot}/version.properties (No such file or directory)"
    repair = diagnose(snapshot, failed(tmp_path, "gradle", log), offline(tmp_path), origin=origin)
    assert repair is not None and repair.calls[0].arguments["content"] == "versionMajor=3\n"


def test_missing_properties_of_the_tests_are_declined(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pom.xml": "<project><build><testResources>fixture.properties</testResources></build></project>"},
    )
    missing = tmp_path / "src/test/resources/fixture.properties"
    log = f"java.io.FileNotFoundException: {missing} (No such file or directory)"
    assert diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path)) is None


def test_maven_lists_every_unresolved_artifact(tmp_path: Path, private_caches: BuildOptions) -> None:
    options = private_caches
    for coordinate in ("com.acme:widget:2.4.1", "junit:junit:4.13.2"):
        cached_jar(options, coordinate, [])
    (tmp_path / "pom.xml").write_text(
        "<project>\n  <properties>\n    <widget.version>2.4.7</widget.version>\n  </properties>\n"
        "  <dependencies>\n"
        "    <dependency><groupId>com.acme</groupId><artifactId>widget</artifactId>"
        "<version>${widget.version}</version></dependency>\n"
        "    <dependency><groupId>junit</groupId><artifactId>junit</artifactId>"
        "<version>4.13.5</version></dependency>\n"
        "  </dependencies>\n</project>\n"
    )
    log = (
        "[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project "
        "com.acme:app:jar:1.0: The following artifacts could not be resolved: com.acme:widget:jar:2.4.7, "
        "junit:junit:jar:4.13.5: com.acme:widget:jar:2.4.7 was not found in https://repo.maven.apache.org"
    )
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log), options)
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    text = (tmp_path / "pom.xml").read_text()
    assert "<widget.version>2.4.1</widget.version>" in text and "<version>4.13.2</version>" in text


def test_hardcoded_jdk_home_of_gradle_within_what_gradle_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    homes = {v: tmp_path / "jvm" / f"java-{v}" for v in (17, 25)}
    for home in homes.values():
        home.mkdir(parents=True)
    monkeypatch.setattr(recipes_files, "discover_jdks", lambda: [Jdk(v, str(h)) for v, h in homes.items()])
    (tmp_path / "gradle.properties").write_text("org.gradle.java.home=/usr/lib/jvm/temurin-21-jdk-amd64\n")
    result = failed(
        tmp_path,
        "gradle",
        "Java home supplied via 'org.gradle.java.home' is invalid.\n"
        "Invalid directory: /usr/lib/jvm/temurin-21-jdk-amd64",
    )
    result.environment = {"gradle": "4.4.1 (system)"}  # runs on 17 at most: not 25, the next above 21
    repair = diagnose(tmp_path, result, offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments["new_string"] == str(homes[17])


def test_a_shared_catalog_version_moves_to_a_version_all_its_libraries_have(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    options = private_caches
    catalog = (
        '[versions]\njackson = "2.12.8"\n\n[libraries]\n'
        'jackson-databind = { module = "com.fasterxml.jackson.core:jackson-databind", '
        'version.ref = "jackson" }\n'
        'jackson-core = { module = "com.fasterxml.jackson.core:jackson-core", version.ref = "jackson" }\n'
    )
    write(
        tmp_path,
        {
            "gradle/libs.versions.toml": catalog,
            "build.gradle": "dependencies {\n    implementation libs.jackson.databind\n}\n",
        },
    )
    for version in ("2.12.7", "2.12.7.1"):
        cached_jar(options, f"com.fasterxml.jackson.core:jackson-databind:{version}", [])
    cached_jar(options, "com.fasterxml.jackson.core:jackson-core:2.12.7", [])
    log = "> Could not find com.fasterxml.jackson.core:jackson-databind:2.12.8."
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), options)
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    assert (tmp_path / "gradle/libs.versions.toml").read_text() == catalog.replace("2.12.8", "2.12.7")


def test_pip_versions_listed_for_another_requirement_are_not_this_ones(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("requests==2.31.9\nurllib3==2.0.99\n")
    log = (
        "ERROR: Could not find a version that satisfies the requirement urllib3==2.0.99 "
        "(from versions: 2.0.6, 2.0.7, 2.1.0)\n"
        "ERROR: Could not find a version that satisfies the requirement requests==2.31.9 "
        "(from versions: 2.30.0, 2.31.0)\n"
    )
    repair = diagnose(tmp_path, failed(tmp_path, "python", log, jdk=None), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert (tmp_path / "requirements.txt").read_text() == "requests==2.31.0\nurllib3==2.0.7\n"


def test_hardcoded_data_file_is_looked_for_in_the_project_only(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(
        project,
        {
            "build.gradle": "checkstyle {\n    configFile = file('/home/ci/lint/checkstyle.xml')\n}\n",
            "config/checkstyle/checkstyle.xml": "<module/>",
        },
    )
    log = "> Unable to create Root Module: config {/home/ci/lint/checkstyle.xml}"
    repair = diagnose(project, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    # Relative: the repair is planned in a snapshot, whose absolute paths vanish after the fix.
    assert repair.calls[0].arguments["new_string"] == "config/checkstyle/checkstyle.xml"
    (project / "other").mkdir()
    (project / "other/checkstyle.xml").write_text("<module/>")  # two candidates: which one is a guess
    assert diagnose(project, failed(tmp_path, "gradle", log), offline(tmp_path)) is None


def test_undeclared_in_a_module_without_version_where_a_bom_manages_it(
    tmp_path: Path, private_caches: BuildOptions
) -> None:
    java = "app/src/main/java/a/A.java"
    write(
        tmp_path / "p",
        {
            "settings.gradle": "include 'core', 'app'\n",
            "core/build.gradle": (
                "dependencies {\n"
                "    implementation platform('org.springframework.boot:spring-boot-dependencies:3.2.0')\n"
                "    implementation 'com.fasterxml.jackson.core:jackson-databind'\n}\n"
            ),
            "app/build.gradle": "dependencies {\n    implementation project(':core')\n}\n",
            java: "package a;\n\nimport com.fasterxml.jackson.databind.ObjectMapper;\n",
        },
    )
    cached_jar(
        private_caches,
        "com.fasterxml.jackson.core:jackson-databind:2.18.3",
        ["com/fasterxml/jackson/databind/ObjectMapper.class"],
    )
    errors = [javac_error(java, 3, "package com.fasterxml.jackson.databind does not exist")]
    repair = diagnose(tmp_path / "p", failed(tmp_path, "gradle", "x", errors), private_caches)
    assert repair is not None
    assert (
        "    implementation 'com.fasterxml.jackson.core:jackson-databind'\n"
        in repair.calls[0].arguments["new_string"]
    )
