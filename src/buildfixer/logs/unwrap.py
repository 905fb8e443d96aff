r"""Re-join log lines that a terminal cut at its width.

A log copied from a console window (Windows' default is 80 columns, newer ones 120) or
saved by a CI step with a fixed width has its long lines cut into rows of exactly that
width, often in the middle of a path::

    [ERROR] C:\work\shop\src\main\java\com\acme\shop\Ba
    sket.java:[51,20] cannot find symbol

A row is joined to the one before it only when the one before fills the width exactly
(a common console width, or that of the log's widest rows: a wrapped log has none wider) and
the join is evidently one line: the row before ends inside a path that this row finishes with an
extension and a position (`...\Ba` + `sket.java:[51,20]`). The rows after a join continue it
while the previous one filled the width too (a message wrapped on). Ordinary consecutive lines
that merely happen to be as long as the width are left alone.

A second kind of cut: a pasted error row broken inside a word by the window it was copied from,
with no width to recognise (`...values.xml:105:5-114:25: AAPT: error: resour` + `ce android:attr/lStar
not found.`). Such a row is joined only when the row above is a long error row ending in a letter and
this one starts in column 0 with a lower-case fragment that is not a word a tool starts its lines with,
nor the source line a compiler echoes below its error (`import org.junit.Test;`).

Cost: one regex pass over the text finds the rows that could continue a path (most logs have
none); only then are row lengths looked at.
"""

from __future__ import annotations

import re

# Console widths seen in pasted logs; the widest row of the log is tried as well (see `_widths`).
_WIDTHS = frozenset({79, 80, 100, 119, 120, 132})
_MIN_WIDTH = 60
_MAX_WIDTH = 300
# A row whose first word ends a file name with its position: `o.java:[51,20]`, `ils\Basket.java:51`,
# `o.kt: (3, 4)`, `o.kt:3:4`. Not a row that starts a path of its own (`/x`; `C:\x` stops at its
# colon), an indented or tagged one (`[INFO]`, `> Task`). Searched from the newline before the
# row, then at most the row's first word.
_CONTINUATION = re.compile(r"\n[^\s\[>/\x00][^\s:]*\.[A-Za-z][\w+-]{0,9}(?::\[\d|:\d|:? ?\(\d)")
# The same position anywhere: a row that already ends with one is complete.
_POSITION = re.compile(r"\.[A-Za-z][\w+-]{0,9}(?::\[\d|:\d|:? ?\(\d)")
# A row that starts a record of its own: a level tag, a Gradle marker, a Kotlin severity, a clock.
_NEW_RECORD = re.compile(r"[\s\[>]|[ew]: |\d\d:\d\d|[A-Za-z]:[\\/]")
# Rows of one logical line joined at most (a runaway chain must not build a huge line).
_MAX_ROWS = 12
# A row that may finish a word the row above was cut in: a lower-case fragment, then a blank.
_FRAGMENT = re.compile(r"\n(?=[a-z]{1,15} )")
# Words tools start their own lines with, never the rest of a cut word.
_TOOL_WORD = re.compile(
    r"(?:npm|yarn|pnpm|at|error|warning|warn|note|hint|info|debug|make|ninja|cmake|gradle|e|w|i|ok|not|from)\b"
)
# The source line a compiler echoes below its error row (`import org.junit.Test;`), never a cut word's end.
_SOURCE_ECHO = re.compile(
    r"(?:import|package|static|public|private|protected|return|class|interface|new|val|var|fun|def)\b"
    r"|[^\n]*[;{}]\s*$"
)
_CUT_ROW_MIN = 100


def _ends_in_path(row: str) -> bool:
    r"""True when the row's last word is a path without a position (`C:\x\Fo`, `/x/y/Fo`)."""
    tail = row[row.rfind(" ") + 1 :]
    return ("/" in tail or "\\" in tail) and _POSITION.search(tail) is None


def _widths(body: str) -> frozenset[int]:
    """The widths a wrapped row may have.

    The common ones, and the log's widest row when several rows have that width (a console wraps
    every long line there; one long row proves nothing).
    """
    lengths = list(map(len, body.split("\n")))
    widest = max(lengths)
    if _MIN_WIDTH <= widest <= _MAX_WIDTH and lengths.count(widest) > 1:
        return _WIDTHS | {widest}
    return _WIDTHS


def unwrap(body: str, dropped: str) -> str:
    """Join rows cut at the console width into the row they continue.

    Args:
        body: the log text, starting with a newline (as `clean_log` holds it).
        dropped: the marker of a dropped row; each row joined into the one above it is
            replaced by it, so that the remaining rows keep their raw line numbers.

    Returns:
        The text with wrapped rows joined.
    """
    if "rror" in body:
        body = _join_cut_words(body, dropped)
    hits = [found.start() for found in _CONTINUATION.finditer(body)]
    if not hits:
        return body
    widths = _widths(body)
    parts: list[str] = []
    done = 0  # the text before this offset is in `parts`
    for hit in hits:  # the newline before a row that may continue the one above it
        if hit < done:
            continue
        row_start = body.rfind("\n", 0, hit) + 1
        row = body[row_start:hit].rstrip()
        width = len(row)
        if width not in widths or not _ends_in_path(row) or _NEW_RECORD.match(body, hit + 1):
            continue
        pieces = [row]
        end = hit  # the newline that ends the logical line so far
        while end < len(body) and len(pieces) < _MAX_ROWS:
            following_end = body.find("\n", end + 1)
            following_end = len(body) if following_end < 0 else following_end
            following = body[end + 1 : following_end]
            if len(pieces) > 1 and (not following or following == dropped or _NEW_RECORD.match(following)):
                break
            pieces.append(following.rstrip())
            end = following_end
            if len(pieces[-1]) != width:
                break  # a row shorter than the width ends the logical line
        parts += [body[done:row_start], "".join(pieces), ("\n" + dropped) * (len(pieces) - 1)]
        done = end
    parts.append(body[done:])
    return "".join(parts)


def _join_cut_words(body: str, dropped: str) -> str:
    """Join a long error row cut inside a word to the row that finishes the word (see above)."""
    parts: list[str] = []
    done = 0
    for found in _FRAGMENT.finditer(body):
        hit = found.start()
        if hit < done:
            continue
        row_start = body.rfind("\n", 0, hit) + 1
        row = body[row_start:hit]
        cut = len(row) >= _CUT_ROW_MIN and row[-1:].isalpha() and "rror" in row
        if not cut or _TOOL_WORD.match(body, hit + 1):
            continue
        end = body.find("\n", hit + 1)
        end = len(body) if end < 0 else end
        if _SOURCE_ECHO.match(body[hit + 1 : end]):
            continue
        parts += [body[done:hit], body[hit + 1 : end], "\n" + dropped]
        done = end
    if not parts:
        return body
    parts.append(body[done:])
    return "".join(parts)

