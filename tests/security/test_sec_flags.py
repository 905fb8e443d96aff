"""Attacks on the build-command tools: arguments that point the build system outside the workspace.

Every spelling of a path counts: a separate value, a value attached to a short option, `--opt=`,
a system property, a list inside a value, a file URL, `~`, `..` and a symlink out. Each attack
must be refused before anything runs, with one message naming the argument, and leave the
outside directory as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from buildfixer.buildsys.project import stop_daemons
from buildfixer.examples import materialize_base
from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.build_commands import command_tools, confine_paths
from buildfixer.tools.context import ToolContext
from support.tools import tool_context

# (command, text the refusal must quote); {out} is a directory outside the workspace.
GRADLE = [
    ("-g{out}/home build", "-g{out}/home"),
    ("-g {out}/home build", "-g {out}/home"),
    ("--gradle-user-home={out}/home build", "--gradle-user-home="),
    ("--gradle-user-home {out}/home build", "--gradle-user-home {out}/home"),
    ("-Dgradle.user.home={out}/home build", "-Dgradle.user.home="),
    ("-p{out} build", "-p{out}"),
    ("--project-dir={out} build", "--project-dir="),
    ("-p ../.. build", "-p ../.."),
    ("-b{out}/build.gradle build", "-b{out}"),
    ("--build-file=../build.gradle build", "--build-file="),
    ("-c{out}/settings.gradle build", "-c{out}"),
    ("--settings-file {out}/settings.gradle build", "--settings-file"),
    ("-I{out}/init.gradle build", "-I{out}"),
    ("--init-script=~/init.gradle build", "--init-script="),
    ("--project-cache-dir={out}/cache build", "--project-cache-dir="),
    ("-Dorg.gradle.java.home=/usr/lib/jvm build", "change_java_version"),
    ("-Dsome.file={out}/x build", "-Dsome.file="),
    ("--include-build=../other build", "--include-build="),
    ("--include-build ../other build", "--include-build ../other"),
    ("-DargLine=-javaagent:{out}/agent.jar test", "-DargLine="),
    ("-Pdata=file://{out}/secret.txt build", "-Pdata="),
    ("-qp{out} build", "-qp{out}"),
    ("-p outlink build", "-p outlink"),
]
MAVEN = [
    ("-s {out}/settings.xml validate", "-s {out}"),
    ("-s{out}/settings.xml validate", "-s{out}"),
    ("--settings={out}/settings.xml validate", "--settings="),
    ("-gs {out}/settings.xml validate", "-gs {out}"),
    ("-f ../pom.xml validate", "-f ../pom.xml"),
    ("--file={out}/pom.xml validate", "--file="),
    ("-Dmaven.repo.local={out}/repo validate", "-Dmaven.repo.local="),
    ("-t {out}/toolchains.xml validate", "-t {out}"),
    ("-Dmaven.multiModuleProjectDirectory=~ validate", "-Dmaven.multiModuleProjectDirectory="),
    ("--log-file={out}/log validate", "--log-file="),
]
NPM = [
    ("npm install --prefix={out} left-pad", "--prefix="),
    ("npm install --prefix {out} left-pad", "--prefix {out}"),
    ("npm ls --userconfig {out}/.npmrc", "--userconfig {out}"),
    ("npm install --globalconfig=~/.npmrc left-pad", "--globalconfig="),
    ("npm install --cache={out}/cache left-pad", "--cache="),
    ("npm install ../evil", "../evil"),
    ("npm install file:../evil", "file:../evil"),
    ("npm install left-pad@file:{out}/pkg", "left-pad@file:"),
    ("npm install -g left-pad", "-g is not accepted"),
    ("npm install --global left-pad", "--global is not accepted"),
    ("npm install --location=global left-pad", "--location=global is not accepted"),
]
PYTHON = [
    ("pip install -t {out} requests", "-t {out}"),
    ("pip install --target={out} requests", "--target="),
    ("pip install --prefix={out} requests", "--prefix="),
    ("pip install --root {out} requests", "--root {out}"),
    ("pip install --user requests", "--user is not accepted"),
    ("pip install --index-url file://{out}/index requests", "--index-url file:"),
    ("pip install -i file:{out} requests", "-i file:"),
    ("pip install {out}/evil.whl", "{out}/evil.whl"),
    ("pip install -r ../requirements.txt", "-r ../requirements.txt"),
    ("pip install 'evil @ file://{out}/evil'", "evil @ file:"),
    ("pip install --find-links={out} requests", "--find-links="),
    ("pip download -d {out} requests", "-d {out}"),
    ("pip config set global.index-url http://127.0.0.1:9/simple", "pip config is not accepted"),
    ("python -m pip install --user requests", "--user is not accepted"),
    ("pytest --rootdir={out}", "--rootdir="),
    ("pytest -c {out}/pytest.ini", "-c {out}"),
    ("pytest --basetemp={out}/tmp", "--basetemp="),
    ("python -m pytest --junitxml={out}/report.xml", "--junitxml="),
    ("pytest {out}", "{out}"),
]
SYSTEMS = {
    "gradle": ("gradle-app", "run_gradle_command", GRADLE),
    "maven": ("maven-app", "run_maven_command", MAVEN),
    "npm": ("npm-app", "run_npm_command", NPM),
    "python": ("python-app", "run_python_command", PYTHON),
}
ATTACKS = [
    pytest.param(system, command, quoted, id=f"{system}: {command}")
    for system, (_, _, cases) in SYSTEMS.items()
    for command, quoted in cases
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("secret\n")
    return path


def project(tmp_path: Path, system: str, outside: Path) -> tuple[ToolContext, Tool]:
    root = materialize_base(SYSTEMS[system][0], tmp_path / "ws")
    os.symlink(outside, root / "outlink")
    ctx = tool_context(root, system, timeout_s=600)
    tool = next(t for t in command_tools(ctx) if t.name == SYSTEMS[system][1])
    return ctx, tool


@pytest.mark.parametrize(("system", "command", "quoted"), ATTACKS)
def test_argument_naming_an_outside_path_is_refused(
    system: str, command: str, quoted: str, tmp_path: Path, outside: Path
) -> None:
    ctx, tool = project(tmp_path, system, outside)
    before = sorted(p.name for p in outside.iterdir())
    with pytest.raises(ToolError) as info:
        tool.call({tool.parameters["required"][0]: command.format(out=outside)})
    message = str(info.value)
    assert quoted.format(out=outside) in message, message
    assert "outside the workspace" in message or "is not accepted" in message, message
    assert "\n" not in message  # one line
    assert ctx.builds == []  # refused before any build ran
    assert sorted(p.name for p in outside.iterdir()) == before


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "app", "build"],
        ["--project-cache-dir=.gradle-cache", "build"],
        ["-Dsome.file={root}/inside.txt", "build"],
        ["-s", "settings.xml", "-f", "pom.xml", "validate"],
        ["-Dtest=ParserTest#parse", "-pl", ":core", "dependency:tree"],
        [":app:test", "--tests", "*ParserTest", "-x", "javadoc", "-Pversion=1.0"],
        ["-Dmaven.repo.local=.m2/repository", "-DargLine=-Xmx1g -ea", "test"],
        ["--distribution-url", "https://services.gradle.org/distributions/gradle-8.5-bin.zip"],
        ["install", "--index-url=https://pypi.org/simple", "requests<3", "-e", "."],
        ["install", "typescript@~5.4.0", "@types/node@^20", "--save-dev", "--location=project"],
        ["tests/test_parser.py::test_parse", "-k", "not slow", "--junitxml=reports/junit.xml"],
        ["-s", "/dev/null", "validate"],
        ["-p", "{root}/app", "build"],
    ],
)
def test_inside_paths_and_ordinary_arguments_pass(args: list[str], tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    ctx = tool_context(root, "gradle")
    concrete = [arg.format(root=ctx.root) for arg in args]
    assert confine_paths(ctx, concrete) == concrete


@pytest.mark.slow
def test_maven_runs_with_inside_paths(tmp_path: Path, outside: Path) -> None:
    """The same flags the attacks use, with inside values, reach a real build."""
    ctx, tool = project(tmp_path, "maven", outside)
    try:
        out = tool.call({"maven_command": "mvn -q -f pom.xml --log-file=maven-log.txt validate"})
    finally:
        stop_daemons(ctx.root, ctx.options)
    assert out.startswith("BUILD SUCCESSFUL"), out[-2000:]
    assert (ctx.root / "maven-log.txt").is_file()  # the flag's inside value was used
    assert len(ctx.builds) == 1
