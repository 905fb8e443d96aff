"""Toolsets fit the project: tools that apply, examples of its ecosystem, outputs condensed like logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildResult
from buildfixer.examples import materialize_base
from buildfixer.tools import build_commands, presets
from buildfixer.tools.base import ToolError, make_tool
from buildfixer.tools.build_support import command_build_view, output_body
from buildfixer.tools.context import ToolContext
from buildfixer.tools.dependency import dependency_tools, split_spec
from buildfixer.tools.presets import PRESETS, make_toolset, preset_schemas, tool_names
from buildfixer.tools.shell import runs_a_build, shell_tools
from support.projects import npm_project, stats_project
from support.tools import tool_context, tools_by_name

FIXTURE_LOG = (
    Path(__file__).resolve().parent.parent / "fixtures" / "logs" / "gradle4_javac_cannot_find_symbol.log"
)
ROOT_ERROR = "App.java:6: error: cannot find symbol"
# What a Gradle or Android project's examples say, and no other project's schemas may.
JVM_WORDS = ("gradle", "android", "kotlin", ".kt", "app/src", "java", "jdk", "maven", "mvn", "pom.xml")


class Search:
    def search(self, query: str) -> str:
        return f"results for {query}"


class Knowledge:
    def answer(self, question: str) -> str:
        return "a note"


def names(ctx: ToolContext, preset: str, mask: str = "none") -> list[str]:
    return [tool.name for tool in make_toolset(ctx, preset, mask)]


def schemas_text(ctx: ToolContext, preset: str) -> str:
    return json.dumps([tool.schema() for tool in make_toolset(ctx, preset)])


@pytest.fixture
def python_project(tmp_path: Path) -> Path:
    return stats_project(tmp_path / "stats")


@pytest.fixture
def npm_root(tmp_path: Path) -> Path:
    return npm_project(tmp_path / "demo")


# --- which tools are offered -----------------------------------------------------------------


def test_a_python_project_gets_no_jdk_switch_and_no_web_search(python_project: Path) -> None:
    ctx = tool_context(python_project, "python")
    offered = names(ctx, "gradlefixer")
    assert offered == [
        "list_directory", "glob", "search_file_content", "read_file", "replace", "run_build",
        "run_python_command",
    ]  # fmt: skip
    for preset in PRESETS:
        offered = names(ctx, preset)
        assert "change_java_version" not in offered and "search_google" not in offered, preset
        assert "upgrade_gradle" not in offered and "run_gradle_command" not in offered, preset


def test_an_npm_project_gets_its_own_command_and_no_jdk_switch(npm_root: Path) -> None:
    ctx = tool_context(npm_root, "npm")
    assert names(ctx, "shell+build+gradle+java") == [
        "list_directory", "glob", "search_file_content", "read_file", "replace", "run_shell", "run_build",
        "run_npm_command",
    ]  # fmt: skip
    assert "upgrade_gradle" not in names(ctx, "industrial")
    assert "dependency_upgrade" in names(ctx, "industrial")  # the dependency tools know package.json


def test_jvm_projects_keep_the_jdk_switch_and_only_gradle_its_upgrade(tmp_path: Path) -> None:
    maven = tool_context(materialize_base("maven-app", tmp_path / "m"), "maven")
    assert names(maven, "gradlefixer")[-3:] == ["run_build", "run_maven_command", "change_java_version"]
    assert "upgrade_gradle" not in names(maven, "industrial")
    gradle = tool_context(materialize_base("gradle-app", tmp_path / "g"), "gradle")
    assert names(gradle, "gradlefixer")[-3:] == ["run_build", "run_gradle_command", "change_java_version"]
    assert "upgrade_gradle" in names(gradle, "industrial")


def test_a_search_backend_decides_web_search(python_project: Path) -> None:
    bare = tool_context(python_project, "python")
    equipped = tool_context(python_project, "python", search=Search())
    assert "search_google" not in names(bare, "noshell") and "search_google" in names(equipped, "noshell")
    # The fix memory's tool stays: a run's memory fills as it goes, and an empty one says so.
    assert "ask_for_help" in names(bare, "industrial")
    found = {tool.name: tool for tool in make_toolset(equipped, "noshell")}
    assert found["search_google"].call({"query": "x"}) == "results for x"
    assert tool_names("noshell", "python", backends=["search"])[-1] == "search_google"
    assert "search_google" not in tool_names("noshell", "python", backends=[])


def test_without_backends_given_the_environment_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUILDFIXER_SEARCH_CMD", raising=False)
    monkeypatch.delenv("BUILDFIXER_KNOWLEDGE_DIR", raising=False)
    assert "search_google" not in tool_names("gradlefixer", "gradle")
    assert "search_google" not in {s["function"]["name"] for s in preset_schemas("gradlefixer", ["gradle"])}
    monkeypatch.setenv("BUILDFIXER_SEARCH_CMD", "echo")
    assert "search_google" in tool_names("gradlefixer", "gradle")
    assert "search_google" in {s["function"]["name"] for s in preset_schemas("gradlefixer", ["gradle"])}


def test_every_conditional_tool_says_when_it_is_offered() -> None:
    assert set(presets.CONDITIONS) == set(presets.ONLY_ON) | set(presets.NEEDS)
    # The schemas of several systems are their union: the JDK switch comes with Maven.
    schemas = preset_schemas("gradlefixer", ["python", "maven"], backends=[])
    assert {"run_python_command", "run_maven_command", "change_java_version"} <= {
        s["function"]["name"] for s in schemas
    }
    assert "change_java_version" not in {
        s["function"]["name"] for s in preset_schemas("gradlefixer", ["npm"])
    }


def test_masking_still_hides_names_and_words(python_project: Path) -> None:
    ctx = tool_context(python_project, "python")
    plain = names(ctx, "gradlefixer")
    masked = make_toolset(ctx, "gradlefixer", "both")
    assert [tool.name for tool in masked] == [f"tool_{chr(ord('A') + i)}" for i in range(len(plain))]
    text = json.dumps([tool.schema() for tool in masked])
    assert not [name for name in plain if name in text]
    assert all("[MASKED]" in tool.description for tool in masked)
    read = masked[plain.index("read_file")]
    assert "offset" not in read.more and "limit" not in read.more  # the cap's hint is masked too
    assert read.call({"arg_1": "stats.py"}).startswith("def mean")


# --- descriptions in the project's terms -----------------------------------------------------


@pytest.mark.parametrize("system", ["python", "npm"])
def test_no_gradle_or_android_examples_outside_jvm_projects(
    python_project: Path, npm_root: Path, system: str
) -> None:
    root = python_project if system == "python" else npm_root
    ctx = tool_context(root, system, search=Search(), knowledge=Knowledge())
    for preset in PRESETS:
        text = schemas_text(ctx, preset).lower()
        assert not [word for word in JVM_WORDS if word in text], preset


def test_glob_and_path_examples_follow_the_build_system(
    python_project: Path, npm_root: Path, tmp_path: Path
) -> None:
    def glob_pattern(ctx: ToolContext) -> str:
        (glob,) = [tool for tool in make_toolset(ctx, "noshell") if tool.name == "glob"]
        return str(glob.parameters["properties"]["pattern"]["description"])

    python = tool_context(python_project, "python")
    assert '"src/**/*.py"' in glob_pattern(python)
    assert ".kt" not in glob_pattern(python) and "app/src" not in glob_pattern(python)
    assert '"src/**/*.ts"' in glob_pattern(tool_context(npm_root, "npm"))
    maven = tool_context(materialize_base("maven-app", tmp_path / "m"), "maven")
    assert '"src/main/java/**/*.java"' in glob_pattern(maven)
    assert "app/src/main/**/*.xml" in glob_pattern(tool_context(tmp_path, "gradle"))  # Gradle keeps its own
    read = {tool.name: tool for tool in make_toolset(python, "noshell")}["read_file"]
    assert '"pyproject.toml"' in read.parameters["properties"]["path"]["description"]


def test_dependency_names_and_web_queries_in_the_ecosystems_form(tmp_path: Path) -> None:
    def described(system: str, tool: str, param: str) -> str:
        ctx = tool_context(tmp_path, system, search=Search())
        found = {t.name: t for t in make_toolset(ctx, "industrial")} | {
            t.name: t for t in make_toolset(ctx, "noshell")
        }
        return str(found[tool].parameters["properties"][param]["description"])

    assert '"org.apache.commons:commons-lang3"' in described("maven", "dependency_upgrade", "dependency")
    assert '"requests"' in described("python", "dependency_upgrade", "dependency")
    assert '"lodash"' in described("npm", "remove_dependency", "dependency")
    assert "requests==9.0" in described("python", "search_google", "query")
    assert "lodash@9.0.0" in described("npm", "search_google", "query")
    assert "commons-lang3:jar:3.99" in described("maven", "search_google", "query")


def test_run_build_describes_this_project_and_its_output_style(python_project: Path, tmp_path: Path) -> None:
    def run_build(ctx: ToolContext) -> str:
        return {t.name: t for t in make_toolset(ctx, "only-build")}["run_build"].description

    python = run_build(tool_context(python_project, "python"))
    assert "pytest" in python and "change_java_version" not in python and "./gradlew" not in python
    assert "keeps its beginning and end" in python
    assert "root error first" in run_build(tool_context(python_project, "python", build_output="condensed"))
    maven = run_build(tool_context(materialize_base("maven-app", tmp_path / "m"), "maven"))
    assert "mvn package" in maven and "change_java_version" in maven


# --- dependencies named with their version ---------------------------------------------------


def test_a_version_attached_to_the_name_is_read_as_the_version() -> None:
    assert split_spec("npm", "lodash@4.17.21") == ("lodash", "4.17.21")
    assert split_spec("npm", "@types/node@20.1.0") == ("@types/node", "20.1.0")
    assert split_spec("npm", "@types/node") == ("@types/node", None)
    assert split_spec("python", "requests==2.31.0") == ("requests", "2.31.0")
    assert split_spec("python", "requests>=2") == ("requests>=2", None)
    assert split_spec("maven", "org.example:lib:1.2") == ("org.example:lib", "1.2")
    assert split_spec("gradle", "org.example:lib") == ("org.example:lib", None)


def test_dependency_upgrade_takes_name_at_version(npm_root: Path, tmp_path: Path) -> None:
    package = json.loads((npm_root / "package.json").read_text())
    package["dependencies"] = {"left-pad": "1.1.0"}
    (npm_root / "package.json").write_text(json.dumps(package))
    ctx = tool_context(npm_root, "npm", cache_dir=tmp_path / "cache", offline=True)
    upgrade = tools_by_name(ctx, dependency_tools)["dependency_upgrade"]
    out = upgrade.call({"dependency": "left-pad@1.3.0"})
    assert out.startswith("left-pad: 1.1.0 -> 1.3.0")
    assert json.loads((npm_root / "package.json").read_text())["dependencies"]["left-pad"] == "1.3.0"
    with pytest.raises(ToolError, match="two versions"):
        upgrade.call({"dependency": "left-pad@1.3.0", "version": "1.2.0"})


# --- outputs condensed like build logs -------------------------------------------------------


def long_gradle_log(path: Path) -> Path:
    """The fixture's javac failure, then 3,000 lines of `--stacktrace` and progress noise."""
    stack = "\n".join(f"\tat org.gradle.internal.Frame{i}.run(Frame{i}.java:{i})" for i in range(3000))
    noise = "\n".join(f"\x1b[32m<===---> {i}% EXECUTING [1s]\x1b[0m" for i in range(50))
    path.write_text(f"{FIXTURE_LOG.read_text()}\n{noise}\n* Exception is:\n{stack}\nBUILD FAILED in 3s\n")
    return path


def failed_build(log: Path) -> BuildResult:
    return BuildResult("failure", 1, 3.0, "gradle", ["gradle", "build", "--stacktrace"], 17, str(log))


def test_a_long_gradle_command_output_comes_back_condensed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = failed_build(long_gradle_log(tmp_path / "build.log"))
    monkeypatch.setattr(build_commands, "run_tool_build", lambda ctx, args: result)
    root = materialize_base("gradle-app", tmp_path / "g")
    condensed = tool_context(root, "gradle", build_output="condensed")
    tool = {t.name: t for t in make_toolset(condensed, "only-gradle")}["run_gradle_command"]
    out = tool.call({"gradle_command": "./gradlew build --stacktrace"})
    assert out.startswith("BUILD FAILED (exit 1) in 3.0s — gradle build --stacktrace")
    assert ROOT_ERROR in out and "Frame1500" not in out and len(out) < 4_000
    assert "condensed to its errors" in tool.description
    raw = {t.name: t for t in make_toolset(tool_context(root, "gradle"), "only-gradle")}["run_gradle_command"]
    out = raw.call({"gradle_command": "build --stacktrace"})
    assert ROOT_ERROR in out and "Frame2999" in out and "EXECUTING" not in out and "\x1b" not in out
    assert "characters omitted; narrow the command" in out and len(out) <= 16_000


def test_a_command_that_succeeded_keeps_its_output_when_condensed(tmp_path: Path) -> None:
    log = tmp_path / "deps.log"
    log.write_text(
        "\n".join(f"+--- org.example:lib{i}:1.0" for i in range(40)) + "\nBUILD SUCCESSFUL in 1s\n"
    )
    result = BuildResult("success", 0, 1.0, "gradle", ["gradle", "dependencies"], 17, str(log))
    out = command_build_view(tool_context(tmp_path, "gradle", build_output="condensed"), result)
    assert "org.example:lib0:1.0" in out and "org.example:lib39:1.0" in out


def test_output_body_analyzes_a_failed_build_only_when_condensed(tmp_path: Path) -> None:
    text = long_gradle_log(tmp_path / "build.log").read_text()
    condensed = output_body(tool_context(tmp_path, "gradle", build_output="condensed"), text, failed=True)
    assert ROOT_ERROR in condensed and "lines of output condensed to their errors" in condensed
    assert len(condensed) < 4_000
    raw = output_body(tool_context(tmp_path, "gradle"), text, failed=True)
    assert ROOT_ERROR in raw and "MavenResolverHook" not in raw and "characters omitted" in raw
    assert "Frame2999" in output_body(tool_context(tmp_path, "gradle", build_output="condensed"), text, False)


def test_build_commands_in_the_shell_are_recognised() -> None:
    for command in [
        "./gradlew build --stacktrace", "cd app && mvn -B package", "JAVA_HOME=/j ./mvnw compile",
        "npm test", "python -m pytest -x", "timeout 60 npm run build", "sh gradlew build",
    ]:  # fmt: skip
        assert runs_a_build(command), command
    for command in ["cat gradle/wrapper/gradle-wrapper.properties", "grep -rn gradle .", "ls", "cat pom.xml"]:
        assert not runs_a_build(command), command


@pytest.fixture
def fake_gradle(tmp_path: Path) -> Path:
    """A workspace whose `./gradlew` prints the long failing log and exits 1."""
    if shutil.which("bwrap") is None:
        pytest.fail("bwrap is required for this test (install bubblewrap: see .ci/run)")
    root = tmp_path / "workspace"
    root.mkdir()
    long_gradle_log(root / "gradle.log")
    (root / "gradlew").write_text("#!/bin/sh\ncat gradle.log\nexit 1\n")
    (root / "gradlew").chmod(0o755)
    (root / "notes.txt").write_text("    indented\n<===---> 45% EXECUTING [3s]\n")
    return root


def test_shell_build_output_is_cleaned_and_condensed(fake_gradle: Path, cache_dir: Path) -> None:
    raw_ctx = tool_context(fake_gradle, "gradle", cache_dir=cache_dir)
    shell = tools_by_name(raw_ctx, shell_tools)["run_shell"]
    out = shell.call({"shell_command": "./gradlew build --stacktrace"})
    assert out.startswith("exit code 1\n") and ROOT_ERROR in out
    assert "EXECUTING" not in out and "MavenResolverHook" not in out
    condensed_ctx = tool_context(fake_gradle, "gradle", cache_dir=cache_dir, build_output="condensed")
    out = tools_by_name(condensed_ctx, shell_tools)["run_sh"].call(
        {"command": "./gradlew build --stacktrace"}
    )
    assert out.startswith("exit code 1\n") and ROOT_ERROR in out and "Frame1500" not in out
    # Not a build: the file as it is, noise-like lines and indentation included.
    out = shell.call({"shell_command": "cat notes.txt"})
    assert out == "exit code 0\n    indented\n<===---> 45% EXECUTING [3s]"


def test_a_capped_output_says_how_to_see_more(fake_gradle: Path, cache_dir: Path) -> None:
    ctx = tool_context(fake_gradle, "gradle", cache_dir=cache_dir)
    out = tools_by_name(ctx, shell_tools)["run_shell"].call({"shell_command": "seq 1 100000"})
    assert "characters omitted; filter the output (grep, head, tail, sed -n)" in out

    def listing() -> str:
        """Print a lot."""
        return "x\n" * 50_000

    assert "characters omitted; ask for a smaller part" in make_tool(listing).call({})
    assert "characters omitted; read it in parts" in make_tool(listing, more="read it in parts").call({})
