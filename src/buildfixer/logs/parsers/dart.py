"""Dart compiler errors, as Flutter builds print them before Gradle's own report.

A Flutter Android build runs Gradle, whose task `compileFlutterBuild<Variant>` calls
the Dart front end; when the Dart code does not compile, Gradle only says that a
process "finished with non-zero exit value 1". The cause is above it::

    lib/main.dart:3:8: Error: Error when reading 'lib/x.dart': No such file or directory
    lib/a.dart:42:18: Error: The method 'foo' isn't defined for the class 'Bar'.
    Error: Could not resolve the package 'http' in 'package:http/http.dart'.

Missing packages are dependency problems, unreadable files missing resources, and
everything else an error in the code.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser

_LOCATED = re.compile(
    r"^\s*(?P<file>(?:[A-Za-z]:)?[^\s:][^:]*?\.dart):(?P<line>\d+):(?P<col>\d+): Error: (?P<msg>.+)"
)
_GLOBAL = re.compile(
    r"^\s*Error: (?P<msg>(?:Could not|Couldn't) resolve the package .+|Not found: 'package:.+)"
)
_PACKAGE = re.compile(
    r"(?:Could not|Couldn't) resolve the package|Not found: 'package:|Because \S+ depends on"
)
_MISSING_FILE = re.compile(
    r"Error when reading '[^']+': No such file|Not found: '(?!package:)|No such file or directory"
)

_MAX_MESSAGE = 600


def _category(message: str) -> str:
    if _PACKAGE.search(message):
        return "library_unavailable"
    if _MISSING_FILE.search(message):
        return "resource_missing"
    return "syntax"


def parse(lines: list[str]) -> list[BuildError]:
    """Find Dart front-end errors in a cleaned Flutter build log.

    Args:
        lines: the cleaned log.

    Returns:
        The errors in log order, tool "dart".
    """
    errors: list[BuildError] = []
    seen: set[tuple[str | None, int | None, str]] = set()
    for index, text in enumerate(lines):
        if "Error: " not in text:
            continue
        located = _LOCATED.match(text) if ".dart:" in text else None
        found = located or _GLOBAL.match(text)
        if not found:
            continue
        message = found["msg"].strip()[:_MAX_MESSAGE]
        file = located["file"] if located else None
        line = int(located["line"]) if located else None
        if (file, line, message) in seen:
            continue
        seen.add((file, line, message))
        errors.append(
            BuildError(
                message=message,
                category=_category(message),
                tool="dart",
                file=file,
                line=line,
                column=int(located["col"]) if located else None,
                log_line=index,
                specificity=10 if located else 8,
            )
        )
    return errors


PARSER = Parser(name="dart", triggers=(".dart:", "Error: Could", "Error: Not found"), parse=parse)
