"""ESLint errors, as its stylish formatter and as Create React App's build print them.

- stylish: the file on a line of its own, then one indented row per problem:
  `  16:8  error  'Buttons' is not defined  react/jsx-no-undef` (warnings are skipped).
- Create React App (`Failed to compile.`): `./src/a.js`, then `  Line 16:8:  'Buttons' is not
  defined  react/jsx-no-undef` (older versions: `  Line 16:  ...`).

A lint error the build stops on is in the project's code (syntax), unless its words say otherwise
(`Parsing error: Cannot find module 'x'` is a missing package).
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import ENOUGH, Parser
from buildfixer.logs.taxonomy import classify

_FILE = re.compile(r"^\s*(?P<file>(?:[A-Za-z]:)?[^\s:]+\.(?:[cm]?[jt]sx?|vue|svelte))\s*$")
# The rule name ends the row after two or more blanks; the message may hold single blanks.
_RULE = r"(?:\s{2,}(?P<rule>[\w@/-]+))?\s*$"
_STYLISH = re.compile(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+error\s+(?P<msg>.+?)" + _RULE)
_CRA = re.compile(r"^\s+Line (?P<line>\d+)(?::(?P<col>\d+))?:\s+(?P<msg>.+?)" + _RULE)
_MAX_MESSAGE = 600


def parse(lines: list[str]) -> list[BuildError]:
    """Find ESLint errors under the file they are in.

    Args:
        lines: the cleaned log.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    file: str | None = None
    for index, text in enumerate(lines):
        if found := _FILE.match(text):
            file = found["file"]
            continue
        if not file or not text.startswith((" ", "\t")):
            file = None if text.strip() else file
            continue
        row = _STYLISH.match(text) or _CRA.match(text)
        if not row:
            continue
        message = row["msg"].strip()
        if row["rule"]:
            message = f"{message} ({row['rule']})"
        category = classify(message, "eslint")
        errors.append(
            BuildError(
                message[:_MAX_MESSAGE],
                category,
                "eslint",
                file.removeprefix("./"),
                int(row["line"]),
                int(row["col"]) if row["col"] else None,
                log_line=index,
                specificity=9,
            )
        )
        if len(errors) >= ENOUGH:
            break
    return errors


PARSER = Parser(name="eslint", triggers=("  error  ", "  Line "), parse=parse)
