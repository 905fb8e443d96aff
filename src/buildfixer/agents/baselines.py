"""The agents: the tool loop, and the study's baselines (coding assistant, hierarchical, cascade).

Each runner works in `ctx.root`, records into the trajectory, and returns why it stopped; the
verdict build is the caller's (agent.attempt).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.agents.loop import Budget, Progress, ToolLoop
from buildfixer.agents.prompts import first_message, system_prompt
from buildfixer.agents.search_replace import EDIT_FORMAT, apply_edits, parse_edits
from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.core.records import BuildResult
from buildfixer.llm.base import Model
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.context import ToolContext

if TYPE_CHECKING:
    from buildfixer.harness.attempt import AttemptConfig

# Build files worth showing to an agent that cannot look around by itself.
_BUILD_FILES = (
    "settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts", "gradle.properties",
    "app/build.gradle", "app/build.gradle.kts", "gradle/libs.versions.toml",
    "gradle/wrapper/gradle-wrapper.properties", "pom.xml", "pyproject.toml", "setup.cfg", "setup.py",
    "requirements.txt", "package.json", "tsconfig.json",
)  # fmt: skip
_MAX_FILE_CHARS = 20_000
_MAX_CONTEXT_CHARS = 80_000
NO_EDITS = "no edits found in the answer"

CODING_ASSISTANT_PROMPT = """\
You are a coding assistant. A developer's build fails; you see the error and the relevant files, \
and you answer with the edits that fix the build. You cannot run commands or look at other files. \
Do not delete or disable tests or checks to make the build pass.

{edit_format}"""


def _model(spec: str) -> Model:
    from buildfixer.llm.factory import make_model

    return make_model(spec)


def error_view(ctx: ToolContext, result: BuildResult, style: str) -> str:
    """The current failure as the first message shows it: condensed analysis or the raw output."""
    from buildfixer.tools.build_support import format_build_output

    return format_build_output(ctx, result, style)


def run_tool_agent(
    ctx: ToolContext,
    config: AttemptConfig,
    trajectory: Trajectory,
    initial: BuildResult,
    progress: Progress | None,
    model: Model | None = None,
) -> str:
    """The Gemini-CLI-like loop with the configured toolset."""
    from buildfixer.tools.presets import make_toolset
    from buildfixer.tools.shell import guidance

    tools = make_toolset(ctx, config.toolset, config.mask)
    system = system_prompt(guidance(ctx) if config.guidance else None)
    first = first_message(ctx.root, error_view(ctx, initial, config.first_error))
    loop = ToolLoop(model or _model(config.model), tools, config.budget, progress=progress)
    return loop.run(trajectory, system, first).stop_reason


def file_context(ctx: ToolContext, result: BuildResult, extra: list[str] | None = None) -> str:
    """Contents of the files the errors point at, the named extra files, and the build files."""
    wanted = [e.file for e in result.errors if e.file] + list(extra or []) + list(_BUILD_FILES)
    parts: list[str] = []
    seen: set[Path] = set()
    total = 0
    for name in wanted:
        try:
            path = ctx.resolve(name)
        except ToolError:  # a path out of the workspace is simply not shown
            continue
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        text = path.read_text(encoding="utf-8", errors="replace")[:_MAX_FILE_CHARS]
        if total + len(text) > _MAX_CONTEXT_CHARS:
            break
        total += len(text)
        parts.append(f"{ctx.relative(path)}\n```\n{text}\n```")
    return "\n\n".join(parts)


def coding_assistant_edit(
    model: Model, ctx: ToolContext, trajectory: Trajectory, request: str, result: BuildResult,
    files: list[str] | None = None,
) -> str:  # fmt: skip
    """One coding-assistant call: error + files in, SEARCH/REPLACE edits out, applied; returns a report."""
    from buildfixer.tools.presets import all_tools

    replace = all_tools(ctx)["replace"]
    messages = [
        {"role": "system", "content": CODING_ASSISTANT_PROMPT.format(edit_format=EDIT_FORMAT)},
        {"role": "user", "content": f"{request}\n\n# Files\n\n{file_context(ctx, result, files)}"},
    ]
    reply = model.complete(messages, [])
    edits = parse_edits(reply.content)
    began = time.monotonic()
    report = apply_edits(edits, replace) if edits else [NO_EDITS]
    failed = not edits or any(line.startswith("edit of ") for line in report)  # apply_edits' failures
    step = Step(len(trajectory.steps) + 1, reply.message(), usage=reply.usage, model_s=reply.duration_s)
    step.tool_results.append(
        {"id": "edits", "name": "apply_edits", "arguments": "", "output": "\n".join(report),
         "error": failed, "seconds": round(time.monotonic() - began, 3)}
    )  # fmt: skip
    if not trajectory.messages:
        trajectory.messages.extend(messages)
    trajectory.add_message(step.reply)
    trajectory.add_step(step)
    return "\n".join(report)


def run_coding_assistant(
    ctx: ToolContext, config: AttemptConfig, trajectory: Trajectory, initial: BuildResult,
    progress: Progress | None,
) -> str:  # fmt: skip
    """Aider-like baseline: one call with the error and the file context, edits applied, no tools."""
    request = f"The build fails with:\n\n{error_view(ctx, initial, config.first_error)}"
    coding_assistant_edit(_model(config.model), ctx, trajectory, request, initial)
    if progress:
        progress("step", {"step": 1, "usage": trajectory.usage, "calls": 0})
    result = trajectory.steps[-1].tool_results[-1]
    if not result["error"]:
        return "coding assistant answered"
    if result["output"] == NO_EDITS:
        return "coding assistant answered without edits"
    return "coding assistant edits did not all apply"


def run_hierarchical(
    ctx: ToolContext, config: AttemptConfig, trajectory: Trajectory, initial: BuildResult,
    progress: Progress | None,
) -> str:  # fmt: skip
    """A planner with read-only tools whose one editing tool delegates to the coding assistant."""
    from buildfixer.tools.presets import all_tools

    model = _model(config.model)
    available = all_tools(ctx)
    readers = [available[n] for n in ("list_directory", "glob", "search_file_content", "read_file")]

    def request_code_change(instruction: str, files: list[str]) -> str:
        """Ask the coding assistant to change code; it sees the build error and the files named here.

        Args:
            instruction: What to change and why, precisely (the assistant cannot explore on its own).
            files: Paths of the files to change or to consult, relative to the project root.
        """
        request = f"{instruction}\n\nThe build error:\n\n{error_view(ctx, initial, 'condensed')}"
        delegated = Trajectory(None)
        report = coding_assistant_edit(model, ctx, delegated, request, initial, files)
        # The delegated call counts (calls, tokens, cost); its messages stay out of the planner's.
        for step in delegated.steps:
            trajectory.add_step(step)
        return report

    tools: list[Tool] = [*readers, make_tool(request_code_change)]
    first = first_message(ctx.root, error_view(ctx, initial, config.first_error))
    loop = ToolLoop(model, tools, config.budget, progress=progress)
    return loop.run(trajectory, system_prompt(), first).stop_reason


def run_cascade(
    ctx: ToolContext, config: AttemptConfig, trajectory: Trajectory, initial: BuildResult,
    progress: Progress | None,
) -> str:  # fmt: skip
    """The tool agent with the cheapest model first, the next one only when the build still fails."""
    from buildfixer.harness.attempt import current_build

    models = [m.strip() for m in config.model.split(",") if m.strip()]
    reason = "no model given"
    initial_jdk = ctx.options.jdk
    for index, spec in enumerate(models):
        if index:
            _reset(ctx.root)  # each model starts from the original failure
            ctx.options.jdk = initial_jdk
            trajectory.messages.clear()
        budget = Budget(config.budget.max_calls * (index + 1), config.budget.max_tokens,
                        config.budget.max_cost_usd, config.budget.max_wall_s)  # fmt: skip
        sub = type(config)(**{**config.__dict__, "model": spec, "budget": budget})
        trajectory.meta.setdefault("cascade", []).append(spec)
        reason = run_tool_agent(ctx, sub, trajectory, initial, progress, _model(spec))
        if index < len(models) - 1 and current_build(ctx).status == "success":
            return f"{reason} (solved by {spec})"
    return reason


def _reset(root: Path) -> None:
    """Undo every change in a workspace (a git working tree at its base commit)."""
    subprocess.run(["git", "reset", "--quiet", "--hard"], cwd=root, check=True)
    subprocess.run(["git", "clean", "-qffdx"], cwd=root, check=True)
