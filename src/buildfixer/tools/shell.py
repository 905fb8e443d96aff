"""The shell tool of the shell agents: `run_shell` (first study) and `run_sh` (second study).

Both run `bash -c <command>` in the workspace root inside bubblewrap, always (whatever the
build's sandbox setting): the confinement of a build (`buildsys.sandbox.backends.confinement_for`: no
capabilities, host read-only, only the workspace, the project's state and the shared caches
writable, home directories, buildfixer's cache and host secrets hidden), with `/tmp` a private,
empty tmpfs that also holds HOME, and no network when the run is offline. The project's Gradle
daemon registry is hidden too, so the shell can never hand a build to a daemon outside its
sandbox. The environment is the build's allow-listed one (`buildsys.sandbox.variables`): JAVA_HOME and
PATH of the chosen JDK, Gradle's user home and Maven's repository in the shared cache, and none
of the caller's other variables. A command is killed with everything it started when it
exceeds `ctx.shell_timeout_s`. Without a working bubblewrap the tool refuses to run rather than
run unconfined.

The output of a command that runs a build tool (`./gradlew build`, `mvn -B package`, `npm test`,
`python -m pytest`) is shown as the build command tools show theirs (`build_support.output_body`):
cleaned of progress bars and noise, and under `build_output="condensed"` a failure condensed to
its errors. Other commands' output only loses its ANSI codes: `cat` of a file must show the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from buildfixer.buildsys import gradle, maven
from buildfixer.buildsys.jdk import Jdk, default_jdk, discover_jdks
from buildfixer.buildsys.jdk_pin import choose_jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import java_env
from buildfixer.buildsys.project import JVM_SYSTEMS, resolve_jdk
from buildfixer.buildsys.sandbox.backends import bubblewrap_problem, confinement_for
from buildfixer.buildsys.sandbox.egress import proxy_environment
from buildfixer.buildsys.sandbox.variables import build_environment
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Confinement
from buildfixer.logs.text import strip_ansi
from buildfixer.tools.base import DEFAULT_OUTPUT_LIMIT, Tool, ToolError, cap_output, make_tool
from buildfixer.tools.build_support import output_body, run_tool_command, standard_command
from buildfixer.tools.context import ToolContext
from buildfixer.tools.examples import examples_for, fill

# HOME inside the sandbox: on its private /tmp, so nothing written there reaches the host.
SANDBOX_HOME = Confinement.home
_OUTPUT_ROOM = DEFAULT_OUTPUT_LIMIT - 500
_MORE = "filter the output (grep, head, tail, sed -n) to see them"
# A build tool in command position: at the start, after `&&`, `;`, `|`, `(` or `$(`, after variable
# assignments and `sh`/`time`/`timeout N`, with or without a path (`./gradlew`, `/usr/bin/mvn`).
_BUILD_COMMAND = re.compile(
    r"(?:^|[;&|(\n])\s*(?:\w+=\S*\s+)*(?:(?:time|exec|env|nice|(?:ba)?sh|timeout\s+\S+)\s+)*(?:\S*/)?"
    r"(?:gradlew?|mvnw?|npm|npx|yarn|pnpm|pip3?|pytest|tox|tsc|python3?(?:\.\d+)?\s+-m\s+(?:pytest|pip|build|tox))"
    r"(?=\s|$|[;&|)])"
)


def runs_a_build(command: str) -> bool:
    """Whether a shell command line runs a build tool (its output is then a build's output)."""
    return _BUILD_COMMAND.search(command) is not None


def _current_jdk(ctx: ToolContext) -> Jdk | None:
    """The JDK builds use now: the one chosen, else (Gradle, Maven) the project's pin, else the default."""
    try:
        if ctx.build_system in JVM_SYSTEMS:
            return choose_jdk(ctx.root, ctx.options.jdk).jdk
        return resolve_jdk(ctx.options.jdk)
    except BuildfixerError as exc:
        raise ToolError(str(exc)) from None


def _shell_options(ctx: ToolContext) -> BuildOptions:
    """The shell always runs sandboxed: with the sandboxed builds' caches, whatever the builds use."""
    return replace(ctx.options, sandbox="bubblewrap")


def shell_env(ctx: ToolContext) -> dict[str, str]:
    """The environment of a shell command: the build's tools and caches, nothing else of the caller's."""
    options = _shell_options(ctx)
    venv = options.sandbox_state_for(ctx.root) / "venv"
    env = build_environment(
        ctx.options.extra_env,
        java_env(_current_jdk(ctx)),
        {
            "HOME": SANDBOX_HOME,
            "TMPDIR": "/tmp",
            "GRADLE_USER_HOME": str(options.shared_cache("gradle")),
            # A daemon registry of its own: the shell's Gradle starts its own daemons, in its sandbox.
            "GRADLE_OPTS": "-Dorg.gradle.daemon.registry.base=/tmp/gradle-daemons",
            "MAVEN_OPTS": f"-Dmaven.repo.local={options.shared_cache('m2') / 'repository'}",
            "npm_config_cache": str(options.shared_cache("npm")),
            "PIP_CACHE_DIR": str(options.shared_cache("pip")),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        },
    )
    if ctx.build_system == "python" and (venv / "bin" / "python").exists():
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env if ctx.options.offline else proxy_environment(env)


def run_shell_command(ctx: ToolContext, command: str) -> str:
    """Run a bash command line in the sandboxed workspace; `exit code N` then the capped output."""
    if not command.strip():
        raise ToolError("the command is empty")
    if problem := bubblewrap_problem():
        raise ToolError(f"the shell tool never runs commands unconfined, and {problem}; use the other tools")
    # The build's own daemons (in the build's sandbox session, or unsandboxed) are out of reach.
    hidden = [ctx.options.sandbox_state_for(ctx.root) / "gradle-daemons"]
    # No git history either: a benchmark's mirror holds commits after the one being repaired.
    options = _shell_options(ctx)
    confinement = confinement_for(ctx.root, options, hidden, git_metadata=False)
    argv = ["bash", "-c", command]
    run, output = run_tool_command(ctx, argv, shell_env(ctx), ctx.shell_timeout_s, "shell", confinement)
    if runs_a_build(command):
        output = output_body(ctx, output, run.failed, _OUTPUT_ROOM)
    else:
        output = cap_output(strip_ansi(output.replace("\r\n", "\n")).rstrip("\n"), _OUTPUT_ROOM, _MORE)
    if run.timed_out:
        status = (
            f"exit code -1 (timed out after {ctx.shell_timeout_s:g}s: the command and everything "
            "it started were killed)"
        )
    else:
        status = f"exit code {run.exit_code}"
    return f"{status}\n{output}" if output else f"{status}\n(no output)"


def _describe(ctx: ToolContext) -> str:
    network = "no network access" if ctx.options.offline else "network access to the package registries only"
    java = " JAVA_HOME points at the currently selected JDK." if ctx.build_system in JVM_SYSTEMS else ""
    return (
        f"{java} Each command starts a fresh shell (exports and cd do not carry over) and may run at most "
        f"{ctx.shell_timeout_s:g}s; {network}."
    )


def shell_tools(ctx: ToolContext) -> list[Tool]:
    """`run_shell` and `run_sh`: one implementation under the two studies' names."""

    def run_shell(shell_command: str) -> str:
        """Run a bash command in the project's root directory and return its exit code and output.

        Use it to look around (ls, find, grep, cat), to edit files (sed, tee, patch), and to run
        the build tool or the project's scripts. Commands run in a sandbox: only the project, the
        shared dependency caches and /tmp can be written; the rest of the machine is read-only.
        Output longer than the limit keeps its beginning and end.

        Args:
            shell_command: The bash command line, e.g. {shell}.
        """
        return run_shell_command(ctx, shell_command)

    def run_sh(command: str) -> str:
        """Run a shell command (bash) in the project's root directory; returns exit code and output.

        Use it to inspect the repository, change files, and run the build or other tools.
        Commands run in a sandbox: only the project, the shared dependency caches and /tmp can be
        written; the rest of the machine is read-only. Output longer than the limit keeps its
        beginning and end.

        Args:
            command: The command line, e.g. {sh}.
        """
        return run_shell_command(ctx, command)

    examples = examples_for(ctx.build_system)
    tools = [make_tool(run_shell, more=_MORE), make_tool(run_sh, more=_MORE)]
    for tool in tools:
        fill(tool, examples).description += _describe(ctx)
    return tools


def guidance(ctx: ToolContext) -> str:
    """Tool usage guidance for the shell agent's prompt: JDKs, the build system's commands, testing a fix."""
    lines = [
        f"- Commands run with bash in the project root ({ctx.root}), each in a fresh shell: an `export` "
        "or `cd` lasts for that command only, so chain steps with `&&` in one command.",
        f"- A command may run for at most {ctx.shell_timeout_s:g}s; "
        + ("there is no network access, so dependencies must come from the caches." if ctx.options.offline
           else "the package registries (Maven, Gradle, PyPI, npm) are the only network."),
    ]  # fmt: skip
    jdks = {
        j.version: j for j in discover_jdks() if not ctx.installed_jdks or j.version in ctx.installed_jdks
    }
    try:
        current = _current_jdk(ctx)
    except ToolError:
        current = default_jdk()
    if jdks:
        listed = "; ".join(f"JDK {v}: {j.path}" for v, j in sorted(jdks.items()))
        other = next(
            (j for v, j in sorted(jdks.items(), reverse=True) if not current or v != current.version), None
        )
        example = other or next(iter(jdks.values()))
        now = f"JDK {current.version} is the current one. " if current else ""
        lines.append(
            f"- Java: {now}Installed: {listed}. To build with another JDK, set JAVA_HOME in the same "
            f"command, e.g. `export JAVA_HOME={example.path} PATH={example.path}/bin:$PATH && "
            f"{_java_probe(ctx)}`."
        )
    lines += _system_guidance(ctx)
    lines.append(
        f"- Test a fix with the project's standard build: `{_shell_build_command(ctx)}`; a build that "
        "succeeds this way is what counts."
    )
    return "\n".join(lines)


def _java_probe(ctx: ToolContext) -> str:
    return _shell_build_command(ctx) if ctx.build_system in JVM_SYSTEMS else "java -version"


def _gradle_launcher(ctx: ToolContext) -> str:
    return "./gradlew" if (ctx.root / "gradlew").is_file() else "gradle"


def _shell_build_command(ctx: ToolContext) -> str:
    offline = ctx.options.offline
    if ctx.build_system == "gradle":
        tasks = " ".join(
            ctx.options.tasks or (["assembleDebug"] if gradle.is_android(ctx.root) else ["build"])
        )
        return f"{_gradle_launcher(ctx)} {tasks} --console=plain" + (" --offline" if offline else "")
    if ctx.build_system == "maven":
        launcher = "./mvnw" if (ctx.root / "mvnw").is_file() else "mvn"
        return f"{launcher} -B {' '.join(ctx.options.tasks or ['package'])}" + (" -o" if offline else "")
    if ctx.build_system == "python":
        return "python -m pip install -e . && python -m pytest"
    return standard_command(ctx)


def _system_guidance(ctx: ToolContext) -> list[str]:
    root = ctx.root
    if ctx.build_system == "gradle":
        if (root / "gradlew").is_file():
            wanted = gradle.wrapper_version(root)
            how = (
                f"- Gradle: run a task with `./gradlew <task>` (the wrapper, Gradle {wanted or '?'}; it "
                "downloads its distribution on first use, which needs network; `gradle <task>` runs the "
                "installed Gradle instead). "
            )
        else:
            how = (
                "- Gradle: there is no wrapper here; run a task with `gradle <task>` (the installed Gradle). "
            )
        return [
            how + "Useful: `tasks --all`, `dependencies --configuration compileClasspath`, "
            "`build --stacktrace`; add `--console=plain` for readable output."
        ]
    if ctx.build_system == "maven":
        launcher = "./mvnw" if (root / "mvnw").is_file() and maven.wrapper_version(root) else "mvn"
        return [
            f"- Maven: run goals with `{launcher} -B <goal>`, e.g. `{launcher} -B dependency:tree` or "
            f"`{launcher} -B -e compile` for more detail; the local repository is the shared cache."
        ]
    if ctx.build_system == "python":
        venv = ctx.options.sandbox_state_for(root) / "venv"
        return [
            f"- Python: the build's virtualenv is {venv} (on PATH once the build has created it; "
            f"otherwise create it with `python3 -m venv {venv}`). Install with `python -m pip install "
            "-e .` and run tests with `python -m pytest -x`."
        ]
    if ctx.build_system == "npm":
        return [
            "- npm: install with `npm ci` (or `npm install` without a lockfile), run scripts with "
            "`npm run <script>`; `npm ls` and `npm view <package> versions` show dependencies."
        ]
    return []
