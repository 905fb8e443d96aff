"""The tool loop (Gemini-CLI-like): call the model, run the tools it asks for, until done or a budget ends.

The loop never decides whether the repair worked: the harness builds once more afterwards
(see `agent.fix`). A tool failure of the model's making (bad JSON, unknown tool, wrong types,
a path out of the workspace) becomes an error message the model reads; the loop goes on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.llm.base import Message, Model, ToolCall
from buildfixer.tools.base import Tool, ToolError

Progress = Callable[[str, dict[str, Any]], None]


@dataclass
class Budget:
    """Limits of one attempt; None means no limit.

    Attributes:
        max_calls: LLM calls (the studies' ablations used 30).
        max_tokens: Input + output tokens over all calls.
        max_cost_usd: Money over all calls (only meaningful when prices are known).
        max_wall_s: Wall time of the whole loop, tools included.
    """

    max_calls: int = 30
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None

    def exceeded(self, trajectory: Trajectory, started: float) -> str | None:
        """Why the attempt must stop now, or None."""
        usage = trajectory.usage
        if trajectory.llm_calls() >= self.max_calls:
            return f"LLM call budget reached ({self.max_calls})"
        if self.max_tokens is not None and usage.input_tokens + usage.output_tokens >= self.max_tokens:
            return f"token budget reached ({self.max_tokens})"
        if self.max_cost_usd is not None and usage.cost_usd >= self.max_cost_usd:
            return f"cost budget reached (${self.max_cost_usd})"
        if self.max_wall_s is not None and time.monotonic() - started >= self.max_wall_s:
            return f"time budget reached ({self.max_wall_s:g}s)"
        return None


@dataclass
class LoopResult:
    """How the loop ended (the verdict comes later, from the harness's own build)."""

    stop_reason: str
    final_message: str = ""


@dataclass
class ToolLoop:
    """Runs one conversation of a model with a set of tools.

    Attributes:
        model: The model to call.
        tools: Tools offered to the model.
        budget: When to stop.
        repeat_limit: An identical call (same tool, same arguments) repeated this many times in a
            row ends the attempt; one repetition earlier the model gets a warning.
        progress: Called with (event, data) for live progress ("step", "tool", "stop").
    """

    model: Model
    tools: list[Tool]
    budget: Budget = field(default_factory=Budget)
    repeat_limit: int = 4
    progress: Progress | None = None

    def run(self, trajectory: Trajectory, system: str, first: str) -> LoopResult:
        """Talk until the model stops calling tools or a limit ends the attempt."""
        by_name = {tool.name: tool for tool in self.tools}
        schemas = [tool.schema() for tool in self.tools]
        if not trajectory.messages:
            trajectory.add_message({"role": "system", "content": system})
            trajectory.add_message({"role": "user", "content": first})
        started = time.monotonic()
        recent: list[str] = []
        while True:
            if reason := self.budget.exceeded(trajectory, started):
                return self._stop(reason)
            reply = self.model.complete(trajectory.messages, schemas)
            step = Step(
                len(trajectory.steps) + 1, reply.message(), usage=reply.usage, model_s=reply.duration_s
            )
            trajectory.add_message(step.reply)
            self._emit(
                "step", {"step": step.index, "usage": trajectory.usage, "calls": len(reply.tool_calls)}
            )
            if not reply.tool_calls:
                trajectory.add_step(step)
                return self._stop("model finished", reply.content)
            looping = False
            for call in reply.tool_calls:
                signature = f"{call.name}\0{_normalized(call.arguments)}"
                recent = [*recent, signature][-self.repeat_limit :]
                repeats = len(recent) - next(
                    (i + 1 for i in range(len(recent) - 1, -1, -1) if recent[i] != signature), 0
                )
                output, failed, seconds = self._execute(by_name, call)
                if 1 < repeats == self.repeat_limit - 1:  # a first call is no repetition to warn of
                    output += (
                        "\n\nNote: you have made this exact call several times in a row; try something else."
                    )
                looping = looping or repeats >= self.repeat_limit
                step.tool_results.append(
                    {"id": call.id, "name": call.name, "arguments": call.arguments, "output": output,
                     "error": failed, "seconds": round(seconds, 3)}
                )  # fmt: skip
                trajectory.add_message({"role": "tool", "tool_call_id": call.id, "content": output})
                self._emit("tool", {"name": call.name, "error": failed, "seconds": seconds})
            trajectory.add_step(step)
            if looping:
                return self._stop("loop detected (the same call repeated)")

    def _execute(self, by_name: dict[str, Tool], call: ToolCall) -> tuple[str, bool, float]:
        """Run one call; anything the model got wrong comes back as an error text."""
        began = time.monotonic()
        tool = by_name.get(call.name)
        if tool is None:
            known = ", ".join(by_name) or "none"
            return f"Error: unknown tool {call.name!r}. Available tools: {known}", True, 0.0
        try:
            output = tool.call(call.arguments)
            failed = False
        except ToolError as exc:
            output, failed = f"Error: {exc}", True
        return output, failed, time.monotonic() - began

    def _stop(self, reason: str, message: str = "") -> LoopResult:
        self._emit("stop", {"reason": reason})
        return LoopResult(reason, message)

    def _emit(self, event: str, data: dict[str, Any]) -> None:
        if self.progress is not None:
            self.progress(event, data)


def _normalized(arguments: str) -> str:
    """Arguments in a canonical form, so `{"a":1}` and `{ "a": 1 }` count as the same call."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        return str(arguments)


def assistant_text(messages: list[Message]) -> str:
    """The last assistant text of a conversation (what the model said it did)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("content"):
            return str(message["content"])
    return ""
