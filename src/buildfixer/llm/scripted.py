"""A deterministic fake model that replays a script of replies: for tests and demos without a provider.

A script is a list of steps, one per model call::

    [
      {"content": "Let me look at the log.", "tool_calls": [{"name": "read_log", "arguments": {}}]},
      {"tool_calls": [{"name": "edit_file", "arguments": {"path": "pom.xml", "old": "1.0", "new": "1.1"}}]},
      {"content": "Fixed: the plugin version did not exist."}
    ]

`arguments` may be a dict (sent as JSON) or a raw string (sent as is, so a script can exercise
malformed calls). A step `{"error": 503}` stands for a failed HTTP call: the fake server
(`buildfixer.llm.fake_server`) answers it with that status; `ScriptedModel` treats a transient
status as a call that was retried and skips it, any other status raises `ModelError`. A step's
`delay_s` makes the fake server wait that long before answering (a slow local model); the
scripted model answers at once.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from buildfixer.core.chat import (
    CallLimits,
    Message,
    ModelError,
    ModelReply,
    ToolCall,
    Usage,
    tokens_by_length,
)
from buildfixer.core.errors import BuildfixerError

SCRIPT_FINISHED = "(script finished)"
# HTTP statuses a real client retries (LiteLLMModel does): the scripted model skips them.
TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
_STEP_KEYS = {"content", "tool_calls", "error", "message", "usage", "delay_s"}


def _where(index: int, source: str | None) -> str:
    return f"{source}: step {index + 1}" if source else f"step {index + 1}"


def validate_steps(steps: Any, source: str | None = None) -> list[dict[str, Any]]:
    """Check the shape of a script, so a typo fails at load time rather than mid-run.

    Args:
        steps: The parsed script (a list of step dicts).
        source: Where the script came from, for error messages.

    Returns:
        The steps, unchanged.

    Raises:
        BuildfixerError: The script is not a list of well-formed steps.
    """
    prefix = f"{source}: " if source else ""
    if not isinstance(steps, list):
        raise BuildfixerError(f"{prefix}a script is a list of steps, got {type(steps).__name__}")
    for i, step in enumerate(steps):
        where = _where(i, source)
        if not isinstance(step, dict):
            raise BuildfixerError(f"{where}: a step is an object, got {type(step).__name__}")
        unknown = set(step) - _STEP_KEYS
        if unknown:
            raise BuildfixerError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(_STEP_KEYS)})")
        delay = step.get("delay_s", 0)
        if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 600:
            raise BuildfixerError(f"{where}: 'delay_s' must be a number of seconds from 0 to 600")
        if "error" in step:
            if not isinstance(step["error"], int) or isinstance(step["error"], bool) or step["error"] < 400:
                raise BuildfixerError(f"{where}: 'error' must be an HTTP status >= 400")
            continue
        if not isinstance(step.get("content", ""), str):
            raise BuildfixerError(f"{where}: 'content' must be a string")
        calls = step.get("tool_calls", [])
        if not isinstance(calls, list):
            raise BuildfixerError(f"{where}: 'tool_calls' must be a list")
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
                raise BuildfixerError(f"{where}: each tool call needs a 'name' string")
            if not isinstance(call.get("arguments", {}), dict | str):
                raise BuildfixerError(f"{where}: tool call 'arguments' must be an object or a string")
    return steps


def load_script(path: str | Path) -> list[dict[str, Any]]:
    """Read a script: a JSON list of steps, or an object `{"steps": [...]}`.

    Args:
        path: The JSON file.

    Returns:
        The validated steps.

    Raises:
        BuildfixerError: The file is missing, unreadable, not JSON, or not a valid script.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildfixerError(f"script not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BuildfixerError(f"cannot read script {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BuildfixerError(f"script {path} is not valid JSON: {exc}") from None
    if isinstance(data, dict):
        if "steps" not in data:
            raise BuildfixerError(f"script {path}: an object script needs a 'steps' list")
        data = data["steps"]
    return validate_steps(data, str(path))


def arguments_text(arguments: Any) -> str:
    """The raw JSON text of scripted tool-call arguments (a string is taken as is)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


class ScriptedModel:
    """Replays scripted replies in order, recording every request it gets.

    Attributes:
        name: Model name shown in reports.
        steps: The script.
        requests: Each call's `(messages, tools)`, deep-copied, for tests to inspect.
        limits_seen: Each call's `CallLimits` (None when the caller gave none).
    """

    def __init__(self, steps: list[dict[str, Any]], name: str = "scripted") -> None:
        self.name = name
        self.steps = validate_steps(steps)
        self.requests: list[tuple[list[Message], list[dict[str, Any]]]] = []
        self.limits_seen: list[CallLimits | None] = []
        self._next = 0
        self._calls = 0

    @property
    def finished(self) -> bool:
        """True once every step has been replayed."""
        return self._next >= len(self.steps)

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], limits: CallLimits | None = None
    ) -> ModelReply:
        """Return the next scripted reply ("(script finished)" once the script is exhausted).

        `limits` are recorded in `limits_seen` (a script answers at once and at its own length).

        Raises:
            ModelError: The next step is a non-transient error.
        """
        self.requests.append((copy.deepcopy(messages), copy.deepcopy(tools)))
        self.limits_seen.append(limits)
        step = self._take()
        calls: list[ToolCall] = []
        for call in step.get("tool_calls", []):
            self._calls += 1
            arguments = arguments_text(call.get("arguments", {}))
            calls.append(ToolCall(f"call_{self._calls}", call["name"], arguments))
        content = step.get("content", "")
        prompt = json.dumps(messages, sort_keys=True, default=str) + json.dumps(tools, sort_keys=True)
        completion = content + "".join(c.name + c.arguments for c in calls)
        usage = Usage(
            input_tokens=tokens_by_length(prompt),
            output_tokens=tokens_by_length(completion),
            cost_usd=0.0,
            cost_known=True,  # a fake costs nothing, and that is known exactly
            estimated=True,
        )
        return ModelReply(content=content, tool_calls=calls, usage=usage, duration_s=0.0)

    def _take(self) -> dict[str, Any]:
        while self._next < len(self.steps):
            step = self.steps[self._next]
            self._next += 1
            status = step.get("error")
            if status is None:
                return step
            if status not in TRANSIENT_STATUSES:
                detail = step.get("message") or "scripted error"
                raise ModelError(f"{self.name}: HTTP {status}: {detail}")
        return {"content": SCRIPT_FINISHED}

    def __repr__(self) -> str:
        return f"ScriptedModel(name={self.name!r}, steps={len(self.steps)}, next={self._next})"
