"""The coding-assistant baseline (Aider-like): the error and the relevant files in, edits out; no tools.

Its one round is also what the hierarchical agent delegates code changes to.
"""

from __future__ import annotations

import time

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.search_replace import (
    SEARCH_REPLACE_FORMAT,
    SearchReplace,
    apply_search_replace,
    parse_search_replace,
)
from buildfixer.agents.trajectory import Step, ToolResult, Trajectory
from buildfixer.core import confined
from buildfixer.core.build_result import BuildResult
from buildfixer.core.chat import Message
from buildfixer.core.protocols import Model
from buildfixer.core.stops import Stop, StopKind
from buildfixer.tools.base import ToolError
from buildfixer.tools.context import ToolContext

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
_FAILED_EDIT = "edit of "  # how apply_search_replace reports an edit that did not apply

CODING_ASSISTANT_PROMPT = """\
You are a coding assistant. A developer's build fails; you see the error and the relevant files, \
and you answer with the edits that fix the build. You cannot run commands or look at other files. \
Do not delete or disable tests or checks to make the build pass.

{edit_format}"""


def file_context(ctx: ToolContext, result: BuildResult, extra: list[str] | None = None) -> str:
    """Contents of the files the errors point at, the named extra files, and the build files."""
    wanted = [e.file for e in result.errors if e.file] + list(extra or []) + list(_BUILD_FILES)
    parts: list[str] = []
    seen: set[str] = set()
    total = 0
    for name in wanted:
        try:  # opened without following links out of the workspace (no check-then-open race)
            rel, text = confined.read_text(ctx.root, name)
        except (ToolError, OSError):  # missing, a directory, or out of the workspace: not shown
            continue
        if rel in seen:
            continue
        seen.add(rel)
        text = text[:_MAX_FILE_CHARS]
        if total + len(text) > _MAX_CONTEXT_CHARS:
            break
        total += len(text)
        parts.append(f"{rel}\n```\n{text}\n```")
    return "\n\n".join(parts)


def coding_assistant_edit(
    model: Model,
    context: AttemptContext,
    trajectory: Trajectory,
    request: str,
    files: list[str] | None = None,
) -> ToolResult:
    """One coding-assistant request: error + files in, SEARCH/REPLACE edits out, applied; returns the result.

    An answer with no edits, or with edits that did not apply, is answered once with what went
    wrong (Aider does the same), and the second answer's edits count.
    """
    ctx = context.ctx
    messages = [
        {"role": "system", "content": CODING_ASSISTANT_PROMPT.format(edit_format=SEARCH_REPLACE_FORMAT)},
        {"role": "user", "content": f"{request}\n\n# Files\n\n{file_context(ctx, context.initial, files)}"},
    ]
    if not trajectory.messages:
        trajectory.messages.extend(messages)
    result = _answer(model, context, trajectory, messages)
    if result.error:
        retry = {"role": "user", "content": _retry_message(result.output)}
        messages += [trajectory.messages[-1], retry]
        trajectory.add_message(retry)
        result = _answer(model, context, trajectory, messages)
    return result


def _answer(
    model: Model, context: AttemptContext, trajectory: Trajectory, messages: list[Message]
) -> ToolResult:
    """One call: the reply's edits applied and recorded as a step."""
    reply = model.complete(messages, [], context.call_limits(trajectory))
    step = Step(len(trajectory.steps) + 1, reply.message(), usage=reply.usage, model_s=reply.duration_s)
    step.tool_results.append(_apply(context, parse_search_replace(reply.content)))
    trajectory.add_message(step.reply)
    trajectory.add_step(step)
    return step.tool_results[-1]


def _retry_message(report: str) -> str:
    """What the second request says about the first answer's edits."""
    if report == NO_EDITS:
        return f"Your answer had no edits I could read. {SEARCH_REPLACE_FORMAT}"
    return (
        f"{report}\nEdits that applied are kept. Send the others again, with each SEARCH part copied "
        "exactly (spaces included) from the file as it is now."
    )


def _apply(context: AttemptContext, edits: list[SearchReplace]) -> ToolResult:
    """Apply the edits through the replace tool, recorded as one call."""
    began = time.monotonic()
    report = apply_search_replace(edits, context.all_tools()["replace"]) if edits else [NO_EDITS]
    failed = not edits or any(line.startswith(_FAILED_EDIT) for line in report)
    return ToolResult("edits", "search_replace", "", "\n".join(report), failed, time.monotonic() - began)


class CodingAssistantAgent:
    """One call with the error and the file context; its edits are applied; no tools, no second look."""

    name = "coding-assistant"
    uses_model = True
    builds_first = True

    def run(self, context: AttemptContext) -> Stop:
        """Ask once, apply the answer's edits."""
        request = f"The build fails with:\n\n{context.error_view()}"
        result = coding_assistant_edit(context.model(), context, context.trajectory, request)
        context.emit("step", {"step": 1, "usage": context.trajectory.usage, "calls": 0})
        if not result.error:
            return Stop(StopKind.MODEL_FINISHED, "coding assistant answered")
        if result.output == NO_EDITS:
            return Stop(StopKind.MODEL_FINISHED, "coding assistant answered without edits")
        return Stop(StopKind.MODEL_FINISHED, "coding assistant edits did not all apply")
