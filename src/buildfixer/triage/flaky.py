"""Tests known to flap: a failure of only such tests is `flaky` without building again.

A failing test is known to flap when

- its definition, its class or its file carries its framework's flaky or retry marker: pytest's
  `@pytest.mark.flaky` (pytest-rerunfailures, flaky) or `@flaky` (the flaky package), a module's
  `pytestmark = pytest.mark.flaky...`; on the JVM `@Flaky`, `@FlakyTest` (AndroidX), `@RetryingTest`
  (JUnit Pioneer), `@RepeatedIfExceptionsTest` (rerunner-jupiter), `@Retry` (Spock),
  `@Tag("flaky")` (JUnit 5), TestNG's `retryAnalyzer`; in JavaScript `jest.retryTimes(n)`,
  mocha's `this.retries(n)`, vitest's `{ retry: n }` on the test;
- or the project lists it in `.buildfixer/flaky-tests.txt`: one test per line (`#` starts a comment),
  a name or a glob matched against the test's names: `test_mean`, `tests/test_stats.py::test_mean`,
  `CalcTest.adds`, `CalcTest#adds`, `CalcTest > adds`, a test file's path (or its end:
  `demo/*Test.java`), `*Network*`; `#` after a blank starts a comment too.

The failing tests are the test failures the log analyzer found, each with its file and line (or
its name): the definition enclosing that line is the test.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from buildfixer.core.build_result import BuildError
from buildfixer.core.confined import WorkspaceFiles

FLAKY_LIST = ".buildfixer/flaky-tests.txt"

# A marker on a test, its class or in its annotation block.
_MARKER = re.compile(
    r"@(?:pytest\.mark\.)?flaky\b|@(?:Flaky|FlakyTest|RetryingTest|RepeatedIfExceptionsTest|Retry)\b"
    r"|@Tag\(\s*\"flaky\"\s*\)|\bretryAnalyzer\s*=|\bretry\s*:\s*[1-9]"
)
# A marker for every test of a file.
_FILE_MARKER = re.compile(
    r"^\s*pytestmark\s*=.*\bflaky\b|\bjest\.retryTimes\(\s*[1-9]|\bthis\.retries\(\s*[1-9]", re.M
)
# A test's definition: Python, Java/Groovy (`void name(`), Kotlin (fun name( or fun `a name`(),
# Spock (`def "a feature"()`), and JavaScript's it/test calls; the name is the first group that matched.
_DEFINITION = re.compile(
    r"^\s*(?:async\s+)?def\s+(\w+)\s*\("
    r"|^\s*(?:[\w@]+\s+)*void\s+(\w+)\s*\("
    r"|^\s*(?:[\w@]+\s+)*fun\s+(?:`([^`]+)`|(\w+))\s*\("
    r"|^\s*def\s+[\"']([^\"']+)[\"']\s*\("
    r"|^\s*(?:it|test)(?:\.\w+)*\s*\(\s*([\"'`])(.*?)\6"
)
_CLASS = re.compile(r"^\s*(?:[\w@]+\s+)*(?:class|object)\s+(\w+)")
# The name of a failing test as the runners print it (when no line locates its definition).
_NAMES = (
    re.compile(r"::([^:\s\[]+)(?:\[[^\]]*\])?(?: - |$)"),  # pytest: path::[Class::]name[params] - why
    re.compile(r"> ([^>]+?)(?:\(\))? FAILED\b"),  # Gradle: Class > name() FAILED
    re.compile(r"^([\w$]+)\([\w.$]+\)"),  # Surefire 2: name(package.Class)
    re.compile(r"\.([\w$]+)(?::\d+| (?:FAILURE|ERROR)\b)"),  # Surefire: Class.name:42, Class.name FAILURE
    re.compile(r"(?:›|>) ([^›>:]+?):"),  # jest and vitest suites: file > suite > name: why
    re.compile(r"^not ok(?: \d+)? - ([^:]+):"),  # TAP (node --test)
)
# Lines above a definition read for its annotations or decorators.
_ANNOTATION_LINES = 12


def known_flaky(errors: list[BuildError], root: Path) -> list[dict[str, Any]]:
    """The failing tests, each with the marker or list entry that says it flaps, when all of them do.

    Empty when a failure other than a test's is among the errors, no failing test could be named,
    or any failing test is not known to flap.

    Args:
        errors: The build's errors, root first.
        root: The project the build ran in (its test sources and `.buildfixer/flaky-tests.txt`).
    """
    if not errors or errors[0].category != "test_failure":
        return []
    if any(e.category not in ("test_failure", "other") for e in errors):
        return []  # a compile error or a missing dependency besides the tests: not the tests' flapping
    files = WorkspaceFiles(root)
    listed = _listed(files)
    found: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for error in errors:
        if error.category != "test_failure":
            continue
        test = _failing_test(error, files)
        if test is None:
            continue  # a summary ("There were failing tests"): the named tests decide
        key = (test["file"], test["test"])
        if key in seen:
            continue
        seen.add(key)
        marker = test.pop("marker") or _entry_for(test, listed)
        if not marker:
            return []
        found.append({**test, "marker": marker})
    return found


def _failing_test(error: BuildError, files: WorkspaceFiles) -> dict[str, Any] | None:
    """The test an error is about: its file, name and the marker found in its source (or "")."""
    named = failing_test_name(error.message)
    rel = _relative(error.file, files.root) if error.file else None
    text = files.read_text(rel) if rel else None
    if text is None:
        return {"test": named, "file": rel or "", "marker": ""} if named else None
    lines = text.splitlines()
    index = _definition_at(lines, error.line) if error.line else _definition_named(lines, named)
    name = _name_of(lines[index]) if index is not None else named
    if not name:
        return None
    marker = ""
    if index is not None:
        marker = _marker_above(lines, index) or _class_marker(lines, index)
    if not marker and (found := _FILE_MARKER.search(text)):
        start, end = text.rfind("\n", 0, found.start()) + 1, text.find("\n", found.end())
        marker = text[start : end if end >= 0 else len(text)].strip()  # the whole line says it
    return {"test": name, "file": rel or "", "marker": marker}


def failing_test_name(message: str) -> str:
    """The failing test's name as the runner printed it, or ""."""
    first = message.splitlines()[0] if message else ""
    for pattern in _NAMES:
        if found := pattern.search(first):
            return found.group(1).strip()
    return ""


def _relative(file: str, root: Path) -> str | None:
    """The error's file relative to the project (an absolute path inside it made relative)."""
    path = PurePosixPath(file)
    if not path.is_absolute():
        return file
    try:
        return path.relative_to(PurePosixPath(root.as_posix())).as_posix()
    except ValueError:
        return None


def _name_of(line: str) -> str:
    found = _DEFINITION.match(line)
    if not found:
        return ""
    return next((g for i, g in enumerate(found.groups(), 1) if g and i != 6), "")


def _definition_at(lines: list[str], line: int) -> int | None:
    """Index of the definition enclosing 1-based `line`: the nearest one at or above it."""
    for index in range(min(line, len(lines)) - 1, -1, -1):
        if _DEFINITION.match(lines[index]):
            return index
    return None


def _definition_named(lines: list[str], name: str) -> int | None:
    if not name:
        return None
    return next((i for i, line in enumerate(lines) if _name_of(line) == name), None)


def _marker_above(lines: list[str], index: int) -> str:
    """A marker on the definition line or in the annotations and decorators right above it."""
    if found := _MARKER.search(lines[index]):
        return found.group()
    for above in range(index - 1, max(-1, index - 1 - _ANNOTATION_LINES), -1):
        text = lines[above].strip()
        if not text or text.endswith(("{", "}", ";")) or _DEFINITION.match(lines[above]):
            break
        if found := _MARKER.search(text):
            return found.group()
    return ""


def _class_marker(lines: list[str], index: int) -> str:
    """A marker on the class (or Kotlin object) the definition is in: the nearest one above, indented less."""
    depth = _indent(lines[index])
    for above in range(index - 1, -1, -1):
        if _CLASS.match(lines[above]) and _indent(lines[above]) < depth:
            return _marker_above(lines, above)
    return ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _listed(files: WorkspaceFiles) -> list[str]:
    """The patterns of `.buildfixer/flaky-tests.txt` (none when the project has no such file)."""
    text = files.read_text(FLAKY_LIST) or ""
    # A comment is a line starting with "#" or "#" after a blank ("CalcTest#adds" is a name).
    entries = (re.split(r"\s#", line, maxsplit=1)[0].strip() for line in text.splitlines())
    return [entry for entry in entries if entry and not entry.startswith("#")]


def _entry_for(test: dict[str, Any], listed: list[str]) -> str:
    """The list entry naming this test, as evidence (`.buildfixer/flaky-tests.txt: entry`), or ""."""
    name, file = test["test"], test["file"]
    owner = PurePosixPath(file).stem if file else ""
    names = {name, file, f"{file}::{name}", *(f"{owner}{s}{name}" for s in (".", "#", " > ") if owner)}
    for entry in listed:
        # A path may be given from any folder down: `demo/*Test.java` names src/test/java/demo/CalcTest.java.
        if any(c and (fnmatchcase(c, entry) or fnmatchcase(c, f"*/{entry}")) for c in names):
            return f"{FLAKY_LIST}: {entry}"
    return ""
