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
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

from buildfixer.buildsys import npm
from buildfixer.buildsys.plan import executable
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.build_support import build, command_view, raw_view, run_command, sandboxed
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


def confine_paths(ctx: ToolContext, args: list[str]) -> list[str]:
    """Refuse arguments naming paths outside the workspace (`-p /elsewhere`, `--file=../x/pom.xml`).

    System properties (`-Dkey=value`) are left alone: they legitimately name installed JDKs.
    """
    for arg in args:
        if arg.startswith("-D"):
            continue
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if value.startswith(("/", "~")) or ".." in Path(value).parts:
            ctx.resolve(value)  # ToolError when it leaves the workspace
    return args


def _gradle_tool(ctx: ToolContext) -> Tool:
    def run_gradle_command(gradle_command: str) -> str:
        """Run a Gradle command in this Gradle project and return its output.

        Use it to inspect the build (`dependencies`, `tasks --all`, `properties`), to get more
        detail on a failure (`build --stacktrace`, `compileJava --info`) or to run single tasks
        (`test --tests '*ParserTest'`). The launcher word is optional: "./gradlew dependencies",
        "gradle dependencies" and "dependencies" run the same, with the project's wrapper when its
        Gradle distribution is available here, else the installed Gradle, on the selected JDK.
        Only Gradle arguments are accepted: no pipes, redirections or command chains. The result
        starts with a status line followed by Gradle's output (beginning and end when long).

        Args:
            gradle_command: The Gradle command line, e.g. "./gradlew dependencies --configuration
                compileClasspath" or "build --stacktrace".
        """
        args = confine_paths(ctx, split_command(gradle_command, _GRADLE_LAUNCHERS, "Gradle"))
        if not args:
            raise ToolError("name the Gradle tasks to run, e.g. './gradlew tasks' or './gradlew build'")
        return raw_view(build(ctx, args))

    return make_tool(run_gradle_command)


def _maven_tool(ctx: ToolContext) -> Tool:
    def run_maven_command(maven_command: str) -> str:
        """Run a Maven command in this Maven project and return its output.

        Use it to inspect the build (`dependency:tree`, `help:effective-pom`, `versions:display-
        dependency-updates`), to see more about a failure (`-e package`, `-X compile`) or to run
        single phases and plugin goals (`test -Dtest=ParserTest`). "mvn dependency:tree",
        "./mvnw dependency:tree" and "dependency:tree" run the same: Maven in batch mode with the
        shared local repository, on the selected JDK. Only Maven arguments are accepted: no pipes,
        redirections or command chains. The result starts with a status line followed by Maven's
        output (beginning and end when long).

        Args:
            maven_command: The Maven command line, e.g. "mvn dependency:tree" or "-X compile".
        """
        args = confine_paths(ctx, split_command(maven_command, _MAVEN_LAUNCHERS, "Maven"))
        if not args:
            raise ToolError("name the Maven goals or phases to run, e.g. 'mvn dependency:tree'")
        return raw_view(build(ctx, args))

    return make_tool(run_maven_command)


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
        refused. The result starts with a status line followed by the output.

        Args:
            npm_command: The npm command line, e.g. "npm run lint" or "npm view react versions".
        """
        args = confine_paths(ctx, split_command(npm_command, ("npm",), "npm"))
        if not args:
            raise ToolError("name the npm command to run, e.g. 'npm run build' or 'npm ls'")
        script = _npm_script(ctx, args)
        if script is not None:
            return raw_view(build(ctx, [script]))
        if args[0] not in _NPM_DIRECT:
            accepted = ", ".join(sorted(_NPM_DIRECT))
            raise ToolError(f"npm {args[0]} is not accepted; use run <script>, test, start, or: {accepted}")
        program = executable("npm")
        if program is None:
            raise ToolError("npm is not installed on this machine")
        cache = ctx.options.cache_dir / "npm"
        argv = [program, *args]
        if ctx.options.offline and args[0] in _NPM_INSTALLING:
            argv.append("--offline")
        env = {**os.environ, **ctx.options.extra_env, "npm_config_cache": str(cache)}
        env.update(
            {"npm_config_fund": "false", "npm_config_audit": "false", "npm_config_update_notifier": "false"}
        )
        run, output = run_command(ctx, sandboxed(ctx, argv), env, ctx.options.timeout_s, "npm")
        note = ""
        if (manager := npm.package_manager(ctx.root)) != "npm":
            note = f"\nNote: this project uses {manager}; this ran npm, which ignores {manager}'s lockfile."
        return command_view(shlex.join(["npm", *args]), run, output) + note

    return make_tool(run_npm_command)


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
        are refused. The result starts with a status line followed by the output.

        Args:
            python_command: The command line, e.g. "pytest -x -k parser" or "pip list".
        """
        module, rest = _python_argv(python_command)
        confine_paths(ctx, rest)
        venv = ctx.options.state_for(ctx.root) / "venv"
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
            **os.environ,
            **ctx.options.extra_env,
            "PIP_CACHE_DIR": str(ctx.options.cache_dir / "pip"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "VIRTUAL_ENV": str(venv),
            "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "COLUMNS": "200",
        }
        argv = sandboxed(ctx, [str(python), "-m", module, *rest])
        run, output = run_command(ctx, argv, env, ctx.options.timeout_s, "python")
        return command_view(shlex.join(["python", "-m", module, *rest]), run, output)

    return make_tool(run_python_command)


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
