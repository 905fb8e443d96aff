"""The project's pinned JDK (`buildsys.jdk_pin`): each file format read and written, the JDK a build picks.

No build runs here; tests/buildsys/test_jdk_pin_builds.py builds a project with and without a pin.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from buildfixer.buildsys.jdk_pin import (
    MAX_PIN_BYTES,
    choose_jdk,
    launcher_pin,
    pin_jdk,
    read_pins,
    respec,
    spec_major,
    toolchain_pins,
    version_file_pins,
)
from buildfixer.core.errors import BuildfixerError, ToolError

INSTALLED = sorted({j.version for j in discover_jdks()})
DEFAULT = default_jdk()
# A JDK of this machine other than the default (17 and a newer Temurin here).
OTHER = max(v for v in INSTALLED if DEFAULT is None or v != DEFAULT.version)
MISSING = next(v for v in range(11, 99) if v not in INSTALLED)


@pytest.mark.parametrize(
    ("spec", "major"),
    [
        ("21", 21), ("1.8", 8), ("17.0", 17), ("1.8.0_392", 8), ("21-ea", 21),
        ("temurin-21.0.2+13.0.LTS", 21), ("openjdk64-17.0.2", 17), ("adoptopenjdk-11.0.11+9-openj9", 11),
        ("zulu-8.74.0.17", 8), ("oracle-graalvm-21.0.1", 21), ("latest:temurin-17", 17),
        ("21.0.2-tem", 21), ("8.0.392-zulu", 8), ("25-tem", 25), ("graalvm-ce-java17-22.3.0", 17),
        ("system", None), ("", None), ("ref:abc", None), ("temurin", None), ("1" * 300, None), ("100", None),
    ],
)  # fmt: skip
def test_spec_major(spec: str, major: int | None) -> None:
    assert spec_major(spec) == major


@pytest.mark.parametrize(
    ("spec", "written"),
    [
        ("17", "25"), ("1.8", "25"), ("temurin-17.0.9+9", "temurin-25"), ("17.0.9-tem", "25-tem"),
        ("latest:temurin-17", "latest:temurin-25"),
        ("adoptopenjdk-11.0.11+9-openj9", "adoptopenjdk-25-openj9"),
        ("graalvm-ce-java17-22.3.0", "25"),
    ],
)  # fmt: skip
def test_respec_keeps_the_distribution_and_writes_the_major_only(spec: str, written: str) -> None:
    assert respec(spec, 25) == written


# ---- reading each format ------------------------------------------------------------------------


def test_java_version_file(tmp_path: Path) -> None:
    (tmp_path / ".java-version").write_text("# the team's JDK\n\ntemurin-21.0.2\n")
    assert [(p.version, p.file, p.spec) for p in version_file_pins(tmp_path)] == [
        (21, ".java-version", "temurin-21.0.2")
    ]


def test_tool_versions_java_line(tmp_path: Path) -> None:
    (tmp_path / ".tool-versions").write_text(
        "nodejs 20.11.0\n  java   temurin-21.0.2+13.0.LTS  temurin-17 # main\n"
    )
    pin = launcher_pin(tmp_path)
    assert pin is not None and (pin.version, pin.file, pin.spec) == (
        21,
        ".tool-versions",
        "temurin-21.0.2+13.0.LTS",
    )
    (tmp_path / ".tool-versions").write_text("nodejs 20.11.0\n# java 11\njavax 3\n")
    assert launcher_pin(tmp_path) is None  # no java line: no pin


def test_sdkmanrc_java_entry(tmp_path: Path) -> None:
    (tmp_path / ".sdkmanrc").write_text(
        "# Enable auto-env through the sdkman_auto_env config\ngradle=8.5\njava=21.0.2-tem\n"
    )
    pin = launcher_pin(tmp_path)
    assert pin is not None and (pin.version, pin.spec) == (21, "21.0.2-tem")


def test_version_files_in_order_and_unreadable_values_skipped(tmp_path: Path) -> None:
    (tmp_path / ".java-version").write_text("system\n")
    (tmp_path / ".tool-versions").write_text("java 17\n")
    (tmp_path / ".sdkmanrc").write_text("java=21.0.2-tem\n")
    assert [(p.file, p.version) for p in version_file_pins(tmp_path)] == [
        (".tool-versions", 17),
        (".sdkmanrc", 21),
    ]
    pin = launcher_pin(tmp_path)
    assert pin is not None and pin.file == ".tool-versions"  # the first one decides


def test_gradle_toolchains(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "java {\n    toolchain {\n        languageVersion = JavaLanguageVersion.of(21)\n    }\n}\n"
    )
    (tmp_path / "build.gradle.kts").write_text("kotlin {\n    jvmToolchain(17)\n}\n")
    pins = toolchain_pins(tmp_path)
    assert [(p.version, p.file, p.toolchain) for p in pins] == [
        (21, "build.gradle", True),
        (17, "build.gradle.kts", True),
    ]
    assert pins[0].describe() == "JDK 21 (the Gradle toolchain in build.gradle)"
    assert launcher_pin(tmp_path) is None  # a toolchain never chooses the JDK a build runs on


def test_maven_toolchains(tmp_path: Path) -> None:
    plugin = """<project><build><plugins><plugin>
      <artifactId>maven-toolchains-plugin</artifactId><version>3.1.0</version>
      <configuration><toolchains><jdk><version>[21,)</version></jdk></toolchains></configuration>
    </plugin></plugins></build></project>"""
    (tmp_path / "pom.xml").write_text(plugin)
    assert [(p.version, p.file) for p in toolchain_pins(tmp_path)] == [(21, "pom.xml")]
    compiler = "<project><plugin><configuration><jdkToolchain><version>17</version></jdkToolchain>"
    (tmp_path / "pom.xml").write_text(compiler + "</configuration></plugin></project>")
    assert [p.version for p in toolchain_pins(tmp_path)] == [17]
    # A pom without toolchains (the plugin's own <version> is no JDK), and a hostile one, cost one pass.
    (tmp_path / "pom.xml").write_text(
        "<project><version>21</version>" + "<toolchains>" * 80_000 + "</project>"
    )
    assert toolchain_pins(tmp_path) == []


def test_read_pins_lists_version_files_then_toolchains(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "java { toolchain { languageVersion = JavaLanguageVersion.of(11) } }\n"
    )
    (tmp_path / ".java-version").write_text("21\n")
    assert [(p.file, p.version) for p in read_pins(tmp_path)] == [(".java-version", 21), ("build.gradle", 11)]


# ---- the project is hostile: confined reads and writes --------------------------------------------


def test_links_out_hard_links_and_large_files_are_no_pin(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("21\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".java-version").symlink_to(outside)
    os.link(outside, project / ".sdkmanrc")
    (project / ".tool-versions").write_text("java 21\n" + "#" * MAX_PIN_BYTES)
    assert version_file_pins(project) == []
    # Nor is anything written through them: the link is refused, the outside file unchanged.
    with pytest.raises(ToolError, match="is a link"):
        pin_jdk(project, OTHER)
    assert outside.read_text() == "21\n"
    (project / ".java-version").unlink()
    (project / ".java-version").symlink_to("pom.xml")  # a link inside: the build file is not overwritten
    (project / "pom.xml").write_text("<project/>\n")
    with pytest.raises(ToolError, match="is a link"):
        pin_jdk(project, OTHER)
    assert (project / "pom.xml").read_text() == "<project/>\n"
    (project / ".java-version").unlink()
    (project / ".java-version").mkdir()
    with pytest.raises(ToolError, match="not a regular file"):
        pin_jdk(project, OTHER)


def test_a_fifo_never_blocks_the_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".java-version")
    assert version_file_pins(tmp_path) == []


# ---- writing ------------------------------------------------------------------------------------


def test_no_version_file_gets_java_version_with_the_major_only(tmp_path: Path) -> None:
    (tmp_path / ".tool-versions").write_text("nodejs 20.11.0\n")  # names no Java: left alone
    created: set[str] = set()
    assert pin_jdk(tmp_path, OTHER, created) == [".java-version"]
    assert (tmp_path / ".java-version").read_text() == f"{OTHER}\n"
    assert (tmp_path / ".tool-versions").read_text() == "nodejs 20.11.0\n"
    assert created == {".java-version"}
    assert pin_jdk(tmp_path, OTHER, created) == []  # pinned already: nothing written
    if DEFAULT is not None:
        # Back to the default: the file made for the other JDK goes, it would only say 17.
        assert pin_jdk(tmp_path, DEFAULT.version, created) == [".java-version"]
        assert not (tmp_path / ".java-version").exists() and created == set()


def test_the_default_jdk_needs_no_new_file(tmp_path: Path) -> None:
    if DEFAULT is None:
        pytest.skip("no default JDK")
    assert pin_jdk(tmp_path, DEFAULT.version) == []
    assert list(tmp_path.iterdir()) == []


def test_every_version_file_the_project_has_is_updated(tmp_path: Path) -> None:
    (tmp_path / ".java-version").write_text("openjdk64-17.0.2\n")
    (tmp_path / ".tool-versions").write_text("nodejs 20.11.0\njava temurin-17.0.9+9 # pinned\npython 3.12\n")
    (tmp_path / ".sdkmanrc").write_text("gradle=8.5\njava=17.0.9-tem\n")
    os.chmod(tmp_path / ".sdkmanrc", 0o640)
    assert pin_jdk(tmp_path, 25) == [".java-version", ".tool-versions", ".sdkmanrc"]
    assert (tmp_path / ".java-version").read_text() == "25\n"
    assert (
        tmp_path / ".tool-versions"
    ).read_text() == "nodejs 20.11.0\njava temurin-25 # pinned\npython 3.12\n"
    assert (tmp_path / ".sdkmanrc").read_text() == "gradle=8.5\njava=25-tem\n"
    assert (tmp_path / ".sdkmanrc").stat().st_mode & 0o777 == 0o640  # permissions kept
    assert {p.version for p in version_file_pins(tmp_path)} == {25}


def test_an_existing_default_pin_is_changed_not_removed(tmp_path: Path) -> None:
    if DEFAULT is None:
        pytest.skip("no default JDK")
    (tmp_path / ".java-version").write_text(f"{OTHER}\n")  # the user's own file
    assert pin_jdk(tmp_path, DEFAULT.version, set()) == [".java-version"]
    assert (tmp_path / ".java-version").read_text() == f"{DEFAULT.version}\n"


def test_toolchains_and_paths_are_never_written(tmp_path: Path) -> None:
    script = "java { toolchain { languageVersion = JavaLanguageVersion.of(11) } }\n"
    (tmp_path / "build.gradle").write_text(script)
    assert pin_jdk(tmp_path, OTHER) == [".java-version"]
    assert (tmp_path / "build.gradle").read_text() == script
    assert "/" not in (tmp_path / ".java-version").read_text()
    with pytest.raises(ToolError, match="no Java version"):
        pin_jdk(tmp_path, 0)


def test_a_large_version_file_is_refused_not_read(tmp_path: Path) -> None:
    (tmp_path / ".sdkmanrc").write_text("java=17\n")
    assert pin_jdk(tmp_path, OTHER) == [".sdkmanrc"]
    (tmp_path / ".sdkmanrc").write_text("java=17\n" + "#" * MAX_PIN_BYTES)  # no pin read from it
    (tmp_path / ".java-version").write_text("17\n")
    assert pin_jdk(tmp_path, OTHER) == [".java-version"]
    assert (tmp_path / ".sdkmanrc").read_text().startswith("java=17\n")


# ---- the JDK a build runs on ------------------------------------------------------------------------


def test_choose_jdk_honours_the_pin(tmp_path: Path) -> None:
    assert choose_jdk(tmp_path, None).jdk == DEFAULT
    (tmp_path / ".java-version").write_text(f"{OTHER}\n")
    choice = choose_jdk(tmp_path, None)
    assert choice.jdk is not None and choice.jdk.version == OTHER and choice.pinned and choice.note == ""
    assert choice.pin is not None and choice.pin.file == ".java-version"
    named = choose_jdk(tmp_path, INSTALLED[0])  # --jdk wins over the pin
    assert named.jdk is not None and named.jdk.version == INSTALLED[0] and not named.pinned
    with pytest.raises(BuildfixerError, match=f"no JDK {MISSING} installed"):
        choose_jdk(tmp_path, MISSING)


def test_a_pinned_jdk_that_is_not_installed_is_named_in_one_line(tmp_path: Path) -> None:
    (tmp_path / ".tool-versions").write_text(f"java temurin-{MISSING}.0.1\n")
    choice = choose_jdk(tmp_path, None)
    assert choice.jdk == DEFAULT and not choice.pinned
    found = ", ".join(map(str, INSTALLED))
    pinned = f"the project pins JDK {MISSING} (.tool-versions), which is not installed here"
    assert choice.note.startswith(f"{pinned} (found: {found}); built on")
    assert "\n" not in choice.note


def test_a_toolchain_jdk_that_is_not_installed_is_named(tmp_path: Path) -> None:
    (tmp_path / "build.gradle.kts").write_text(f"kotlin {{ jvmToolchain({MISSING}) }}\n")
    choice = choose_jdk(tmp_path, None)
    assert choice.jdk == DEFAULT  # the toolchain does not choose the JDK Gradle runs on
    assert f"JDK {MISSING} (the Gradle toolchain in build.gradle.kts), not installed here" in choice.note
    (tmp_path / "build.gradle.kts").write_text(f"kotlin {{ jvmToolchain({INSTALLED[0]}) }}\n")
    assert choose_jdk(tmp_path, None).note == ""
