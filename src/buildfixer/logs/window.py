"""Bounded views of huge logs: a head and a tail window, and no line longer than a reader needs.

A build may print hundreds of megabytes. What explains a failure sits at the start (a compiler
error before a flood of test output) or at the end (Gradle's "What went wrong", Maven's error
summary, pytest's short summary), so a log longer than a head and a tail window is read as
those two windows with one marker line between them. Reading seeks past the middle: memory
and time are bounded by the window sizes, whatever the size of the file.

The windows are bounded in lines as well as in bytes, because the parsers' cost is per line:
a megabyte of two-character lines must not cost what 500,000 lines of a real log would.
Lines are capped too (see `cap_line`): a single 50 MB line (a minified bundle, a binary
dumped to the console) is cut to its beginning, which is what a reader or a regex can use.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import AnyStr

# Bytes and lines of a long log read from its start and from its end. Both windows hold whole
# lines (cut at a newline); the middle is replaced by one marker line. A log up to this size
# is read whole: the analysis of every normal log is unchanged.
HEAD_BYTES = 256 * 1024
TAIL_BYTES = 1024 * 1024
HEAD_LINES = 5_000
TAIL_LINES = 20_000
# Characters kept of a longer cleaned line: more than any error message needs, and few enough
# that a parser's regex over a line stays cheap.
MAX_LINE_CHARS = 4096
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# The line `skipped_marker` writes.
_MARKER_LINE = re.compile(
    r"^\[\.\.\. [\d,]+ (?:bytes|characters) of the log skipped here \.\.\.\]$", re.MULTILINE
)


def skipped_marker(count: int, unit: str = "bytes") -> str:
    """The line that stands for the middle of a log left out of a window."""
    return f"[... {count:,} {unit} of the log skipped here ...]"


def split_at_marker(text: str) -> tuple[str, str, str] | None:
    """The text before the marker line, the marker, the text after it; None without a marker."""
    found = _MARKER_LINE.search(text)
    if found is None:
        return None
    return text[: found.start()], found.group(), text[found.end() :]


def read_window(path: str | Path, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> bytes:
    """The bytes of a log, or for a longer one its first and last lines with a marker between.

    Args:
        path: the log file.
        head: bytes kept from the start (at most HEAD_LINES lines, cut back to a line end).
        tail: bytes kept from the end (at most TAIL_LINES lines, cut forward to a line start).

    Returns:
        At most `head + tail` bytes plus the marker line; a UTF-16 log (byte-order mark)
        stays decodable as UTF-16, the marker included.

    Raises:
        OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= head + tail:
            data = handle.read(head + tail)  # a file still growing is read no further
            if data.startswith(_UTF16_BOMS) or data.count(b"\n") <= HEAD_LINES + TAIL_LINES:
                return data
            first, last, size = data[:head], data[-tail:], len(data)
        else:
            first = handle.read(head)
            handle.seek(size - tail)
            last = handle.read(tail)
    if first.startswith(_UTF16_BOMS):
        return _join_utf16(first, last, size)
    first, last = _head(first, b"\n"), _tail(last, b"\n")
    marker = skipped_marker(size - len(first) - len(last)).encode()
    before = b"" if first.endswith(b"\n") or not first else b"\n"  # a head that is one cut line
    return first + before + marker + b"\n" + last


def window_text(text: str, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> str:
    """`read_window` for a log already in memory (sizes in characters)."""
    if len(text) <= head + tail and text.count("\n") <= HEAD_LINES + TAIL_LINES:
        return text
    first, last = _head(text[:head], "\n"), _tail(text[-tail:], "\n")
    before = "" if first.endswith("\n") or not first else "\n"
    return f"{first}{before}{skipped_marker(len(text) - len(first) - len(last), 'characters')}\n{last}"


def _head(data: AnyStr, newline: AnyStr) -> AnyStr:
    """Whole lines from the start of `data`: up to its last newline, at most HEAD_LINES of them."""
    end = data.rfind(newline) + 1 or len(data)  # no newline: one long line, capped later
    position = -1
    for _ in range(HEAD_LINES):
        position = data.find(newline, position + 1, end)
        if position < 0:
            return data[:end]
    return data[: position + 1]


def _tail(data: AnyStr, newline: AnyStr) -> AnyStr:
    """Whole lines from the end of `data`: after its first newline, at most TAIL_LINES of them."""
    first = data.find(newline)
    start = first + 1 if 0 <= first < len(data) - 1 else 0  # no line start: one long line
    position = len(data) - 1 if data.endswith(newline) else len(data)
    for _ in range(TAIL_LINES):
        position = data.rfind(newline, start, position)
        if position < 0:
            return data[start:]
    return data[position + 1 :]


def _join_utf16(first: bytes, last: bytes, size: int) -> bytes:
    """Head and tail of a UTF-16 log, cut at even offsets, with the marker in the same encoding."""
    codec = "utf-16-le" if first.startswith(b"\xff\xfe") else "utf-16-be"
    first = first[: len(first) - len(first) % 2]
    last = last[len(last) % 2 :]  # the file ends on a code unit: align the tail from its end
    marker = f"\n{skipped_marker(size - len(first) - len(last))}\n".encode(codec)
    return first + marker + last


def cap_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """The line, or its first `limit` characters and a note of how many more there were."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]} [... {len(line) - limit:,} more characters]"
