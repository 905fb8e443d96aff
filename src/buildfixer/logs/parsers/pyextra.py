"""Python-ecosystem errors that stand outside pip's and pytest's regular reports.

- Poetry's installer prints a bare exception name (`ChefBuildError`, `SolverProblemError`,
  ...) on its own line and the explanation a blank line below it.
- Pytest's "fixture 'x' not found" is often pasted without the `ERRORS` section around
  it: `file <path>, line N`, the test's `def` line, then `E  fixture 'x' not found`.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.taxonomy import classify

_POETRY_EXCEPTION = re.compile(
    r"^\s*(?P<name>ChefBuildError|SolverProblemError|CalledProcessError|PoetryException"
    r"|RuntimeError|ValueError|InvalidRequirement|PackageNotFound|RepositoryError)\s*$"
)
_FIXTURE = re.compile(r"^E\s+fixture '(?P<name>[\w.]+)' not found\s*$")
_FIXTURE_PLACE = re.compile(r"^file (?P<file>.+?), line (?P<line>\d+)\s*$")
# Fixtures that plugins provide: missing means the plugin is not installed.
_PLUGIN_FIXTURES = frozenset(
    {
        "mocker",
        "requests_mock",
        "httpx_mock",
        "benchmark",
        "aioresponses",
        "freezer",
        "snapshot",
        "faker",
        "event_loop",
        "aiohttp_client",
        "client",
        "db",
        "settings",
        "live_server",
        "qtbot",
        "datadir",
        "httpserver",
        "respx_mock",
        "time_machine",
    }
)


def _poetry(lines: list[str], index: int, name: str) -> BuildError | None:
    """`ChefBuildError` followed (after a blank line) by what went wrong."""
    for text in lines[index + 1 : index + 4]:
        detail = text.strip()
        if detail:
            if detail.startswith(("at ", "Traceback")):
                return None
            message = f"{name}: {detail}"
            return BuildError(message, classify(detail, "poetry"), "poetry", log_line=index, specificity=6)
    return None


def _fixture(lines: list[str], index: int, name: str) -> BuildError:
    file = line = None
    for back in range(index - 1, max(-1, index - 6), -1):
        if place := _FIXTURE_PLACE.match(lines[back].strip()):
            file, line = place["file"], int(place["line"])
            break
    category = "library_unavailable" if name in _PLUGIN_FIXTURES else "test_failure"
    message = f"fixture '{name}' not found"
    return BuildError(message, category, "pytest", file, line, log_line=index, specificity=10)


def parse(lines: list[str]) -> list[BuildError]:
    """Find poetry's exception reports and pytest's missing fixtures.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    for index, text in enumerate(lines):
        if text.startswith("E") and "fixture '" in text and (found := _FIXTURE.match(text)):
            errors.append(_fixture(lines, index, found["name"]))
        elif (
            "Error" in text
            and (exc := _POETRY_EXCEPTION.match(text))
            and (error := _poetry(lines, index, exc["name"]))
        ):
            errors.append(error)
    return errors


PARSER = Parser(name="pyextra", triggers=("ChefBuildError", "SolverProblemError", "fixture '"), parse=parse)
