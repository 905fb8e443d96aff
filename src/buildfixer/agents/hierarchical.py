"""The hierarchical baseline: a read-only planner whose one editing tool delegates to the coding assistant."""

from __future__ import annotations

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.coding_assistant import coding_assistant_edit
from buildfixer.agents.prompts import first_message, system_prompt
from buildfixer.agents.tool_loop import ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.stops import Stop
from buildfixer.tools.base import Tool, make_tool

_READERS = ("list_directory", "glob", "search_file_content", "read_file")


class HierarchicalAgent:
    """The planner looks around; the coding assistant writes the code it asks for."""

    name = "hierarchical"
    uses_model = True
    builds_first = True

    def run(self, context: AttemptContext) -> Stop:
        """Plan with read-only tools; every change goes through `request_code_change`."""
        model = context.model()
        available = context.all_tools()

        def request_code_change(instruction: str, files: list[str]) -> str:
            """Ask the coding assistant to change code; it sees the build error and the files named here.

            Args:
                instruction: What to change and why, precisely (the assistant cannot explore on its own).
                files: Paths of the files to change or to consult, relative to the project root.
            """
            request = f"{instruction}\n\nThe build error:\n\n{context.error_view(style='condensed')}"
            delegated = Trajectory(None)
            result = coding_assistant_edit(model, context, delegated, request, files)
            # The delegated call counts (calls, tokens, cost); its messages stay out of the planner's.
            for step in delegated.steps:
                context.trajectory.add_step(step)
            return result.output

        tools: list[Tool] = [*(available[name] for name in _READERS), make_tool(request_code_change)]
        first = first_message(context.ctx.root, context.error_view())
        loop = ToolLoop(model, tools, context.settings.budget, progress=context.progress)
        return loop.run(context.trajectory, system_prompt(), first).stop
