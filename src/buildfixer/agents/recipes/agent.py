"""The recipes policy as an agent: diagnose the failure, apply the known repair through the tools, rebuild.

No model is called. Each round diagnoses the current failure (`agents.recipes.diagnose`); a
repair is a list of ordinary tool calls (change_java_version, replace, write_file) run through
the same tools an LLM would use, so confinement and logging are identical. When no recipe
applies, the policy declines and changes nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.calls import execute_call
from buildfixer.agents.recipes import RECIPES
from buildfixer.agents.recipes.diagnose import Repair, diagnose
from buildfixer.agents.trajectory import Step
from buildfixer.core.build_result import BuildResult
from buildfixer.core.shareable import shareable_text
from buildfixer.core.stops import Stop, StopKind
from buildfixer.tools.context import ToolContext

# A repair can reveal the next failure (a missing dependency behind a JDK switch); a few rounds
# cover that without letting a policy loop forever.
MAX_ROUNDS = 4


class RecipesAgent:
    """Known repairs for known failures, offline and deterministic."""

    name = RECIPES
    uses_model = False
    builds_first = True

    def __init__(self) -> None:
        self._first: tuple[BuildResult, Repair | None] | None = None  # the first failure's diagnosis

    def _diagnose(self, ctx: ToolContext, result: BuildResult, source: str | None) -> Repair | None:
        if self._first is not None and self._first[0] is result:
            return self._first[1]
        origin = Path(source) if source else None  # the user's project: its git history, if any
        git_dir = ctx.ledger.git_dir if ctx.ledger is not None else None
        return diagnose(ctx.root, result, ctx.options, origin=origin, git_dir=git_dir)

    def declines(self, ctx: ToolContext, initial: BuildResult, source: str | None) -> bool:
        """Whether no recipe applies to the first failure (then triage need not build the base)."""
        self._first = (initial, self._diagnose(ctx, initial, source))
        return self._first[1] is None

    def run(self, context: AttemptContext) -> Stop:
        """Apply recipes until the build succeeds, none applies, or the rounds run out."""
        trajectory, tools = context.trajectory, context.all_tools()
        result = context.initial
        applied: list[str] = []
        tried: list[list[tuple[str, str]]] = []
        for round_no in range(1, MAX_ROUNDS + 1):
            repair = self._diagnose(context.ctx, result, trajectory.meta.get("source"))
            if repair is None:
                # The workspace is buildfixer's: its paths are shown relative, as the user's project.
                top = result.errors[0].message.splitlines()[0][:160] if result.errors else result.status
                detail = f"{result.category}: {shareable_text(top, context.ctx.root)}"
                if not applied:
                    return Stop(StopKind.DECLINED, f"declined: no recipe for this failure ({detail})")
                # Not the user's failure: the one the recipes' changes led to (nothing is kept).
                used = ", ".join(dict.fromkeys(applied))
                return _stopped(f"after {used} the build fails another way, with no recipe for it ({detail})")
            planned = [(call.tool, json.dumps(call.arguments, sort_keys=True)) for call in repair.calls]
            if planned in tried:
                return _stopped(f"recipe {repair.recipe} did not fix the failure it targets")
            tried.append(planned)
            applied.append(repair.recipe)
            reply = {"role": "assistant", "content": repair.summary}
            step = Step(len(trajectory.steps) + 1, reply, llm=False)
            ids = [f"recipe_{round_no}_{i}" for i in range(len(repair.calls))]
            step.reply["tool_calls"] = [
                {"id": call_id, "type": "function",
                 "function": {"name": call.tool, "arguments": json.dumps(call.arguments)}}
                for call_id, call in zip(ids, repair.calls, strict=True)
            ]  # fmt: skip
            trajectory.add_message(step.reply)
            for call_id, call in zip(ids, repair.calls, strict=True):
                done = execute_call(tools, call_id, call.tool, call.arguments)
                step.tool_results.append(done)
                trajectory.add_message({"role": "tool", "tool_call_id": call_id, "content": done.output})
                context.emit("tool", {"name": call.tool, "error": done.error, "seconds": done.seconds})
                if done.error:
                    trajectory.add_step(step)
                    return _stopped(f"recipe {repair.recipe} could not be applied ({done.output})")
            trajectory.add_step(step)
            context.emit("step", {"step": round_no, "usage": trajectory.usage, "calls": len(repair.calls),
                              "recipe": repair.recipe})  # fmt: skip
            result = context.build()
            if result.status == "success":
                return Stop(StopKind.MODEL_FINISHED, f"repaired by recipe(s): {', '.join(applied)}")
        return _stopped(f"{MAX_ROUNDS} rounds of recipes ({', '.join(applied)}) did not repair the build")


def _stopped(why: str) -> Stop:
    """The policy ended by itself without a repair that builds."""
    return Stop(StopKind.MODEL_FINISHED, f"stopped: {why}")
