"""The tool agent (Gemini-CLI-like): the model works through the configured toolset until it is done."""

from __future__ import annotations

from buildfixer.agents.env import AttemptEnv
from buildfixer.agents.loop import Budget, ToolLoop
from buildfixer.agents.prompts import first_message, system_prompt
from buildfixer.core.protocols import Model
from buildfixer.core.stops import Stop
from buildfixer.tools.shell import guidance


def run_tool_loop(env: AttemptEnv, model: Model, budget: Budget | None = None) -> Stop:
    """One conversation of `model` with the configured toolset, from the initial failure."""
    settings = env.settings
    system = system_prompt(guidance(env.ctx) if settings.guidance else None)
    first = first_message(env.ctx.root, env.error_view())
    loop = ToolLoop(model, env.toolset(), budget or settings.budget, progress=env.progress)
    return loop.run(env.trajectory, system, first).stop


class ToolAgent:
    """The study's agent: one model, the toolset's domain tools, a budget."""

    name = "tool"
    uses_model = True
    builds_first = True

    def run(self, env: AttemptEnv) -> Stop:
        """Run the loop with the attempt's model."""
        return run_tool_loop(env, env.model())
