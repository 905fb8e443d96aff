"""A repair attempt as data: every message, tool call, result, token count, timing and the verdict.

The file is rewritten atomically after every step, so a crash or a kill -9 keeps everything up
to the last finished step, and secrets are redacted before anything reaches the disk.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.core.chat import Message, Usage
from buildfixer.llm.redact import redact_obj

FORMAT_VERSION = 1


@dataclass
class ToolResult:
    """One tool call as it ran: what was asked, what came back, whether it failed, how long it took.

    Every agent records its calls this way (the tool loop, the coding assistant's edit round,
    the recipes policy), so reports and the training export read one shape.
    """

    id: str
    name: str
    arguments: str
    output: str
    error: bool
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in trajectories."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments, "output": self.output,
                "error": self.error, "seconds": round(self.seconds, 3)}  # fmt: skip


@dataclass
class Step:
    """One model call and the tool calls it asked for.

    Attributes:
        index: 1-based step number (one LLM call per step).
        reply: The assistant message.
        tool_results: One entry per tool call.
        usage: Tokens and cost of the model call.
        model_s: Seconds spent in the model call.
        llm: False for steps of a policy that calls no model (recipes): they are not LLM calls.
        written: The reply as the model wrote it, when its calls were read from its text (the
            reply's calls then have ids starting `textcall_`); "" otherwise.
        told: The message a reply that was no answer got (llm.text_calls.ReplyCheck); "" otherwise.
    """

    index: int
    reply: Message
    tool_results: list[ToolResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model_s: float = 0.0
    llm: bool = True
    written: str = ""
    told: str = ""


@dataclass
class Trajectory:
    """The record of one attempt, saved to `path` (when set) after every change."""

    path: Path | None
    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    verdict: dict[str, Any] | None = None
    started: float = field(default_factory=time.time)

    def add_message(self, message: Message) -> None:
        """Append a conversation message (system, user, assistant or tool)."""
        self.messages.append(message)

    def add_step(self, step: Step) -> None:
        """Record a finished step and save.

        Steps are numbered in recording order: a step recorded while another was running (a
        hierarchical agent's delegated call) comes before it.
        """
        step.index = len(self.steps) + 1
        self.steps.append(step)
        self.usage.add(step.usage)
        self.save()

    def finish(self, verdict: dict[str, Any]) -> None:
        """Record the harness's verdict and save."""
        self.verdict = verdict
        self.save()

    def llm_calls(self) -> int:
        """Model calls made so far."""
        return sum(1 for step in self.steps if step.llm)

    def tool_counts(self) -> dict[str, int]:
        """How often each tool was called."""
        counts: dict[str, int] = {}
        for step in self.steps:
            for result in step.tool_results:
                counts[result.name] = counts.get(result.name, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (secrets redacted)."""
        doc = {
            "format": FORMAT_VERSION,
            "meta": self.meta,
            "messages": self.messages,
            "steps": [
                {
                    "index": s.index,
                    "reply": s.reply,
                    "tool_results": [r.to_dict() for r in s.tool_results],
                    "usage": s.usage.to_dict(),
                    "model_s": round(s.model_s, 3),
                    "llm": s.llm,
                    **({"written": s.written} if s.written else {}),
                    **({"told": s.told} if s.told else {}),
                }
                for s in self.steps
            ],
            "usage": self.usage.to_dict(),
            "llm_calls": self.llm_calls(),
            "tool_counts": self.tool_counts(),
            "elapsed_s": round(time.time() - self.started, 3),
            "verdict": self.verdict,
        }
        redacted: dict[str, Any] = redact_obj(doc)
        return redacted

    def save(self) -> None:
        """Write atomically (temp file + rename): readers never see half a trajectory."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".traj-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.to_dict(), out, indent=1, ensure_ascii=False)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
