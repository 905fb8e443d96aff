"""dependency_upgrade and remove_dependency on small build files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildfixer.deps import registry
from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.dependency import dependency_tools
from support.tools import tool_context, tools_by_name

GRADLE = """dependencies {
    implementation 'com.google.code.gson:gson:2.8.99'
    implementation 'org.apache.commons:commons-lang3:3.12.0'
    testImplementation 'junit:junit:4.13.2'
}
"""
pytestmark = pytest.mark.usefixtures("private_home")  # the user's ~/.m2 and ~/.gradle stay out of sight


def tools(root: Path, system: str, tmp_path: Path) -> dict[str, Tool]:
    context = tool_context(root, system, cache_dir=tmp_path / "cache", offline=True)
    return tools_by_name(context, dependency_tools)


@pytest.fixture
def gradle(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "build.gradle").write_text(GRADLE)
    return root


def test_schemas(gradle: Path, tmp_path: Path) -> None:
    found = tools(gradle, "gradle", tmp_path)
    assert set(found) == {"dependency_upgrade", "remove_dependency"}
    upgrade = found["dependency_upgrade"].parameters
    assert upgrade["required"] == ["dependency"]
    assert set(upgrade["properties"]) == {"dependency", "version"}
    assert found["remove_dependency"].parameters["required"] == ["dependency"]


def test_upgrade_to_a_given_version(gradle: Path, tmp_path: Path) -> None:
    out = tools(gradle, "gradle", tmp_path)["dependency_upgrade"].call(
        json.dumps({"dependency": "com.google.code.gson:gson", "version": "2.8.9"})
    )
    assert out.startswith("com.google.code.gson:gson: 2.8.99 -> 2.8.9")
    assert "+    implementation 'com.google.code.gson:gson:2.8.9'" in out
    assert "gson:2.8.9'\n" in (gradle / "build.gradle").read_text()


def test_artifact_name_alone_is_qualified_when_unique(gradle: Path, tmp_path: Path) -> None:
    tool = tools(gradle, "gradle", tmp_path)["dependency_upgrade"]
    tool.call({"dependency": "commons-lang3", "version": "3.14.0"})
    assert "commons-lang3:3.14.0'" in (gradle / "build.gradle").read_text()
    (gradle / "build.gradle").write_text(
        GRADLE + "dependencies { implementation 'org.other:commons-lang3:1' }\n"
    )
    with pytest.raises(ToolError, match="ambiguous"):
        tool.call({"dependency": "commons-lang3", "version": "3.14.0"})


def test_upgrade_to_the_newest_known_release(
    gradle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "http_get", lambda url, accept: pytest.fail("offline"))
    repo = tmp_path / "cache" / "m2" / "repository" / "com" / "google" / "code" / "gson" / "gson"
    for version in ("2.8.9", "2.10.1", "2.11.0-rc1"):
        (repo / version).mkdir(parents=True)
        (repo / version / f"gson-{version}.pom").write_text("<project/>")
    out = tools(gradle, "gradle", tmp_path)["dependency_upgrade"].call(
        {"dependency": "com.google.code.gson:gson"}
    )
    assert "2.8.99 -> 2.10.1" in out


def test_no_known_version_offline(gradle: Path, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="no published versions"):
        tools(gradle, "gradle", tmp_path)["dependency_upgrade"].call({"dependency": "junit:junit"})


def test_undeclared_and_bad_arguments(gradle: Path, tmp_path: Path) -> None:
    found = tools(gradle, "gradle", tmp_path)
    with pytest.raises(ToolError, match="not declared"):
        found["dependency_upgrade"].call({"dependency": "com.acme:nothing", "version": "1"})
    with pytest.raises(ToolError, match="not a version"):
        found["dependency_upgrade"].call({"dependency": "junit:junit", "version": "4.13.2; rm -rf /"})
    with pytest.raises(ToolError, match="empty"):
        found["remove_dependency"].call({"dependency": " "})
    with pytest.raises(ToolError, match="missing required"):
        found["remove_dependency"].call({})


def test_remove(gradle: Path, tmp_path: Path) -> None:
    out = tools(gradle, "gradle", tmp_path)["remove_dependency"].call({"dependency": "junit:junit"})
    assert out.startswith("removed junit:junit")
    assert "junit" not in (gradle / "build.gradle").read_text()


def test_maven_property_version(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pom.xml").write_text(
        "<project>\n  <properties>\n    <kotlin.version>1.9.27</kotlin.version>\n  </properties>\n"
        "  <build><plugins><plugin>\n    <groupId>org.jetbrains.kotlin</groupId>\n"
        "    <artifactId>kotlin-maven-plugin</artifactId>\n    <version>${kotlin.version}</version>\n"
        "  </plugin></plugins></build>\n</project>\n"
    )
    out = tools(root, "maven", tmp_path)["dependency_upgrade"].call(
        {"dependency": "org.jetbrains.kotlin:kotlin-maven-plugin", "version": "1.9.25"}
    )
    assert "1.9.27 -> 1.9.25" in out
    assert "<kotlin.version>1.9.25</kotlin.version>" in (root / "pom.xml").read_text()
    with pytest.raises(ToolError, match="cannot remove"):  # the plugin block shares its lines
        tools(root, "maven", tmp_path)["remove_dependency"].call(
            {"dependency": "org.jetbrains.kotlin:kotlin-maven-plugin"}
        )


def test_python_and_npm(tmp_path: Path) -> None:
    py = tmp_path / "py"
    py.mkdir()
    (py / "requirements.txt").write_text("packaging==23.7\nrich\n")
    found = tools(py, "python", tmp_path)
    assert "23.7 -> 23.2" in found["dependency_upgrade"].call({"dependency": "packaging", "version": "23.2"})
    found["remove_dependency"].call({"dependency": "rich"})
    assert (py / "requirements.txt").read_text() == "packaging==23.2\n"

    js = tmp_path / "js"
    js.mkdir()
    (js / "package.json").write_text('{\n  "devDependencies": {\n    "typescript": "^5.4.9"\n  }\n}\n')
    (js / "package-lock.json").write_text("{}")
    out = tools(js, "npm", tmp_path)["dependency_upgrade"].call(
        {"dependency": "typescript", "version": "5.4.5"}
    )
    assert '"typescript": "^5.4.5"' in (js / "package.json").read_text()
    assert "package-lock.json still pins" in out
