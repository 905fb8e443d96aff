"""Tool calls a model wrote as text, in the forms real models use when no server parses them.

A local model behind a plain OpenAI-compatible server often answers with the call in its content
instead of `tool_calls`: Qwen and Hermes wrap it in `<tool_call>...</tool_call>`, Llama 3.1 puts
`<|python_tag|>` before it, Mistral writes `[TOOL_CALLS]` and a list or `name[ARGS]{...}`, and many
write a fenced or bare JSON object `{"name": ..., "arguments": {...}}` (the 1.5B Qwen2.5-Coder even
doubles its braces, copying a bug of its chat template). All of these are one JSON value naming a
tool, so one scan reads them: every `{` or `[` that starts a JSON value is decoded, and each object
that names an offered tool becomes a call. A name the agent was not offered never does, so a JSON
example in prose stays prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

# Longer replies are not scanned: a call is short, and decoding at every brace of a huge reply
# would take quadratic time.
MAX_SCANNED = 200_000
# The id of a call read from text starts with this, so a trajectory shows which calls were.
TEXT_CALL_PREFIX = "textcall_"
_DECODER = json.JSONDecoder()
# Mistral's newer form: `[TOOL_CALLS]name[ARGS]{...}`.
_MISTRAL_ARGS = re.compile(r"\[TOOL_CALLS\]\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]")


def calls_in_text(text: str, tools: Collection[str]) -> list[tuple[str, str]]:
    """The (tool name, arguments as JSON text) of every call written in `text`, in order.

    Only names in `tools` count. Arguments come from `arguments` or `parameters`, as an object or
    as a JSON string; a call without them has `{}`.
    """
    if not text or len(text) > MAX_SCANNED or not tools:
        return []
    calls: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        mistral = _MISTRAL_ARGS.match(text, position)
        if mistral and mistral.group(1) in tools:
            value, end = _decode(text, mistral.end())
            if isinstance(value, dict):
                calls.append((mistral.group(1), json.dumps(value)))
                position = end
                continue
        if text[position] in "{[":
            value, end = _decode(text, position)
            found = _calls_of(value, tools) if end else []
            if found:
                calls.extend(found)
                position = end
                continue
        position += 1
    return calls


def _decode(text: str, start: int) -> tuple[Any, int]:
    """The JSON value starting at `start` (skipping blanks) and where it ends; (None, 0) if none.

    A value in doubled braces (`{{"name": ...}}`) is read as the object inside them.
    """
    while start < len(text) and text[start].isspace():
        start += 1
    for skip in ((1, 0) if text.startswith("{{", start) else (0,)):
        try:
            value, end = _DECODER.raw_decode(text, start + skip)
        except json.JSONDecodeError:
            continue
        if skip and text.startswith("}", end):
            end += 1
        return value, end
    return None, 0


def _calls_of(value: Any, tools: Collection[str]) -> list[tuple[str, str]]:
    """The calls a decoded value holds: one object, or those of a list that name offered tools."""
    found = [_call_of(item, tools) for item in (value if isinstance(value, list) else [value])]
    return [call for call in found if call]


def _call_of(value: Any, tools: Collection[str]) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # the OpenAI shape, written out as text
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or name not in tools:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        return name, arguments  # already JSON text (or malformed: the tool says so to the model)
    if not isinstance(arguments, dict):
        return None
    return name, json.dumps(arguments)
