"""Texts as the page shows them: capped to a head and a tail, and logs with the root error located.

Every long text (a log, a tool output, a patch) goes through `cap`, so a 100 MB log never makes a
100 MB page; logs go through `marked_log`, which runs the log analyzer and says on which line of
the shown text the root error is reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from buildfixer.logs.analyze import Analysis, analyze_text
from buildfixer.logs.text import clean_log, strip_ansi
from buildfixer.logs.window import window_text

# Characters of one text (a log, a tool output, a patch) kept from its start and from its end.
# Enough for any real error context; small enough that a page with hundreds of them stays light.
HEAD_CHARS = 100_000
TAIL_CHARS = 100_000


def cap(text: Any) -> str:
    """The text, or its head and tail with a marker line saying how much was left out."""
    if not isinstance(text, str):
        return "" if text is None else str(text)
    return window_text(text, HEAD_CHARS, TAIL_CHARS)


def patch_text(value: Any) -> str | None:
    """A patch to show; None when it is not recorded (a trajectory file's attempt), unlike "" (no change)."""
    return None if value is None else cap(value)


def display_text(text: Any) -> str:
    """Text as the page shows it: capped, without ANSI codes, a carriage-return redraw as its last state.

    Lines stay where they were (only within a line does anything change), so line numbers found
    by the log analyzer on this text point at the same lines on the page.
    """
    shown = strip_ansi(cap(text).replace("\r\n", "\n"))
    if "\r" not in shown:
        return shown
    return "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in shown.split("\n"))


def _line_of(text: str, analysis: Analysis) -> int | None:
    """The 0-based line of `text` where the root error is reported, or None."""
    root = analysis.root
    if root is None:
        return None
    if root.log_line is not None:
        raw = clean_log(text).raw_index
        if 0 <= root.log_line < len(raw):
            return raw[root.log_line]
    if root.file and root.line is not None:  # a parser that did not say where: look for file:line
        name = re.escape(Path(root.file).name)
        pattern = re.compile(rf"{name}\D{{0,12}}{root.line}\b")
        for number, line in enumerate(text.split("\n")):
            if pattern.search(line):
                return number
    return None


def marked_log(text: str, source: str, recorded: dict[str, Any] | None = None) -> dict[str, Any]:
    """A log for the page: its text, its root error and the line where that error is reported.

    Args:
        text: The log (any size: it is capped first).
        source: Where the text comes from, in words.
        recorded: The root error the harness recorded, shown when the analyzer finds none.

    Returns:
        `{"source", "text", "root", "mark", "errors"}`; `mark` is a 0-based line of `text` or None.
    """
    shown = display_text(text)
    analysis = analyze_text(shown)
    root = analysis.root.to_dict() if analysis.root is not None else recorded
    return {"source": source, "text": shown, "root": root, "mark": _line_of(shown, analysis),
            "errors": len(analysis.errors)}  # fmt: skip
