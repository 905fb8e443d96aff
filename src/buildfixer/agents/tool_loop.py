"""The tool loop (Gemini-CLI-like): call the model, run the tools it asks for, until done or a budget ends.

The loop never decides whether the repair worked: the harness builds once more afterwards
(see `harness.attempt.run_attempt`). A tool failure of the model's making (bad JSON, unknown
tool, wrong types, a path out of the workspace) becomes an error message the model reads; the
loop goes on. So does a reply that calls nothing but is no answer either (empty, a call that
cannot be read, prose before any tool ran, a fix shown as code): the model is told what to do
instead, once per kind of problem since its last call (`llm.text_calls.ReplyCheck`); a problem
told already ends the attempt.

Each model call is bounded by what is left of the budget (`CallLimits`): its timeout by the
time left, its reply length by the tokens left and by what the model writes in the time left,
so `--max-time` also ends a call in progress.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from buildfixer.agents.calls import execute_call
from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.agents.window import fit_window
from buildfixer.core.chat import CallLimits, Message, ModelTimeout, tokens_by_length
from buildfixer.core.progress import Progress
from buildfixer.core.protocols import Model
from buildfixer.core.stops import Stop, StopKind
from buildfixer.llm.text_calls import ReplyCheck
from buildfixer.tools.base import Tool

# Fewer tokens written than this say little about a model's speed.
_MIN_RATE_SAMPLE = 200
# The shortest reply asked for: one tool call must still fit.
_MIN_REPLY = 256
# Room left in the window for the reply when no length is asked for.
_REPLY_ROOM = 4096


@dataclass
class Budget:
    """Limits of one attempt; None means no limit.

    Attributes:
        max_calls: LLM calls (the studies' ablations used 30).
        max_tokens: Input + output tokens over all calls.
        max_cost_usd: Money over all calls (only meaningful when prices are known).
        max_wall_s: Wall time of the whole loop, tools included: a tool still running when it
            runs out is abandoned (agents.calls) and the attempt stops with `budget_time`.
    """

    max_calls: int = 30
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None

    def deadline(self, started: float) -> float | None:
        """When (time.monotonic) the wall-time budget of a loop started at `started` runs out."""
        return None if self.max_wall_s is None else started + self.max_wall_s

    def out_of_time(self) -> Stop:
        """The time-budget stop."""
        return Stop(StopKind.BUDGET_TIME, f"time budget reached ({self.max_wall_s:g}s)")

    def call_limits(self, trajectory: Trajectory, started: float) -> CallLimits:
        """The bounds of the next model call: the time and tokens left, and the reply the time allows.

        The reply's length is also bounded by the model's writing speed so far in this attempt
        (tokens per second of its earlier calls), so a model that would write until the time is up
        stops at a length it can finish.
        """
        timeout = None if self.max_wall_s is None else max(1.0, started + self.max_wall_s - time.monotonic())
        usage = trajectory.usage
        left = None if self.max_tokens is None else self.max_tokens - usage.input_tokens - usage.output_tokens
        written = sum(step.usage.output_tokens for step in trajectory.steps)
        writing_s = sum(step.model_s for step in trajectory.steps)
        if timeout is not None and written >= _MIN_RATE_SAMPLE and writing_s > 0:
            by_time = int(written / writing_s * timeout)
            left = by_time if left is None else min(left, by_time)
        return CallLimits(timeout_s=timeout, max_tokens=None if left is None else max(_MIN_REPLY, left))

    def exceeded(self, trajectory: Trajectory, started: float) -> Stop | None:
        """Why the attempt must stop now, or None."""
        usage = trajectory.usage
        if trajectory.llm_calls() >= self.max_calls:
            return Stop(StopKind.BUDGET_CALLS, f"LLM call budget reached ({self.max_calls})")
        if self.max_tokens is not None and usage.input_tokens + usage.output_tokens >= self.max_tokens:
            return Stop(StopKind.BUDGET_TOKENS, f"token budget reached ({self.max_tokens})")
        if self.max_cost_usd is not None and usage.cost_usd >= self.max_cost_usd:
            return Stop(StopKind.BUDGET_COST, f"cost budget reached (${self.max_cost_usd})")
        if self.max_wall_s is not None and time.monotonic() - started >= self.max_wall_s:
            return self.out_of_time()
        return None


@dataclass
class LoopResult:
    """How the loop ended (the verdict comes later, from the harness's own build)."""

    stop: Stop
    final_message: str = ""

    @property
    def stop_reason(self) -> str:
        """The stop in words."""
        return self.stop.detail


@dataclass
class ToolLoop:
    """Runs one conversation of a model with a set of tools.

    Attributes:
        model: The model to call.
        tools: Tools offered to the model.
        budget: When to stop.
        repeat_limit: An identical call (same tool, same arguments) repeated this many times in a
            row ends the attempt; one repetition earlier the model gets a warning.
        progress: Called with (event, data) for live progress ("step", "tool", "stop"). A step's
            data holds `usage` (the attempt's total before this step) and `step_usage` (this
            step's model call).
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
        trajectory.meta["tools"] = schemas  # what the model saw, for training exports
        if not trajectory.messages:
            trajectory.add_message({"role": "system", "content": system})
            trajectory.add_message({"role": "user", "content": first})
        started = time.monotonic()
        deadline = self.budget.deadline(started)
        recent: list[str] = []
        check = ReplyCheck()  # what to tell a model whose reply is no answer
        acted = any(step.tool_results for step in trajectory.steps)
        while True:
            if stop := self.budget.exceeded(trajectory, started):
                return self._stop(stop)
            limits = self.budget.call_limits(trajectory, started)
            try:
                reply = self.model.complete(
                    self._fitted(trajectory.messages, schemas, limits), schemas, limits
                )
            except ModelTimeout:
                if deadline is not None and time.monotonic() >= deadline - 1.0:
                    return self._stop(self.budget.out_of_time())
                raise
            step = Step(
                len(trajectory.steps) + 1,
                reply.message(),
                usage=reply.usage,
                model_s=reply.duration_s,
                written=reply.written,
            )
            trajectory.add_message(step.reply)
            self._emit(
                "step",
                {
                    "step": step.index,
                    "usage": trajectory.usage,
                    "step_usage": step.usage,
                    "calls": len(reply.tool_calls),
                },
            )
            if not reply.tool_calls:
                problem = check.message(reply.content, by_name, acted=acted)
                step.told = problem or ""
                trajectory.add_step(step)
                if problem is None:
                    return self._stop(Stop(StopKind.MODEL_FINISHED, "model finished"), reply.content)
                trajectory.add_message({"role": "user", "content": problem})
                self._emit("nudge", {"step": step.index, "message": problem})
                continue
            check.called()
            acted = True
            looping = False
            for call in reply.tool_calls:
                if deadline is not None and time.monotonic() >= deadline:
                    trajectory.add_step(step)  # the calls left in this reply are not started
                    return self._stop(self.budget.out_of_time())
                signature = f"{call.name}\0{_normalized(call.arguments)}"
                recent = [*recent, signature][-self.repeat_limit :]
                repeats = len(recent) - next(
                    (i + 1 for i in range(len(recent) - 1, -1, -1) if recent[i] != signature), 0
                )
                result = execute_call(by_name, call.id, call.name, call.arguments, deadline)
                if 1 < repeats == self.repeat_limit - 1:  # a first call is no repetition to warn of
                    result.output += (
                        "\n\nNote: you have made this exact call several times in a row; try something else."
                    )
                looping = looping or repeats >= self.repeat_limit
                step.tool_results.append(result)
                trajectory.add_message({"role": "tool", "tool_call_id": call.id, "content": result.output})
                self._emit("tool", {"name": call.name, "error": result.error, "seconds": result.seconds})
            trajectory.add_step(step)
            if looping:
                return self._stop(Stop(StopKind.LOOP_DETECTED, "loop detected (the same call repeated)"))

    def _fitted(
        self, messages: list[Message], schemas: list[dict[str, Any]], limits: CallLimits
    ) -> list[Message]:
        """The conversation to send: older tool outputs condensed once it would overfill the model's window.

        The window is the model's `context_window` when it has one (local models: their server's);
        the tool schemas and the longest reply asked for take their share of it first. Estimates
        run at four characters a token, and code and logs take more tokens than prose: a tenth
        of the window is kept free.
        """
        window = getattr(self.model, "context_window", None)
        if not isinstance(window, int) or window <= 0:
            return messages
        room = int(window * 0.9) - tokens_by_length(json.dumps(schemas)) - (limits.max_tokens or _REPLY_ROOM)
        return fit_window(messages, max(room, window // 4))

    def _stop(self, stop: Stop, message: str = "") -> LoopResult:
        self._emit("stop", {"reason": stop.detail, "kind": stop.kind.value})
        return LoopResult(stop, message)

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
