"""The build system's command tool: run_gradle_command, run_maven_command, run_npm_command, ...

The first study's GradleFixer let the model run any Gradle command; the same slot holds the
equivalent tool on other build systems. Commands never go through a shell: the text is split
like a shell would (quotes respected), the launcher word is dropped, and what remains goes to the
build system as arguments. Shell operators are refused, so a command cannot chain others.

- Gradle and Maven: the arguments replace the default tasks/goals of the build plan, which adds
  the launcher (wrapper or system tool), the JDK, the shared caches and its usual flags.
- npm: `npm run <script>`, `npm test`/`npm start` or a bare script name run through the build plan
  (after installing dependencies when needed); a fixed set of package-management commands
  (`npm ls`, `npm view`, `npm install <pkg>`, ...) run npm directly with the shared cache.
- Python: `python -m <module>`, `pytest` and `pip` run in the virtualenv the build creates in the
  project's state directory; nothing else is accepted.

No argument may name a path outside the workspace, however it is spelled: a separate value
(`-p /elsewhere`), an attached one (`-g/abs`, `-I../init.gradle`), an option's (`--prefix=~/x`), a
system property's (`-Dgradle.user.home=/abs`, `-Dorg.gradle.java.home=/jdk`: change_java_version
switches JDKs), a list's (`-DargLine=-javaagent:/abs.jar`) or a file URL's (`--index-url
file:///etc`). `/dev/null` is the one outside path allowed. Options that reach outside without a
path are refused by name: npm's `-g`/`--global`/`--location`, pip's `--user` and `pip config`.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

from buildfixer.buildsys import npm
from buildfixer.buildsys.plan import executable
from buildfixer.buildsys.runner import RunResult
from buildfixer.buildsys.sandbox.variables import build_environment
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.build_support import (
    MORE_OUTPUT,
    command_build_view,
    command_view,
    run_tool_build,
    run_tool_command,
)
from buildfixer.tools.context import ToolContext

# Shell operators: separators, pipes, redirections, background jobs, command substitution.
_SHELL_OPERATORS = re.compile(r"[;|&<>`\n\r]|\$\(")
_GRADLE_LAUNCHERS = ("gradle", "gradlew", "gradlew.bat", "gradle.bat")
_MAVEN_LAUNCHERS = ("mvn", "mvnw", "mvn.cmd", "mvnw.cmd", "mvnw.bat")
_NPM_RUN = ("run", "run-script", "rum", "urn")
_NPM_LIFECYCLE = {"test": "test", "t": "test", "tst": "test", "start": "start"}
# npm commands run directly: inspecting and changing the installed dependencies.
_NPM_DIRECT = {
    "ls", "list", "view", "info", "show", "v", "outdated", "explain", "why", "install", "i", "ci",
    "uninstall", "remove", "rm", "un", "update", "up", "dedupe", "prune", "audit",
}  # fmt: skip
_NPM_INSTALLING = {"install", "i", "ci", "update", "up", "dedupe"}
_PYTHON = re.compile(r"python(?:3(?:\.\d+)?)?")
_PIP = re.compile(r"pip(?:3(?:\.\d+)?)?")
# URLs: a file URL names a local path, any other names no file here.
_URL = re.compile(r"([A-Za-z][\w+.-]*)://([^\s,;]*)")
# What separates a path from the rest of an argument: `--opt=/x`, `-Dk=/x`, `a:/x`, `p@file:/x`.
_VALUE_SEPARATORS = re.compile(r"[=,:;@\s]")
_ATTACHED = re.compile(r"-[A-Za-z]+(.+)")  # `-g/abs`, `-p../x`, `-I~/init.gradle`: the value
_SAFE_PATHS = frozenset({"/dev/null"})
# Options that install or configure outside the workspace without naming a path.
_HOST_WIDE = {
    "npm": re.compile(r"-g|--global|--location(?:=(?!project$).*)?"),
    "pip": re.compile(r"--user"),
}


def split_command(command: str, launchers: tuple[str, ...], system: str) -> list[str]:
    """The arguments of a command line, its launcher word (`./gradlew`, `sh gradlew`, `mvn`) dropped."""
    if _SHELL_OPERATORS.search(command):
        raise ToolError(
            f"only {system} arguments are accepted, not shell syntax (; | && > < ` $( ): "
            "pass one command per call"
        )
    try:
        args = shlex.split(command)
    except ValueError as exc:
        raise ToolError(f"cannot parse the command ({exc}); check its quotes") from None
    if len(args) > 1 and args[0] in ("sh", "bash") and Path(args[1]).name in launchers:
        args = args[2:]
    elif args and Path(args[0]).name in launchers:
        args = args[1:]
    return args


def _local(url: re.Match[str]) -> str:
    """A URL as the path it names (file URLs, host dropped) or as nothing (any other URL)."""
    scheme, rest = url.group(1).lower(), url.group(2)
    if scheme.rsplit("+", 1)[-1] != "file":
        return " "
    return f" {rest if rest.startswith('/') else '/' + rest.partition('/')[2]} "


def path_values(arg: str) -> list[str]:
    """Every part of one argument that may name a file, the whole argument included."""
    values = [arg]
    for token in _VALUE_SEPARATORS.split(_URL.sub(_local, arg)):
        values.append(token)
        if not token.startswith("--") and (attached := _ATTACHED.fullmatch(token)):
            values.append(attached.group(1))
    return [value for value in values if value and not value.startswith(("http://", "https://"))]


def confine_paths(ctx: ToolContext, args: list[str], system: str = "") -> list[str]:
    """`args` unchanged; ToolError naming the argument when one names a path outside the workspace.

    Every value an argument may carry (see the module docstring) is resolved like a file tool's
    path, so `..`, `~`, absolute paths and symlinks pointing out are all caught.
    """
    host_wide = _HOST_WIDE.get(system)
    for index, arg in enumerate(args):
        shown = arg
        if index and args[index - 1].startswith("-") and not arg.startswith("-"):
            shown = f"{args[index - 1]} {arg}"  # the option whose value this is
        if host_wide and host_wide.fullmatch(arg):
            raise ToolError(f"{arg} is not accepted: it installs or configures outside the workspace")
        for value in path_values(arg):
            if value in _SAFE_PATHS:
                continue
            try:
                ctx.resolve(value)
            except ToolError:
                hint = "; use change_java_version to switch JDKs" if "java.home" in arg else ""
                raise ToolError(
                    f"argument {shown!r} names {value!r}, which is outside the workspace "
                    f"({ctx.root}): only paths inside the project may be passed{hint}"
                ) from None
    return args


def _described(ctx: ToolContext, fn: Callable[..., str], output: str) -> Tool:
    """The command tool, its description saying what its result shows under `ctx.build_output`.

    `output` names what follows the status line in the raw form, e.g. "Gradle's output (beginning
    and end when long)".
    """
    tool = make_tool(fn, more=MORE_OUTPUT)
    if ctx.build_output == "condensed":
        output = "the output, condensed to its errors when a build failed"
    tool.description = tool.description.replace("{output}", output)
    return tool


def _gradle_tool(ctx: ToolContext) -> Tool:
    def run_gradle_command(gradle_command: str) -> str:
        """Run a Gradle command in this Gradle project and return its output.

        Use it to inspect the build (`dependencies`, `tasks --all`, `properties`), to get more
        detail on a failure (`build --stacktrace`, `compileJava --info`) or to run single tasks
        (`test --tests '*ParserTest'`). The launcher word is optional: "./gradlew dependencies",
        "gradle dependencies" and "dependencies" run the same, with the project's wrapper when its
        Gradle distribution is available here, else the installed Gradle, on the selected JDK.
        Only Gradle arguments are accepted: no pipes, redirections or command chains. The result
        starts with a status line followed by {output}.

        Args:
            gradle_command: The Gradle command line, e.g. "./gradlew dependencies --configuration
                compileClasspath" or "build --stacktrace".
        """
        args = confine_paths(ctx, split_command(gradle_command, _GRADLE_LAUNCHERS, "Gradle"))
        if not args:
            raise ToolError("name the Gradle tasks to run, e.g. './gradlew tasks' or './gradlew build'")
        return command_build_view(ctx, run_tool_build(ctx, args))

    return _described(ctx, run_gradle_command, "Gradle's output (beginning and end when long)")


def _maven_tool(ctx: ToolContext) -> Tool:
    def run_maven_command(maven_command: str) -> str:
        """Run a Maven command in this Maven project and return its output.

        Use it to inspect the build (`dependency:tree`, `help:effective-pom`, `versions:display-
        dependency-updates`), to see more about a failure (`-e package`, `-X compile`) or to run
        single phases and plugin goals (`test -Dtest=ParserTest`). "mvn dependency:tree",
        "./mvnw dependency:tree" and "dependency:tree" run the same: Maven in batch mode with the
        shared local repository, on the selected JDK. Only Maven arguments are accepted: no pipes,
        redirections or command chains. The result starts with a status line followed by {output}.

        Args:
            maven_command: The Maven command line, e.g. "mvn dependency:tree" or "-X compile".
        """
        args = confine_paths(ctx, split_command(maven_command, _MAVEN_LAUNCHERS, "Maven"))
        if not args:
            raise ToolError("name the Maven goals or phases to run, e.g. 'mvn dependency:tree'")
        return command_build_view(ctx, run_tool_build(ctx, args))

    return _described(ctx, run_maven_command, "Maven's output (beginning and end when long)")


def _npm_script(ctx: ToolContext, args: list[str]) -> str | None:
    """The package.json script a command runs (`npm run lint`, `npm test`, `lint`); None for others."""
    available = npm.scripts(ctx.root)
    if args[0] in _NPM_RUN or (len(args) == 1 and args[0] in available and args[0] not in _NPM_DIRECT):
        names = args[1:] if args[0] in _NPM_RUN else args
        listed = ", ".join(sorted(available)) or "none"
        if len(names) != 1 or names[0].startswith("-"):
            raise ToolError(
                f"give exactly one script, without extra arguments (e.g. 'npm run lint'); scripts: {listed}"
            )
        if names[0] not in available:
            raise ToolError(f"package.json has no script {names[0]!r}; scripts: {listed}")
        return names[0]
    if args[0] in _NPM_LIFECYCLE:
        if len(args) > 1:
            raise ToolError(f"'npm {args[0]}' takes no extra arguments through this tool")
        return _NPM_LIFECYCLE[args[0]]
    return None


def _npm_tool(ctx: ToolContext) -> Tool:
    def run_npm_command(npm_command: str) -> str:
        """Run an npm command in this npm (Node.js) project and return its output.

        Scripts of package.json run as the build runs them, after installing the dependencies
        when they changed: "npm run lint", "npm test", "npm start" or just the script name
        ("lint"); extra script arguments cannot be passed. Dependency commands run npm directly
        with the shared cache: ls, view/info, outdated, explain/why, install, ci, uninstall,
        update, dedupe, prune and audit (e.g. "npm view typescript versions", "npm ls --all",
        "npm install left-pad@1.3.0 --save-dev"). Other npm commands and shell syntax are
        refused. The result starts with a status line followed by {output}.

        Args:
            npm_command: The npm command line, e.g. "npm run lint" or "npm view react versions".
        """
        args = confine_paths(ctx, split_command(npm_command, ("npm",), "npm"), "npm")
        if not args:
            raise ToolError("name the npm command to run, e.g. 'npm run build' or 'npm ls'")
        script = _npm_script(ctx, args)
        if script is not None:
            return command_build_view(ctx, run_tool_build(ctx, [script]))
        if args[0] not in _NPM_DIRECT:
            accepted = ", ".join(sorted(_NPM_DIRECT))
            raise ToolError(f"npm {args[0]} is not accepted; use run <script>, test, start, or: {accepted}")
        run, output = run_npm(ctx, args)
        note = ""
        if (manager := npm.package_manager(ctx.root)) != "npm":
            note = f"\nNote: this project uses {manager}; this ran npm, which ignores {manager}'s lockfile."
        return command_view(ctx, shlex.join(["npm", *args]), run, output) + note

    return _described(ctx, run_npm_command, "the output")


def run_npm(ctx: ToolContext, args: list[str]) -> tuple[RunResult, str]:
    """`npm ARGS` in the workspace, sandboxed, with buildfixer's npm cache; the run and its output."""
    program = executable("npm")
    if program is None:
        raise ToolError("npm is not installed on this machine")
    argv = [program, *args]
    if ctx.options.offline and args[0] in _NPM_INSTALLING:
        argv.append("--offline")
    env = build_environment(ctx.options.extra_env, {"npm_config_cache": str(ctx.options.shared_cache("npm"))})
    quiet = {"npm_config_fund": "false", "npm_config_audit": "false", "npm_config_update_notifier": "false"}
    env.update(quiet)
    return run_tool_command(ctx, argv, env, ctx.options.timeout_s, "npm")


def _python_argv(command: str) -> tuple[str, list[str]]:
    """The module and its arguments of an accepted Python command; ToolError for anything else."""
    args = split_command(command, (), "Python")
    if not args:
        raise ToolError("give a command such as 'python -m pytest -x' or 'pip list'")
    first = Path(args[0]).name
    if _PYTHON.fullmatch(first):
        if len(args) < 3 or args[1] != "-m":
            raise ToolError("only 'python -m <module> ...' is accepted (no scripts, no -c)")
        return args[2], args[3:]
    if first in ("pytest", "py.test"):
        return "pytest", args[1:]
    if _PIP.fullmatch(first):
        return "pip", args[1:]
    raise ToolError(f"{first} is not accepted: use 'python -m <module> ...', 'pytest ...' or 'pip ...'")


def _python_tool(ctx: ToolContext) -> Tool:
    def run_python_command(python_command: str) -> str:
        """Run a Python command in this Python project's virtualenv and return its output.

        The virtualenv is the one the build creates (with the project installed in editable mode
        and its test dependencies), so call the build first. Accepted: "python -m <module> ...",
        "pytest ..." and "pip ..." (e.g. "pytest tests/test_parser.py -x", "pip show requests",
        "pip install 'requests<3'", "python -m mypy src"). Shell syntax, scripts and `python -c`
        are refused. The result starts with a status line followed by {output}.

        Args:
            python_command: The command line, e.g. "pytest -x -k parser" or "pip list".
        """
        module, rest = _python_argv(python_command)
        confine_paths(ctx, rest, module)
        if module == "pip" and rest[:1] == ["config"]:
            raise ToolError(
                "pip config is not accepted: it changes pip's configuration outside the workspace"
            )
        venv = ctx.options.sandbox_state_for(ctx.root) / "venv"
        python = venv / "bin" / "python"
        if not python.exists():
            raise ToolError(
                "the project's virtualenv does not exist yet: run_build creates it and installs the "
                "project into it; call run_build first"
            )
        if module == "pytest" and "no:cacheprovider" not in rest:
            rest = ["-p", "no:cacheprovider", *rest]  # no .pytest_cache written into the project
        if module == "pip" and rest[:1] == ["install"] and ctx.options.offline:
            rest = [*rest, "--no-index"]
        env = {
            **build_environment(ctx.options.extra_env),
            **ctx.options.extra_env,
            "PIP_CACHE_DIR": str(ctx.options.shared_cache("pip")),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "VIRTUAL_ENV": str(venv),
            "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "COLUMNS": "200",
        }
        argv = [str(python), "-m", module, *rest]
        run, output = run_tool_command(ctx, argv, env, ctx.options.timeout_s, "python")
        return command_view(ctx, shlex.join(["python", "-m", module, *rest]), run, output)

    return _described(ctx, run_python_command, "the output")


COMMAND_TOOL_FACTORIES: dict[str, Callable[[ToolContext], Tool]] = {
    "gradle": _gradle_tool,
    "maven": _maven_tool,
    "npm": _npm_tool,
    "python": _python_tool,
}


def command_tools(ctx: ToolContext) -> list[Tool]:
    """The build system's command tool (none for an unknown system)."""
    factory = COMMAND_TOOL_FACTORIES.get(ctx.build_system)
    return [factory(ctx)] if factory else []
