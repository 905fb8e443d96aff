"""The tool agent (Gemini-CLI-like): the model works through the configured toolset until it is done."""

from __future__ import annotations

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.prompts import first_message, system_prompt
from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.core.protocols import Model
from buildfixer.core.stops import Stop
from buildfixer.tools.shell import guidance


def run_tool_loop(context: AttemptContext, model: Model, budget: Budget | None = None) -> Stop:
    """One conversation of `model` with the configured toolset, from the initial failure."""
    settings = context.settings
    system = system_prompt(guidance(context.ctx) if settings.guidance else None)
    first = first_message(context.ctx.root, context.error_view())
    loop = ToolLoop(model, context.toolset(), budget or settings.budget, progress=context.progress)
    return loop.run(context.trajectory, system, first).stop


class ToolAgent:
    """The study's agent: one model, the toolset's domain tools, a budget."""

    name = "tool"
    uses_model = True
    builds_first = True

    def run(self, context: AttemptContext) -> Stop:
        """Run the loop with the attempt's model."""
        return run_tool_loop(context, context.model())
