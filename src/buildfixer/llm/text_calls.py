"""Tool calls a model wrote as text, in the forms real models use when no server parses them.

A local model behind a plain OpenAI-compatible server often answers with the call in its content
instead of `tool_calls`: Qwen and Hermes wrap it in `<tool_call>...</tool_call>`, Llama 3.1 puts
`<|python_tag|>` before it, Mistral writes `[TOOL_CALLS]` and a list or `name[ARGS]{...}`, and many
write a fenced or bare JSON object `{"name": ..., "arguments": {...}}` (the 1.5B Qwen2.5-Coder even
doubles its braces, copying a bug of its chat template). All of these are one JSON value naming a
tool, so one scan reads them: every `{` or `[` that starts a JSON value is decoded, and each object
that names an offered tool becomes a call. A name the agent was not offered never does, so a JSON
example in prose stays prose.

A reply that calls nothing is not always the model's last word: an empty reply, a call that does
not parse or names no offered tool, prose before any tool has run, or a fix shown as code
instead of applied. `reply_problem` says what is wrong in one message the model can act on;
`ReplyCheck` has the agent send each kind once since the model's last call before it gives up.
"""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from collections.abc import Collection
from typing import Any

from buildfixer.core.chat import ModelReply, ToolCall

# Longer replies are not scanned: a call is short, and decoding at every brace of a huge reply
# would take quadratic time.
MAX_SCANNED = 200_000
# The id of a call read from text starts with this, so a trajectory shows which calls were.
TEXT_CALL_PREFIX = "textcall_"
# strict=False: small models put raw newlines and tabs in strings (a file's content); JSON forbids
# them, but their meaning is plain.
_DECODER = json.JSONDecoder(strict=False)
# Mistral's newer form: `[TOOL_CALLS]name[ARGS]{...}`.
_MISTRAL_ARGS = re.compile(r"\[TOOL_CALLS\]\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]")
# Marks of an attempted call that `read_text_calls` could not read.
_CALL_MARKS = re.compile(
    r"<tool_call>|<\|python_tag\|>|\[TOOL_CALLS\]|<function[=>]|\"(?:name|function|arguments|parameters)\"\s*:"
)
_NAMED = re.compile(r"\"(?:name|function)\"\s*:\s*\"([^\"]{1,80})\"")
# What is left around a call once it is cut out: its tags, an empty fence, Llama's and Mistral's markers.
_WRAPPERS = re.compile(
    r"<tool_call>\s*</tool_call>|```(?:json|tool_call)?\s*```|<\|python_tag\|>|\[TOOL_CALLS\]"
)
# A JSON escape (group 1) or a lone backslash, which JSON forbids.
_ESCAPES = re.compile(r'\\(["\\/bfnrtu])|\\')
# A fenced block of code that is not a call's JSON: a fix shown instead of applied.
_CODE = re.compile(r"```(?!json|tool_call)[\w+#.-]*\n(?:[^\n]*\n){1,}?```")
_EDIT_TOOLS = ("replace", "write_file")
_BUILD_TOOLS = ("run_build", "validate_and_build")
# How a call should look, in the words of the Qwen/Hermes form the small local models know.
_CALL_FORM = '<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>'


def read_text_calls(text: str, tools: Collection[str]) -> tuple[list[ToolCall], str]:
    """The calls written in `text` (ids starting TEXT_CALL_PREFIX) and the prose around them.

    Only names in `tools` count. Arguments come from `arguments` or `parameters`, as an object or
    as a JSON string; a call without them has `{}`.

    The prose is the text without the calls nor the tags and fences around them: what the
    conversation keeps of the reply, since the calls go in the message's `tool_calls` and a chat
    template that renders those would otherwise show them twice.
    """
    calls, kept, last = [], [], 0
    for name, arguments, (start, end) in _scan(text, tools):
        calls.append(ToolCall(f"{TEXT_CALL_PREFIX}{uuid.uuid4().hex[:24]}", name, arguments))
        kept.append(text[last:start])
        last = max(last, end)
    kept.append(text[last:])
    return calls, _WRAPPERS.sub("", "".join(kept)).strip()


def with_text_calls(reply: ModelReply, schemas: list[dict[str, Any]]) -> ModelReply:
    """The reply, with the calls its text holds when it has no structured ones (`written` keeps the text).

    What a model behind a server that does not parse its calls means: every `Model` that may
    face one (the litellm client, the environment's policy) passes its replies through here.
    """
    if reply.tool_calls or not schemas:
        return reply
    calls, prose = read_text_calls(reply.content, offered_names(schemas))
    if not calls:
        return reply
    return dataclasses.replace(reply, content=prose, tool_calls=calls, written=reply.content)


def _scan(text: str, tools: Collection[str]) -> list[tuple[str, str, tuple[int, int]]]:
    """Each call in `text` with the span of text it was read from."""
    if not text or len(text) > MAX_SCANNED or not tools:
        return []
    calls: list[tuple[str, str, tuple[int, int]]] = []
    position = 0
    while position < len(text):
        mistral = _MISTRAL_ARGS.match(text, position)
        if mistral and mistral.group(1) in tools:
            value, end = _decode(text, mistral.end())
            if isinstance(value, dict):
                calls.append((mistral.group(1), json.dumps(value), (position, end)))
                position = end
                continue
        if text[position] in "{[":
            value, end = _decode(text, position)
            found = _calls_of(value, tools) if end else []
            if found:
                calls.extend((name, arguments, (position, end)) for name, arguments in found)
                position = end
                continue
        position += 1
    return calls


def _decode(text: str, start: int) -> tuple[Any, int]:
    """The JSON value starting at `start` (skipping blanks) and where it ends; (None, 0) if none.

    A value in doubled braces (`{{"name": ...}}`) is read as the object inside them; a lone
    backslash, which JSON does not allow (a regex copied from a log), as a literal one.
    """
    while start < len(text) and text[start].isspace():
        start += 1
    for skip in (1, 0) if text.startswith("{{", start) else (0,):
        try:
            value, end = _DECODER.raw_decode(text, start + skip)
        except json.JSONDecodeError:
            value, end = _decode_loose_escapes(text, start + skip)
            if not end:
                continue
        if skip and text.startswith("}", end):
            end += 1
        return value, end
    return None, 0


def _decode_loose_escapes(text: str, start: int) -> tuple[Any, int]:
    """`raw_decode` of `text[start:]` with each lone backslash doubled; (None, 0) when that does not help."""
    tail = text[start : start + MAX_SCANNED]
    lone = [m.start() for m in _ESCAPES.finditer(tail) if m.group(1) is None]
    if not lone:
        return None, 0
    fixed = _ESCAPES.sub(lambda m: m.group(0) if m.group(1) else "\\\\", tail)
    try:
        value, end = _DECODER.raw_decode(fixed)
    except json.JSONDecodeError:
        return None, 0
    # Each doubled backslash before `end` added one character to `fixed`.
    added = sum(1 for n, position in enumerate(lone) if position + n < end)
    return value, start + end - added


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


def offered_names(schemas: list[dict[str, Any]]) -> set[str]:
    """The names of the tools in OpenAI function schemas."""
    return {str((schema.get("function") or {}).get("name")) for schema in schemas}


def reply_problem(text: str, tools: Collection[str], *, acted: bool) -> tuple[str, str] | None:
    """A reply that calls no tool: what kind of no answer it is and a message to act on; None if none.

    The kinds: `empty`; `unreadable` (a call that does not parse); `unknown_tool`; `nothing_done`
    (prose before any tool ran); `code_not_applied` (code shown in a fence, which changes no file).

    Args:
        text: The reply's text.
        tools: The names of the tools offered.
        acted: Whether a tool has run in this conversation: prose before any tool ran is a
            reply that did nothing, after that it is the model's final word (unless it shows code).
    """
    if not tools:
        return None
    names = ", ".join(sorted(tools))
    how = f"Call a tool through the API's tool calls, or write exactly one {_CALL_FORM} per call."
    if not text.strip():
        return "empty", f"Your reply was empty. {how} Your tools: {names}."
    if _CALL_MARKS.search(text[:MAX_SCANNED]):
        unknown = [name for name in _NAMED.findall(text) if name not in tools]
        if unknown:
            return "unknown_tool", f"{unknown[0]!r} is not one of your tools; your tools: {names}. {how}"
        return "unreadable", (
            "Your reply looks like a tool call, but it could not be read: the arguments must be one "
            f"JSON object with double-quoted keys and strings. {how} Your tools: {names}."
        )
    if not acted:
        return "nothing_done", (
            f"Nothing has been changed or run yet: describing a fix does not apply it. {how} "
            f"Your tools: {names}. Answer without a call only when the build is fixed."
        )
    if _CODE.search(text[:MAX_SCANNED]):
        edit = " or ".join(name for name in _EDIT_TOOLS if name in tools) or "your tools"
        build = " or ".join(name for name in _BUILD_TOOLS if name in tools)
        then = f", then build with {build}" if build else ""
        return "code_not_applied", (
            f"Your reply shows code, but code in a reply changes no file. Apply the change with "
            f"{edit}{then}. {how}"
        )
    return None


class ReplyCheck:
    """Tells a model what is wrong with a reply that is no answer, once per kind since its last call.

    An agent asks `message` for each reply without calls: a message to send, or None when the
    reply is the model's last word (nothing wrong, or the same kind of problem was told already).
    `called` starts over once the model calls a tool again.
    """

    def __init__(self) -> None:
        self._told: set[str] = set()

    def message(self, text: str, tools: Collection[str], *, acted: bool) -> str | None:
        """The message for this reply, or None: the attempt ends with it."""
        found = reply_problem(text, tools, acted=acted)
        if found is None or found[0] in self._told:
            return None
        self._told.add(found[0])
        return found[1]

    def called(self) -> None:
        """The model called a tool: every kind may be told again."""
        self._told.clear()
