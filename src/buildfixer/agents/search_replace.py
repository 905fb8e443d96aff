"""Edits proposed as text (the coding-assistant baseline): SEARCH/REPLACE blocks, applied through tools.

The format is the one Aider popularised:

    path/to/File.java
    <<<<<<< SEARCH
    exact old lines
    =======
    new lines
    >>>>>>> REPLACE

An empty SEARCH part creates a new file. Blocks are applied with the `replace` tool, so the
workspace confinement and exact-match rules are the same as for the tool agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from buildfixer.tools.base import Tool, ToolError

_BLOCK = re.compile(
    r"^[ \t]*`*[ \t]*(?P<path>[^\n`]+?)[ \t]*`*[ \t]*\n"
    r"(?:```[^\n]*\n)?"
    r"<{5,9} ?SEARCH[^\n]*\n(?P<old>.*?)^={5,9}[ \t]*\n(?P<new>.*?)^>{5,9} ?REPLACE[^\n]*$",
    re.MULTILINE | re.DOTALL,
)

SEARCH_REPLACE_FORMAT = """\
Answer with edits in this exact format, one block per change (the path relative to the project root \
on the line before each block):

path/to/file.ext
<<<<<<< SEARCH
the exact existing lines to change (copied character for character, enough to be unique)
=======
the new lines
>>>>>>> REPLACE

To create a file, leave the SEARCH part empty. Change only what the fix needs."""


@dataclass
class SearchReplace:
    """One proposed change of a file: exact old text, new text."""

    path: str
    old: str
    new: str


def parse_search_replace(text: str) -> list[SearchReplace]:
    """Every SEARCH/REPLACE block in a model's answer, in order."""
    return [
        SearchReplace(match.group("path").strip().strip("`*: "), match.group("old"), match.group("new"))
        for match in _BLOCK.finditer(text or "")
    ]


def apply_search_replace(edits: list[SearchReplace], replace: Tool) -> list[str]:
    """Apply edits with the replace tool; one line per edit saying what happened."""
    report = []
    for edit in edits:
        try:
            report.append(
                replace.call({"file_path": edit.path, "old_string": edit.old, "new_string": edit.new})
            )
        except ToolError as exc:
            report.append(f"edit of {edit.path} failed: {exc}")
    return report
