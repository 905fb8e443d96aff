"""What the build tools share: running builds and commands for a tool, and showing their output.

A build's output reaches the model in one of two forms (`ToolContext.build_output`). The raw form
is the build's own output (as the first study gave it), cleaned of what no reader needs (ANSI
codes, progress bars, the hundreds of `MavenResolverHook` stack lines Debian's Gradle prints) and
capped to its beginning and end. The condensed form is the log analyzer's view: the root error
with its location, the log and source around it, and the other errors. Both start with one
status line.

The same goes for the commands an agent runs through the build system's command tool or the
shell: their output is cleaned and capped in either form, and under "condensed" a failed build's
output is shown as the analyzer's view. A command that succeeded keeps its output (cleaned and
capped): the model ran `dependencies` or `npm ls` to read it.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import replace
from pathlib import Path

from buildfixer.buildsys import gradle, maven
from buildfixer.buildsys.analyzed import attach_analysis
from buildfixer.buildsys.project import build_project, run_in_sandbox
from buildfixer.buildsys.runner import RunResult, kill_owned
from buildfixer.core.build_result import BuildResult
from buildfixer.core.confined import WorkspaceFiles
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Confinement
from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.condense import condense
from buildfixer.logs.locate import locate_in_project
from buildfixer.logs.text import clean_log, decode_output
from buildfixer.logs.window import read_window, split_at_marker
from buildfixer.tools.base import DEFAULT_OUTPUT_LIMIT, ToolError, cap_output
from buildfixer.tools.context import ToolContext

# Room for the output itself in a tool result: the status line and notes come first.
OUTPUT_ROOM = DEFAULT_OUTPUT_LIMIT - 2_000
# Token budget of the condensed view (logs.condense).
CONDENSED_TOKENS = 2_000
# Lines of output a condensed view shows when there is no error to analyze (a successful build).
_SUCCESS_TAIL = 15
OUTPUT_STYLES = ("raw", "condensed")
# What a capped build or command output's note says about the part left out.
MORE_OUTPUT = "narrow the command (one task, a filter) to see them"

# Arguments the build plans add for their own reasons; the status line leaves them out.
_PLUMBING = {
    "--console=plain", "--daemon", "--no-daemon", "-B", "-ntp", "--no-audit", "--no-fund",
    "--no-package-lock", "--disable-pip-version-check",
}  # fmt: skip
_PLUMBING_WITH_VALUE = {"--progress-bar", "--cache", "--store-dir"}
# compileall's exclusion pattern (`-x <regex>`), long and of no use to a reader.
_COMPILE_EXCLUDE_START = "(^|/)"
_PLUMBING_PREFIXES = ("-Dorg.gradle.daemon.", "-Dmaven.repo.local=")


def run_tool_build(ctx: ToolContext, tasks: list[str] | None = None) -> BuildResult:
    """Run the project's build with the context's options (tasks overridden when given) and record it."""
    options = replace(ctx.options, tasks=tasks) if tasks is not None else ctx.options
    try:
        if tasks is None:  # the project's build: what it writes is a side effect, never the repair
            result = ctx.tracked(lambda: build_project(ctx.root, options, ctx.build_system))
        else:  # a command the agent chose (`wrapper --gradle-version 8.5`): its changes are edits
            result = build_project(ctx.root, options, ctx.build_system)
    except BuildfixerError as exc:
        raise ToolError(str(exc)) from None
    ctx.builds.append(result)
    return result


def command_text(argv: list[str]) -> str:
    """A command line as a developer would type it: launcher by its short name, plan plumbing left out."""
    if not argv:
        return "(no command)"
    if argv[0] in ("sh", "bash") and len(argv) > 1 and Path(argv[1]).name in ("gradlew", "mvnw"):
        words, rest = [f"./{Path(argv[1]).name}"], argv[2:]
    else:
        words, rest = [Path(argv[0]).name], argv[1:]
    skip = False
    for arg in rest:
        if skip:
            skip = False
        elif arg in _PLUMBING_WITH_VALUE:
            skip = True
        elif arg.startswith(_COMPILE_EXCLUDE_START) and words[-1] == "-x":
            words.pop()
        elif arg not in _PLUMBING and not arg.startswith(_PLUMBING_PREFIXES):
            words.append(arg)
    return " ".join(words)


def status_line(result: BuildResult) -> str:
    """One line saying how the build ended, e.g. `BUILD FAILED (exit 1) in 12.3s — gradle build on JDK 17`."""
    if result.status == "success":
        verdict = "BUILD SUCCESSFUL"
    elif result.status == "timeout":
        verdict = "BUILD TIMED OUT (killed)"
    elif result.status == "error":
        verdict = f"BUILD COULD NOT START (exit {result.exit_code})"
    else:
        verdict = f"BUILD FAILED (exit {result.exit_code})"
    jdk = f" on JDK {result.jdk}" if result.jdk else ""
    return f"{verdict} in {result.duration_s:.1f}s — {command_text(result.command)}{jdk}"


def _header(result: BuildResult) -> str:
    lines = [status_line(result)]
    if notes := result.environment.get("notes"):
        lines.append(f"Note: {notes}")
    return "\n".join(lines)


def clean_output(text: str) -> str:
    """Output without ANSI codes, progress bars and known noise (see logs.text.clean_log)."""
    return "\n".join(clean_log(text).lines).strip("\n")


def _log_text(result: BuildResult) -> str:
    """The build's output (its beginning and end when long), cleaned; the captured tail when unreadable."""
    try:
        data = read_window(result.log_path)  # a long log's middle is skipped unread
    except OSError:
        return clean_output(result.output_tail)
    return clean_output(decode_output(data))


def raw_view(result: BuildResult, room: int = OUTPUT_ROOM) -> str:
    """Status line, environment notes, then the build's cleaned output (beginning and end when long)."""
    body = _log_text(result) or "(the build printed nothing)"
    return f"{_header(result)}\n\n{_cap_body(body, room)}"


def _cap_body(body: str, room: int) -> str:
    """`cap_output`, except that the line saying how much of a huge log was skipped is kept."""
    parts = split_at_marker(body)
    if parts is None:
        return cap_output(body, room, MORE_OUTPUT)
    head, marker, tail = (part.strip("\n") for part in parts)
    kept_head = head[: room // 4]
    kept_tail = tail[-(room - len(kept_head)) :]  # at least three quarters of the room
    cut = len(head) - len(kept_head) + len(tail) - len(kept_tail)
    note = f"{marker} (and {cut:,} characters around it)" if cut else marker
    return f"{kept_head}\n{note}\n{kept_tail}"


def condensed_view(result: BuildResult, project: Path) -> str:
    """Status line, notes, then the analyzer's view: root error at file:line, context, other errors."""
    try:
        analysis = attach_analysis(result, project)
    except BuildfixerError:
        analysis = None
    if analysis is None:  # success, or a log that cannot be read: its end says enough
        lines = [line for line in _log_text(result).splitlines() if line.strip()][-_SUCCESS_TAIL:]
        return f"{_header(result)}\n\nEnd of the output:\n" + "\n".join(lines)
    # The source lines of the error's file are read confined: it may be a link a build planted.
    return f"{_header(result)}\n\n{condense(analysis, CONDENSED_TOKENS, WorkspaceFiles(project))}"


def _style(ctx: ToolContext, style: str | None = None) -> str:
    style = style or ctx.build_output
    if style not in OUTPUT_STYLES:
        raise ValueError(f"unknown build output style {style!r} (raw, condensed)")
    return style


def format_build_output(ctx: ToolContext, result: BuildResult, style: str | None = None) -> str:
    """A build result as a tool (or a first message) shows it: "raw" or "condensed" (ctx.build_output)."""
    if _style(ctx, style) == "condensed":
        return condensed_view(result, ctx.root)
    return raw_view(result)


def command_build_view(ctx: ToolContext, result: BuildResult) -> str:
    """A build the agent's command ran (`gradle dependencies`, `npm run lint`), as the tool returns it.

    Raw: the cleaned, capped output. Condensed: a failure as the analyzer's view; a success keeps
    its output (cleaned, capped), which is what the command was run for.
    """
    if _style(ctx) == "condensed" and result.status != "success":
        return condensed_view(result, ctx.root)
    return raw_view(result)


def output_body(ctx: ToolContext, output: str, failed: bool, room: int = OUTPUT_ROOM) -> str:
    """A build-like command's output: cleaned and capped; under "condensed", a failure's analysis.

    The analysis is of the output's text (a pytest or pip run, a build started from the shell);
    when it recognises no error, the cleaned output is shown instead.
    """
    body = clean_output(output)
    if failed and _style(ctx) == "condensed" and body:
        analysis = analyze_text(output)
        if analysis.errors:
            files = WorkspaceFiles(ctx.root)  # source lines read confined, as in condensed_view
            locate_in_project(analysis.errors, files)
            note = f"[{len(body.splitlines())} lines of output condensed to their errors]"
            return f"{condense(analysis, CONDENSED_TOKENS, files)}\n{note}"
    return _cap_body(body, room) if body else ""


def standard_command(ctx: ToolContext) -> str:
    """The project's standard build, as a developer would run it."""
    root, tasks = ctx.root, ctx.options.tasks
    if ctx.build_system == "gradle":
        launcher = "./gradlew" if (root / "gradlew").is_file() else "gradle"
        return (
            f"{launcher} {' '.join(tasks or (['assembleDebug'] if gradle.is_android(root) else ['build']))}"
        )
    if ctx.build_system == "maven":
        launcher = "./mvnw" if (root / "mvnw").is_file() and maven.wrapper_version(root) else "mvn"
        return f"{launcher} {' '.join(tasks or ['package'])}"
    if ctx.build_system == "python":
        return "pip install -e . (with the test dependencies) in a virtualenv, then python -m pytest"
    if ctx.build_system == "npm":
        scripts = " && ".join(f"npm run {t}" for t in tasks) if tasks else "npm run build && npm test"
        return f"npm ci && {scripts}"
    return "the project's build"


def run_tool_command(
    ctx: ToolContext, argv: list[str], env: dict[str, str], timeout_s: float, kind: str,
    confinement: Confinement | None = None,
) -> tuple[RunResult, str]:  # fmt: skip
    """Run one command in the workspace with a timeout; returns the run and its output (header removed).

    The command runs in a sandbox of its own like the context's builds (`confinement`: a
    narrower one, and then always sandboxed). Processes are tagged with their own owner token
    (`<project token>-<kind>`), so that a command's leftovers are killed afterwards without
    touching the warm Gradle daemons of the project's builds.
    """
    state = ctx.options.state_for(ctx.root)
    (state / "logs").mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f"{kind}-", suffix=".log", dir=state / "logs")
    os.close(handle)
    log = Path(name)
    owner = f"{ctx.options.owner_token(ctx.root)}-{kind}"
    try:
        run = run_in_sandbox(
            ctx.root, ctx.options, argv, env=env, log_path=log, timeout_s=timeout_s, owner=owner,
            confinement=confinement,
        )  # fmt: skip
        kill_owned(owner)  # nothing a command started outlives it
        text = decode_output(read_window(log))  # a flood's middle is skipped unread
    except BuildfixerError as exc:  # the sandbox could not start
        raise ToolError(str(exc)) from None
    finally:
        log.unlink(missing_ok=True)
    first, _, rest = text.partition("\n")
    output = rest if first.startswith("$ ") else text
    if run.timed_out:  # the runner's own note; the views say it in their status line
        output = re.sub(r"\n?\[buildfixer\] timeout after [^\n]*\n?$", "", output)
    return run, output


def command_view(ctx: ToolContext, command: str, run: RunResult, output: str, room: int = OUTPUT_ROOM) -> str:
    """A command's status line and its output as `output_body` shows it (npm, pip, pytest commands)."""
    if run.timed_out:
        verdict = "COMMAND TIMED OUT (killed)"
    elif run.exit_code == 0:
        verdict = "COMMAND SUCCEEDED (exit 0)"
    else:
        verdict = f"COMMAND FAILED (exit {run.exit_code})"
    body = output_body(ctx, output, run.failed, room) or "(no output)"
    return f"{verdict} in {run.duration_s:.1f}s — {command}\n\n{body}"
