"""Build tools on real builds of the bundled examples, and their argument handling without builds."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.build_result import BuildResult
from buildfixer.examples import materialize, materialize_base
from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.build_commands import split_command
from buildfixer.tools.build_support import command_text, condensed_view, raw_view
from buildfixer.tools.build_tools import build_tools, format_build_output
from buildfixer.tools.context import ToolContext
from support.tools import tool_context, tools_by_name

WRAPPER = "gradle/wrapper/gradle-wrapper.properties"
FIXTURE_LOG = (
    Path(__file__).resolve().parent.parent / "fixtures" / "logs" / "gradle4_javac_cannot_find_symbol.log"
)


def toolset(ctx: ToolContext) -> dict[str, Tool]:
    return tools_by_name(ctx, build_tools)


@pytest.fixture
def contexts() -> Iterator[list[ToolContext]]:
    """Contexts whose builds are stopped (Gradle daemons) after the test."""
    made: list[ToolContext] = []
    yield made
    for ctx in made:
        stop_daemons(ctx.root, ctx.options)


def context(made: list[ToolContext], root: Path, system: str, **kw: object) -> ToolContext:
    ctx = tool_context(root, system, timeout_s=600, **kw)
    made.append(ctx)
    return ctx


def test_tools_offered_per_build_system(tmp_path: Path) -> None:
    common = ["run_build", "validate_and_build", "change_java_version"]
    expected = {
        "gradle": [*common, "run_gradle_command", "upgrade_gradle"],
        "maven": [*common, "run_maven_command"],
        "npm": [*common, "run_npm_command"],
        "python": [*common, "run_python_command"],
    }
    for system, names in expected.items():
        tools = build_tools(tool_context(tmp_path, system))
        assert [t.name for t in tools] == names
        for tool in tools:
            assert tool.description and tool.schema()["function"]["parameters"]["type"] == "object"
    command = toolset(tool_context(tmp_path, "maven"))["run_maven_command"]
    assert "Maven" in command.description


def test_change_java_version_enum_and_refusal(tmp_path: Path) -> None:
    installed = sorted({j.version for j in discover_jdks()})
    ctx = tool_context(tmp_path, "gradle", installed_jdks=installed)
    tool = toolset(ctx)["change_java_version"]
    assert tool.parameters["properties"]["version"]["enum"] == installed
    with pytest.raises(ToolError, match="must be one of"):
        tool.call({"version": 3})
    with pytest.raises(ToolError, match="available versions: " + ", ".join(map(str, installed))):
        tool.fn(version=3)
    assert ctx.options.jdk is None
    out = tool.call({"version": installed[-1]})
    assert out.startswith(f"Java version set to {installed[-1]} (JAVA_HOME=/")
    assert ctx.options.jdk == installed[-1]
    python_ctx = tool_context(tmp_path, "python", installed_jdks=installed)
    assert "only matters to JVM builds" in toolset(python_ctx)["change_java_version"].call(
        {"version": installed[0]}
    )


def test_command_parsing() -> None:
    launchers = ("gradle", "gradlew", "gradlew.bat")
    assert split_command("./gradlew dependencies", launchers, "Gradle") == ["dependencies"]
    assert split_command("gradlew tasks --all", launchers, "Gradle") == ["tasks", "--all"]
    assert split_command("sh gradlew build", launchers, "Gradle") == ["build"]
    assert split_command("dependencies --stacktrace", launchers, "Gradle") == ["dependencies", "--stacktrace"]
    assert split_command("test --tests '*Parser Test'", launchers, "Gradle") == [
        "test",
        "--tests",
        "*Parser Test",
    ]
    for bad in ["build; rm -rf /", "build && ls", "tasks | head", "build > out", "`id`", "build $(id)"]:
        with pytest.raises(ToolError, match="only Gradle arguments are accepted"):
            split_command(bad, launchers, "Gradle")
    with pytest.raises(ToolError, match="quotes"):
        split_command("build 'unclosed", launchers, "Gradle")
    assert command_text(
        ["sh", "gradlew", "build", "--console=plain", "-Dorg.gradle.daemon.idletimeout=1", "--daemon"]
    ) == ("./gradlew build")
    assert (
        command_text(["/usr/bin/mvn", "-B", "-ntp", "-Dmaven.repo.local=/x", "-q", "validate"])
        == "mvn -q validate"
    )


def test_refusals_without_building(tmp_path: Path) -> None:
    root = materialize_base("gradle-app", tmp_path / "g")
    ctx = tool_context(root, "gradle")
    tools = toolset(ctx)
    with pytest.raises(ToolError, match="only Gradle arguments"):
        tools["run_gradle_command"].call({"gradle_command": "build; rm -rf /"})
    with pytest.raises(ToolError, match="name the Gradle tasks"):
        tools["run_gradle_command"].call({"gradle_command": "./gradlew"})
    python = toolset(tool_context(materialize_base("python-app", tmp_path / "p"), "python"))[
        "run_python_command"
    ]
    for bad in ["python -c 'import os'", "python setup.py", "rm -rf /", "pytest; id"]:
        with pytest.raises(ToolError):
            python.call({"python_command": bad})
    with pytest.raises(ToolError, match="call run_build first"):
        python.call({"python_command": "pytest -q"})
    npm = toolset(tool_context(materialize_base("npm-app", tmp_path / "n"), "npm"))["run_npm_command"]
    with pytest.raises(ToolError, match="not accepted"):
        npm.call({"npm_command": "npm exec tsc"})
    with pytest.raises(ToolError, match="no script 'lint'; scripts: build, test"):
        npm.call({"npm_command": "npm run lint"})
    assert ctx.builds == []


def test_raw_view_cleans_the_log_and_keeps_head_and_tail(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    noise = "\n".join(f"\x1b[32m<===---> {i}% EXECUTING [1s]\x1b[0m" for i in range(100))
    filler = "\n".join(f"line {i}" for i in range(5000))
    log.write_text(f"{FIXTURE_LOG.read_text()}\n{noise}\n{filler}\nLAST LINE\n")
    result = BuildResult(
        "failure", 1, 12.34, "gradle", ["/usr/bin/gradle", "build", "--console=plain", "--daemon"], 17,
        str(log), environment={"notes": "the wrapper asks for Gradle 8.5"},
    )  # fmt: skip
    raw = raw_view(result)
    lines = raw.splitlines()
    assert lines[0] == "BUILD FAILED (exit 1) in 12.3s — gradle build on JDK 17"
    assert lines[1] == "Note: the wrapper asks for Gradle 8.5"
    assert "App.java:6: error: cannot find symbol" in raw and raw.rstrip().endswith("LAST LINE")
    assert "MavenResolverHook" not in raw and "EXECUTING" not in raw and "\x1b" not in raw
    assert "characters omitted" in raw and len(raw) <= 16_000
    condensed = condensed_view(result, tmp_path)
    assert condensed.startswith("BUILD FAILED (exit 1)")
    assert "Root error [javac, syntax] at /home/ci/work/demo/src/main/java/demo/App.java:6" in condensed
    assert len(condensed) < len(raw) and "MavenResolverHook" not in condensed
    timeout = BuildResult("timeout", -1, 600.0, "maven", ["mvn", "-B", "package"], None, str(log))
    assert raw_view(timeout).startswith("BUILD TIMED OUT (killed) in 600.0s — mvn package\n")


def write_wrapper(root: Path, url: str, checksum: bool = True) -> Path:
    props = root / WRAPPER
    props.parent.mkdir(parents=True)
    lines = ["distributionBase=GRADLE_USER_HOME", f"distributionUrl={url}", "zipStorePath=wrapper/dists"]
    if checksum:
        lines.insert(1, "distributionSha256Sum=0123abcd")
    props.write_text("\n".join(lines) + "\n")
    return props


def test_upgrade_gradle_rewrites_the_wrapper(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\n")
    props = write_wrapper(tmp_path, r"https\://services.gradle.org/distributions/gradle-4.4.1-all.zip")
    tool = toolset(tool_context(tmp_path, "gradle"))["upgrade_gradle"]
    out = tool.call({"version": "8.5"})
    text = props.read_text()
    assert r"distributionUrl=https\://services.gradle.org/distributions/gradle-8.5-all.zip" in text
    assert "distributionSha256Sum" not in text and "zipStorePath=wrapper/dists" in text
    assert "gradle-4.4.1-all.zip -> https://services.gradle.org/distributions/gradle-8.5-all.zip" in out
    tool.call({"version": "8.0-rc-1"})
    assert "gradle-8.0-rc-1-all.zip" in props.read_text()
    for bad in ["latest", "8", "8.5; rm", "8.x"]:
        with pytest.raises(ToolError, match="not a Gradle version"):
            tool.call({"version": bad})


def test_upgrade_gradle_keeps_bin_and_mirror(tmp_path: Path) -> None:
    (tmp_path / "settings.gradle").write_text("")
    props = write_wrapper(tmp_path, "https://mirror.example/gradle/gradle-7.6-bin.zip", checksum=False)
    toolset(tool_context(tmp_path, "gradle"))["upgrade_gradle"].call({"version": "7.6.4"})
    assert r"distributionUrl=https\://mirror.example/gradle/gradle-7.6.4-bin.zip" in props.read_text()


def test_upgrade_gradle_without_wrapper(tmp_path: Path) -> None:
    script = tmp_path / "build.gradle"
    script.write_text("apply plugin: 'java'\n")
    tool = toolset(tool_context(tmp_path, "gradle"))["upgrade_gradle"]
    with pytest.raises(ToolError, match="no Gradle wrapper.*Gradle installed on the machine"):
        tool.call({"version": "8.5"})
    script.write_text("apply plugin: 'java'\nwrapper {\n    gradleVersion = '4.4'\n}\n")
    out = tool.call({"version": "6.9.4"})
    assert "gradleVersion = '6.9.4'" in script.read_text()
    assert "4.4 -> 6.9.4" in out


@pytest.mark.slow
def test_run_build_raw_and_condensed_on_a_failing_gradle_build(
    tmp_path: Path, contexts: list[ToolContext]
) -> None:
    root = materialize("gradle-app/syntax-error", tmp_path / "project")
    ctx = context(contexts, root, "gradle")
    tools = toolset(ctx)
    raw = tools["run_build"].call({})
    first = raw.splitlines()[0]
    assert first.startswith("BUILD FAILED (exit 1) in ") and first.endswith("gradle build on JDK 17"), first
    assert "Inventory.java:24: error: ';' expected" in raw
    assert "MavenResolverHook" not in raw and "\x1b[" not in raw
    assert len(ctx.builds) == 1 and ctx.builds[0].status == "failure"

    condensed = tools["validate_and_build"].call({})
    assert condensed.startswith("BUILD FAILED (exit 1)")
    assert "Root error [javac, syntax] at src/main/java/com/example/inventory/Inventory.java:24" in condensed
    assert ">> 24 |" in condensed  # the source line of the error
    ctx.build_output = "condensed"
    assert "Root error" in tools["run_build"].call({})
    assert len(ctx.builds) == 3
    assert format_build_output(ctx, ctx.builds[-1], "raw").startswith("BUILD FAILED")

    listing = tools["run_gradle_command"].call({"gradle_command": "./gradlew tasks"})
    assert listing.startswith("BUILD SUCCESSFUL") and "gradle tasks on JDK" in listing.splitlines()[0]
    assert "Build tasks" in listing
    assert ctx.builds[-1].command[1] == "tasks"


@pytest.mark.slow
def test_maven_command_and_jdk_switch(tmp_path: Path, contexts: list[ToolContext]) -> None:
    newest = max(jdk.version for jdk in discover_jdks())
    if newest < 21:
        pytest.skip("needs a JDK 21 or newer")
    root = materialize("maven-app/jdk-level", tmp_path / "project")
    ctx = context(contexts, root, "maven", installed_jdks=sorted({j.version for j in discover_jdks()}))
    tools = toolset(ctx)
    validate = tools["run_maven_command"].call({"maven_command": "mvn -q validate"})
    assert validate.startswith("BUILD SUCCESSFUL") and "mvn -q validate" in validate.splitlines()[0]
    failing = tools["run_build"].call({})
    assert failing.startswith("BUILD FAILED") and "release version 21 not supported" in failing
    assert tools["change_java_version"].call({"version": newest}).startswith(f"Java version set to {newest}")
    fixed = tools["run_build"].call({})
    assert fixed.startswith("BUILD SUCCESSFUL") and f"on JDK {newest}" in fixed.splitlines()[0], fixed[-2000:]
    assert ctx.builds[-1].jdk == newest and len(ctx.builds) == 3


@pytest.mark.slow
def test_python_command_runs_in_the_build_venv(tmp_path: Path, contexts: list[ToolContext]) -> None:
    root = materialize_base("python-app", tmp_path / "project")
    ctx = context(contexts, root, "python")
    tools = toolset(ctx)
    assert tools["run_build"].call({}).startswith("BUILD SUCCESSFUL")
    out = tools["run_python_command"].call({"python_command": "pytest -q tests"})
    assert out.startswith("COMMAND SUCCEEDED (exit 0)") and "passed" in out
    listing = tools["run_python_command"].call({"python_command": "pip list"})
    assert "semverkit" in listing
    assert not (root / ".pytest_cache").exists()


@pytest.mark.slow
def test_npm_command_scripts_and_direct(tmp_path: Path, contexts: list[ToolContext]) -> None:
    root = materialize("npm-app/syntax-error", tmp_path / "project")
    ctx = context(contexts, root, "npm")
    tool = toolset(ctx)["run_npm_command"]
    built = tool.call({"npm_command": "npm run build"})
    assert built.startswith("BUILD FAILED") and "TS2345" in built
    assert ctx.builds[-1].command[-2:] == ["run", "build"]
    listed = tool.call({"npm_command": "npm ls --depth=0"})
    assert listed.startswith("COMMAND SUCCEEDED") and "typescript@5.4.5" in listed


def test_command_tools_refuse_paths_outside_the_workspace(tmp_path):
    from buildfixer.tools.base import ToolError
    from buildfixer.tools.build_commands import command_tools

    (tmp_path / "ws").mkdir()
    for system, name, command in [
        ("gradle", "run_gradle_command", "./gradlew -p /etc build"),
        ("gradle", "run_gradle_command", "build --project-dir=../other"),
        ("maven", "run_maven_command", "mvn -f ../../pom.xml package"),
        ("python", "run_python_command", "pytest /etc"),
    ]:
        ctx = tool_context(tmp_path / "ws", system)
        tool = next(t for t in command_tools(ctx) if t.name == name)
        with pytest.raises(ToolError, match="outside the workspace"):
            tool.call({tool.parameters["required"][0]: command})
