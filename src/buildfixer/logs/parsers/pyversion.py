"""A Python interpreter outside the range the project declares (pip, uv, poetry).

The fix is a build-file setting, not a dependency: the `requires-python` of pyproject.toml
(`python_requires` of setup.cfg / setup.py, `python` under `[tool.poetry.dependencies]`) or
the interpreter the build uses. The errors are therefore `configuration` and point at
pyproject.toml; `locate.locate_in_project` moves them to the declaring line (and file) when
the project directory is known.

- pip: `ERROR: Package 'x' requires a different Python: 3.11.7 not in '>=3.12'`
- uv: ``error: The requested interpreter resolved to Python 3.11.7, which is incompatible
  with the project's Python requirement: `>=3.12` `` and the resolver's
  `Because the current Python version (3.11.7) does not satisfy Python>=3.12 and ...`
- poetry: `The current project's Python requirement (>=3.8) is not compatible with some of
  the required packages Python requirement:` (newer: "supported Python range"), and
  `Current Python version (3.8.10) is not allowed by the project (^3.9).`
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser

# (pattern, tool, specificity); each pattern is searched in one cleaned line.
_FORMS: tuple[tuple[re.Pattern[str], str, int], ...] = (
    (re.compile(r"Package '[^']+' requires a different Python: \S+ not in '[^']*'"), "pip", 9),
    (
        re.compile(
            r"(?:The requested interpreter|The Python request from .+?) resolved to Python \S+?,? which is"
            r" incompatible with the project's Python requirement: `[^`]+`(?: \(from `[^`]+`\))?"
        ),
        "uv",
        9,
    ),
    (
        re.compile(r"the current Python version \([^)]+\) does not satisfy Python\s*[<>=!~^][^\s,]*", re.I),
        "uv",
        8,
    ),
    (
        re.compile(
            r"The current project's (?:Python requirement|supported Python range) \([^)]+\) is not"
            r" compatible with some of the required packages Python requirement:?"
        ),
        "poetry",
        9,
    ),
    (re.compile(r"Current Python version \([^)]+\) is not allowed by the project \([^)]+\)\.?"), "poetry", 9),
)
# Poetry warns this, then looks for another interpreter; it is an error only when none is found.
_ACTIVATED = re.compile(
    r"The currently activated Python version \S+ is not supported by the project \([^)]+\)"
)
_NONE_FOUND = "unable to find a compatible version"
# Poetry lists which packages need which Python below its verdict.
_POETRY_DETAIL = re.compile(r"^\s*- \S+ requires Python .+")
_DEFAULT_FILE = "pyproject.toml"


def parse(lines: list[str]) -> list[BuildError]:
    """Find Python-version requirement mismatches.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    none_found: bool | None = None
    for index, text in enumerate(lines):
        if "Python" not in text:
            continue
        for pattern, tool, specificity in _FORMS:
            if found := pattern.search(text):
                message = found.group(0).rstrip(":")
                detail = lines[index + 1] if index + 1 < len(lines) else ""
                if tool == "poetry" and _POETRY_DETAIL.match(detail):
                    message = f"{message}: {detail.strip()}"
                errors.append(_error(message, tool, index, specificity))
                break
        else:
            if found := _ACTIVATED.search(text):
                if none_found is None:
                    none_found = any(_NONE_FOUND in t for t in lines[index:])
                errors.append(_error(found.group(0), "poetry", index, 9 if none_found else 3))
    return errors


def _error(message: str, tool: str, index: int, specificity: int) -> BuildError:
    return BuildError(message, "configuration", tool, _DEFAULT_FILE, log_line=index, specificity=specificity)


PARSER = Parser(
    name="pyversion",
    triggers=(
        "requires a different Python",
        "Python requirement",
        "does not satisfy Python",
        "not allowed by the project",
        "not supported by the project",
        "supported Python range",
    ),
    parse=parse,
)
