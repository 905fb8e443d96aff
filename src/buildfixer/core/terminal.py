"""Text from outside (a model, a build, a project's files, a run folder) shown on a terminal.

Such text may hold control characters that a terminal obeys instead of showing: escape sequences
that erase or rewrite lines, move the cursor or set the window title, a lone carriage return that
overwrites a line, bidi overrides that reorder it. Any of them can hide or fake part of what the
user reviews (a patch of `fix --dry-run`, a judge's verdict, a progress line). Every human-readable
rendering therefore passes such text through `visible`; output meant for machines stays exact
(`--json` is safe as it is: JSON escapes every control character, and buildfixer prints it ASCII).
"""

from __future__ import annotations

import re
from typing import TextIO

# C0 controls but tab and line feed, a carriage return not ending a line (CRLF is a line end), DEL,
# C1 controls (U+0080-U+009F: some terminals read U+009B as CSI) and the bidi embeddings, overrides
# and isolates (U+202A-U+202E, U+2066-U+2069).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def _spelled(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    r"""`text` with every character a terminal would obey instead of show spelled as an escape.

    The rule, for all terminal output of buildfixer: C0 controls other than `\n` and `\t`, DEL,
    C1 controls (U+0080-U+009F), a carriage return not followed by `\n` (it overwrites the line)
    and the bidi override characters (U+202A-U+202E, U+2066-U+2069: they reorder a line as shown)
    become `\x1b`, `\x0d`, `\u202e`, ...; everything else, CRLF line ends included, is kept.
    A backslash is not doubled: a literal `\x1b` in the text looks the same, which is harmless.
    """
    return _UNSAFE.sub(_spelled, text)


def for_stream(text: str, stream: TextIO) -> str:
    """`text` as it may be written to `stream`: `visible` on a terminal, exact anywhere else.

    For output that is both read and piped (a patch to `git apply`, a report to a file): a pipe
    or file gets the bytes as they are, a person at a terminal sees the controls spelled out.
    """
    isatty = getattr(stream, "isatty", None)
    return visible(text) if isatty is not None and isatty() else text
