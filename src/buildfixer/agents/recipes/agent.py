"""The recipes policy as an agent: diagnose the failure, apply the known repair through the tools, rebuild.

No model is called. Each round diagnoses the current failure (`agent.recipes.diagnose`); a
repair is a list of ordinary tool calls (change_java_version, replace, write_file) run through
the same tools an LLM would use, so confinement and logging are identical. When no recipe
applies, the policy declines and changes nothing more.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.agents.loop import Progress
from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.core.records import BuildResult
from buildfixer.tools.base import ToolError
from buildfixer.tools.context import ToolContext

if TYPE_CHECKING:
    from buildfixer.harness.attempt import AttemptConfig

# A repair can reveal the next failure (a missing dependency behind a JDK switch); a few rounds
# cover that without letting a policy loop forever.
MAX_ROUNDS = 4


def run_recipes(
    ctx: ToolContext, config: AttemptConfig, trajectory: Trajectory, initial: BuildResult,
    progress: Progress | None,
) -> str:  # fmt: skip
    """Apply recipes until the build succeeds, none applies, or the rounds run out."""
    from buildfixer.agents.recipes.diagnose import diagnose
    from buildfixer.harness.attempt import current_build
    from buildfixer.tools.presets import all_tools

    tools = all_tools(ctx)
    result = initial
    applied: list[str] = []
    tried: list[list[tuple[str, str]]] = []
    for round_no in range(1, MAX_ROUNDS + 1):
        source = trajectory.meta.get("source")  # the user's project: its git history, if any
        repair = diagnose(ctx.root, result, ctx.options, origin=Path(source) if source else None)
        if repair is None:
            top = result.errors[0].message.splitlines()[0][:160] if result.errors else result.status
            what = "declined" if not applied else "stopped"
            return f"{what}: no recipe for this failure ({result.category}: {top})"
        planned = [(call.tool, json.dumps(call.arguments, sort_keys=True)) for call in repair.calls]
        if planned in tried:
            return f"stopped: recipe {repair.recipe} did not fix the failure it targets"
        tried.append(planned)
        applied.append(repair.recipe)
        step = Step(len(trajectory.steps) + 1, {"role": "assistant", "content": repair.summary}, llm=False)
        step.reply["tool_calls"] = [
            {"id": f"recipe_{round_no}_{i}", "type": "function",
             "function": {"name": call.tool, "arguments": json.dumps(call.arguments)}}
            for i, call in enumerate(repair.calls)
        ]  # fmt: skip
        trajectory.add_message(step.reply)
        for i, call in enumerate(repair.calls):
            began = time.monotonic()
            try:
                output, failed = tools[call.tool].call(call.arguments), False
            except ToolError as exc:
                output, failed = f"Error: {exc}", True
            step.tool_results.append(
                {"id": f"recipe_{round_no}_{i}", "name": call.tool, "arguments": json.dumps(call.arguments),
                 "output": output, "error": failed, "seconds": round(time.monotonic() - began, 3)}
            )  # fmt: skip
            trajectory.add_message(
                {"role": "tool", "tool_call_id": f"recipe_{round_no}_{i}", "content": output}
            )
            if progress:
                progress("tool", {"name": call.tool, "error": failed, "seconds": time.monotonic() - began})
            if failed:
                trajectory.add_step(step)
                return f"stopped: recipe {repair.recipe} could not be applied ({output})"
        trajectory.add_step(step)
        if progress:
            progress("step", {"step": round_no, "usage": trajectory.usage, "calls": len(repair.calls),
                              "recipe": repair.recipe})  # fmt: skip
        result = current_build(ctx)
        if result.status == "success":
            return f"repaired by recipe(s): {', '.join(applied)}"
    return f"stopped after {MAX_ROUNDS} rounds of recipes: {', '.join(applied)}"
