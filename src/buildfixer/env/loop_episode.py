"""Full mode: one run of the repair loop (the pipeline agent) as an episode, driven reply by reply.

The loop calls its policy; here the policy is the trainer. The loop runs in a thread whose model
is a bridge: each model call hands the request (the conversation and the tool schemas) to the
environment and waits for `step` to bring the reply. So an observation is always a whole request:
the loop gives each try a fresh context, so what the policy answers next is not a continuation of
the last conversation but a new one when a new try begins (`info["new_context"]`).

The loop itself decides everything else as in `fix --agent pipeline`: the top error, fix-memory
candidates, replays, builds, the judge, retries; the harness's verdict build and the judge give
the reward.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from buildfixer.agents.tool_loop import Budget
from buildfixer.core.build_result import BuildResult
from buildfixer.core.chat import CallLimits, Message, ModelError, ModelReply, ToolCall
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.llm.scripted import arguments_text
from buildfixer.llm.text_calls import with_text_calls
from buildfixer.workspace.workspace import Workspace

POLICY = "env-policy"


@dataclass
class LoopRequest:
    """The loop asks the policy: the conversation and the tool schemas of this model call."""

    messages: list[Message]
    tools: list[dict[str, Any]]


@dataclass
class LoopEnded:
    """The loop is over: the attempt (None when it failed with `error`) and the patch it left."""

    attempt: AttemptResult | None
    patch: str
    error: BaseException | None = None


class PolicyBridge:
    """The loop's model: a call waits until the environment brings the policy's reply."""

    name = POLICY

    def __init__(self) -> None:
        self.requests: queue.Queue[LoopRequest | LoopEnded] = queue.Queue()
        self.replies: queue.Queue[ModelReply | None] = queue.Queue()

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], limits: CallLimits | None = None
    ) -> ModelReply:
        """Hand the request over and wait for the reply (a closed episode: a model error).

        The policy's time is the trainer's: `limits` do not apply. Calls the policy wrote as text
        run as calls, as they do for any model (`llm.text_calls`).
        """
        self.requests.put(LoopRequest([dict(m) for m in messages], list(tools)))
        reply = self.replies.get()
        if reply is None:
            raise ModelError("the episode was closed")
        return with_text_calls(reply, tools)


def reply_of(message: dict[str, Any]) -> ModelReply:
    """An OpenAI-style assistant message as the loop's model reply."""
    calls = []
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        call_id = str(call.get("id") or f"call_{index}")
        name, arguments = str(function.get("name", "")), arguments_text(function.get("arguments"))
        calls.append(ToolCall(call_id, name, arguments))
    return ModelReply(content=str(message.get("content") or ""), tool_calls=calls)


class LoopEpisode:
    """One run of the loop in a thread; `next()` waits for its next request or its end."""

    def __init__(
        self, workspace: Workspace, config: AttemptConfig, failure: BuildResult,
        instance: dict[str, Any], judge: bool,
    ) -> None:  # fmt: skip
        self.bridge = PolicyBridge()
        self._workspace, self._config, self._failure = workspace, config, failure
        self._instance, self._judge = instance, judge
        self._thread = threading.Thread(target=self._run, name="repair-loop-episode", daemon=True)
        self._last_messages: list[Message] = []
        self._thread.start()

    def next(self, reply: ModelReply | None = None) -> tuple[LoopRequest | LoopEnded, bool]:
        """Send the policy's reply (None at the start) and wait.

        Returns the loop's next request or its end, and whether the request starts a new
        conversation.
        """
        if reply is not None:
            self.bridge.replies.put(reply)
        event = self.bridge.requests.get()
        if isinstance(event, LoopEnded):
            self._thread.join()
            return event, False
        new = not _continues(self._last_messages, event.messages)
        self._last_messages = event.messages
        return event, new

    def cancel(self) -> LoopEnded:
        """End the loop now (its pending model call fails) and return how it ended."""
        ended: LoopEnded | None = None
        self.bridge.replies.put(None)
        while ended is None:
            event = self.bridge.requests.get()
            if isinstance(event, LoopEnded):
                ended = event
            else:
                self.bridge.replies.put(None)
        self._thread.join()
        return ended

    def _run(self) -> None:
        try:
            self._config.judge = self._judge  # the attempt's own judge step, as for fix and bench
            attempt = run_attempt(
                self._workspace.root, self._config, initial=self._failure, instance=self._instance,
                system=self._instance.get("build_system"), model=self.bridge, diff=self._workspace.diff,
            )  # fmt: skip
            self.bridge.requests.put(LoopEnded(attempt, attempt.patch))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, which raises it
            self.bridge.requests.put(LoopEnded(None, "", exc))


def _continues(before: list[Message], now: list[Message]) -> bool:
    """Whether `now` extends the conversation `before` (the same try), not a fresh context."""
    return bool(before) and len(now) > len(before) and now[: len(before)] == before


def full_info(ended: LoopEnded, turns: int, started: float, judge: bool) -> tuple[float, dict[str, Any]]:
    """The reward and `info` of a finished loop."""
    if ended.error is not None:
        if isinstance(ended.error, BuildfixerError):
            raise ended.error
        raise BuildfixerError(f"the repair loop failed: {ended.error}") from ended.error
    attempt = ended.attempt
    assert attempt is not None
    build_ok = attempt.verdict.status == "success"
    judged = (attempt.judge or {}).get("approved") if judge and ended.patch.strip() else None
    reward = 1.0 if build_ok and judged is not False else 0.0
    meta = attempt.trajectory.meta.get("pipeline") or {}
    info = {
        "build_ok": build_ok, "judge_ok": judged, "stop": attempt.stop.kind.value, "turns": turns,
        "patch": ended.patch, "edited": attempt.edited or [], "status": attempt.verdict.status,
        "findings": (attempt.judge or {}).get("findings", []), "pipeline": meta,
        "seconds": round(time.monotonic() - started, 3), "build_seconds": round(attempt.build_s, 3),
    }  # fmt: skip
    return reward, info


def loop_config(toolset: str, options: Any, max_turns: int, max_wall_s: float | None) -> AttemptConfig:
    """The pipeline agent with the bridge as its model, bounded by the episode's limits."""
    budget = Budget(max_calls=max_turns, max_wall_s=max_wall_s)
    return AttemptConfig(agent="pipeline", model=POLICY, toolset=toolset, options=options, budget=budget)
