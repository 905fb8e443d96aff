"""Fitting a conversation into a model's context window: older tool outputs condensed first.

A small model's window (32k tokens) fills after a few builds and file reads. `fit_window` gives
the conversation to send: while its estimated size is over the budget, the oldest tool results
are shortened to their first lines and a note of how many lines they had. What a model needs to
go on stays whole: the system message, the first user message (the task and the error), every
assistant message, and the last few tool results. Messages are never removed, so each tool
result still answers its assistant message's `tool_call_id`: the conversation stays valid for
every provider.

The trajectory keeps the full outputs; only the request is fitted. Sizes are estimated without a
tokenizer (`core.chat.tokens_by_length`, four characters a token).
"""

from __future__ import annotations

import re
from typing import Any

from buildfixer.core.chat import Message, tokens_by_length

# Tokens a message costs besides its text (role, separators), as chat templates add them.
MESSAGE_OVERHEAD = 4
# Lines of an older output kept in the first pass, and in the second (when the first is not enough).
HEAD_LINES = 8
LAST_RESORT_LINES = 1
# Characters kept of each kept line: the first line of a minified file may be megabytes.
_LINE_CHARS = 200
_NOTE = "[older output condensed: {lines} lines]"
_NOTED = re.compile(r"\n?\[older output condensed: (\d+) lines\]$")


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"]
        return "\n".join(str(part.get("text", "")) for part in parts)
    return str(content)


def message_tokens(message: Message) -> int:
    """Estimated tokens of one message: its text, its tool calls' names and arguments, the overhead."""
    tokens = MESSAGE_OVERHEAD + tokens_by_length(_text(message.get("content")))
    for call in message.get("tool_calls") or []:
        function = (call.get("function") if isinstance(call, dict) else None) or {}
        tokens += tokens_by_length(f"{function.get('name', '')}{function.get('arguments', '')}")
    return tokens


def estimate_tokens(messages: list[Message]) -> int:
    """Estimated tokens of a conversation (tool schemas not included)."""
    return sum(message_tokens(message) for message in messages)


def condensed_output(text: str, head_lines: int = HEAD_LINES) -> str:
    """An output's first `head_lines` lines (each clipped) and a note of how many lines it had.

    An output condensed before keeps the line count of the original in its note.
    """
    noted = _NOTED.search(text)
    body = text[: noted.start()] if noted else text
    lines = body.splitlines()
    total = int(noted.group(1)) if noted else len(lines)
    kept = [line if len(line) <= _LINE_CHARS else line[:_LINE_CHARS] + "..." for line in lines[:head_lines]]
    return "\n".join([*kept, _NOTE.format(lines=total)])


def fit_window(
    messages: list[Message], budget_tokens: int, keep_last: int = 3, head_lines: int = HEAD_LINES
) -> list[Message]:
    """A copy of the conversation whose estimated size fits `budget_tokens`, older tool outputs condensed.

    Nothing changes while the conversation fits. Over the budget, tool results (role "tool") are
    condensed oldest first, each to its first `head_lines` lines and "[older output condensed: N
    lines]", until the estimate fits; if condensing them all is not enough, they are shortened
    again to their first line. Never touched: the system message, the first user message, any
    assistant or other user message, and the last `keep_last` tool results. A conversation that
    still does not fit is returned as far as it could be shortened (the caller decides what
    then). The messages given are not modified.

    Args:
        messages: The conversation in the OpenAI chat format.
        budget_tokens: Tokens the messages may take: the context window minus the tool schemas and
            the room kept for the reply.
        keep_last: How many of the most recent tool results stay whole.
        head_lines: Lines kept of a condensed output in the first pass.

    Returns:
        New message dicts (shallow copies), in the same order, with the same roles and ids.
    """
    fitted = [dict(message) for message in messages]
    total = estimate_tokens(fitted)
    if total <= budget_tokens:
        return fitted
    tools = [index for index, message in enumerate(fitted) if message.get("role") == "tool"]
    older = tools[: max(len(tools) - keep_last, 0)]  # only tool results: the rest is never condensed
    for lines in (head_lines, LAST_RESORT_LINES):
        for index in older:
            if total <= budget_tokens:
                return fitted
            text = _text(fitted[index].get("content"))
            shorter = condensed_output(text, lines)
            if len(shorter) >= len(text):
                continue  # already short: condensing would only add the note
            before = message_tokens(fitted[index])
            fitted[index]["content"] = shorter
            total += message_tokens(fitted[index]) - before
    return fitted
