"""Failing tests of JavaScript test runners: node --test (TAP and spec), jest and vitest.

Used by the npm parser (this module has no PARSER of its own). A failure is located by the
runner's own location lines, the innermost one in the project's code (never in
`node_modules` or node's internals), preferring the test file the runner names:

* jest: `FAIL src/x.test.ts`, then `● suite › name` blocks with `at fn (src/x.test.ts:12:5)`
  frames (after a diff of any length), or, when none can be read, the code frame's `> 12 |` line
  in the test file;
* vitest: ` FAIL  src/x.spec.ts > suite > name`, the error on the next line and
  ` ❯ src/x.spec.ts:33:34` (or `at` frames) below it; a suite that cannot even load is
  ` FAIL  src/x.spec.ts [ src/x.spec.ts ]`;
* node --test: TAP `not ok N - name` with `location: 'file:line:col'`, or spec `✖ name`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers.bundler import module_category
from buildfixer.logs.taxonomy import classify

_TAP_NOT_OK = re.compile(r"^\s*not ok \d+ - (?P<name>.+?)(?P<directive> # (?:TODO|SKIP)\b.*)?$")
_TAP_RESULT = re.compile(r"^\s*(?:not )?ok \d+ ")
_TAP_LOCATION = re.compile(r"^\s*location: '(?P<file>.+?):(?P<line>\d+):\d+'")
_TAP_ERROR = re.compile(r"^\s*error: (?P<msg>.+)")
_SPEC_FAIL = re.compile(r"^\s*[✖✕×] (?P<name>.+?)(?: \([\d.]+ ?m?s\)| \d+(?:\.\d+)? ?m?s)?$")
_JEST_BLOCK = re.compile(r"^\s*● (?P<name>.+)$")
# jest and vitest print a ` FAIL ` badge and the test file; vitest adds ` > suite > test` (or,
# for a file that could not be loaded, `[ file ]`), a workspace project may add `|name|`.
# Monorepo runners prefix each line with the package and script (pnpm -r: `packages/core test: `,
# turbo: `@acme/core:test: `).
_PREFIX = r"^(?:[@\w./-]+(?::[\w:-]+| [\w:-]+):\s)?"
_PREFIX_RX = re.compile(_PREFIX)
_FAIL_HEADER = re.compile(
    _PREFIX + r"\s*FAIL\s+(?:\|[^|\s]+\|\s+)?(?P<file>[^\s>\[]+?\.(?:[cm]?[jt]sx?|vue|svelte))"
    r"(?:\s+\([\d.]+ ?m?s\))?(?:\s+>\s+(?P<name>.+?)|\s+(?P<suite>\[.*\]))?\s*$"
)
# Location lines: `at fn (file:12:5)`, `at file:12:5`, vitest's `❯ file:33:34` / `❯ fn file:3:9`. A
# folder may be in parentheses (Next.js route groups: `app/(shop)/__tests__/cart.test.tsx`).
_LOCATION = re.compile(
    _PREFIX + r"\s*(?:at |[❯›] )(?:.*?[ (])?"
    r"(?P<file>(?:file://)?(?:[^\s()]|\([^\s()]*\))+?\.(?:[cm]?[jt]sx?|vue|svelte))"
    r":(?P<line>\d+):(?P<col>\d+)\)?\s*$"
)
# jest's code frame marks the line that failed: `    > 12 |     expect(total).toBe(3);`.
_CODE_FRAME = re.compile(r"^\s*>\s*(?P<line>\d+)\s*\|")
# What follows a runner's last failure: its summary, or npm's own report.
_AFTER_FAILURES = re.compile(
    r"^\s*(?:Test Suites:|Tests:|Snapshots:|ℹ (?:tests|pass|fail) \d|# (?:tests|pass|fail) \d"
    r"|\d+ (?:passing|failing|pending)\b|npm (?:ERR!|error) )"
)
_VITEST_END = re.compile(_PREFIX + r"\s*(?:⎯{3,}|FAIL\s|Test Files\s|Tests\s+\d)")
_TEST_TOTALS = re.compile(
    r"^(?:# fail [1-9]\d*|ℹ fail [1-9]\d*|Tests:\s+\d+ failed.*|\s*\d+ failing"
    r"|\s*Tests?(?: Files)?\s+[1-9]\d* failed.*)$"
)
# Diagnostic blocks of pip and uv (`× Getting requirements ... did not run successfully.`,
# then `│ exit code: 1` / `╰─> ...`) share the cross mark with failing-test lines.
_DIAGNOSTIC_TAIL = ("│", "╰─", "├─")
# The categories a test runner's error keeps: the test could not run for a reason a build fix
# addresses, not because an assertion failed. A test file that cannot be loaded keeps any such
# reason; a single failing test only an import or a syntax error (its own assertions may well
# mention missing files).
_SUITE_CAUSES = frozenset({"library_unavailable", "resource_missing", "syntax", "configuration"})
_TEST_CAUSES = frozenset({"library_unavailable", "syntax"})
_JEST_SUITE = "Test suite failed to run"
_UNRESOLVED = re.compile(
    r"Cannot find (?:module|package) '(?P<module>[^']+)'|Failed to resolve import \"(?P<vite>[^\"]+)\""
)
_JEST_IMPORTER = re.compile(r"^Cannot find module '[^']+' from '(?P<file>[^']+)'")
_BLOCK_LINES = 60
_FAILURE_LINES = 40  # where a failure's message is looked for
_FAILURE_LINES_MAX = 400  # where its location is: a long diff of values may come first


@dataclass
class Located:
    """The failures found and the log lines their blocks span (other parsers skip those)."""

    errors: list[BuildError]
    spans: list[tuple[int, int]]

    def covers(self, index: int) -> bool:
        """True when the log line is inside a failing test's report."""
        return any(start <= index < end for start, end in self.spans)


def _project_location(
    lines: list[str], start: int, end: int, test_file: str | None
) -> tuple[str, int, int] | None:
    """The runner's location line for a failure: in the test file if any, else the innermost frame.

    Frames in `node_modules` and node's internals are never the project's.
    """
    first: tuple[str, int, int] | None = None
    want = _normalize(test_file) if test_file else None
    for text in lines[start:end]:
        found = _LOCATION.match(text)
        if not found or "node_modules" in found["file"] or found["file"].startswith("node:"):
            continue
        place = (found["file"].removeprefix("file://"), int(found["line"]), int(found["col"]))
        if want and _same_file(_normalize(place[0]), want):
            return place
        first = first or place
    return first


def _normalize(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def _same(a: str, b: str) -> bool:
    return _same_file(_normalize(a), _normalize(b))


def _same_file(frame: str, test_file: str) -> bool:
    return frame == test_file or frame.endswith("/" + test_file) or test_file.endswith("/" + frame)


# A compiler's diagnostic as a suite's first line: ts-jest's `src/a.spec.ts:1:20 - error TS2307: ...`.
_DIAGNOSTIC_PLACE = re.compile(r"(?P<file>[^\s:(]+\.[cm]?[jt]sx?)[:(](?P<line>\d+)[:,]\d+\)? - error ")


def _category(message: str, suite: bool) -> str:
    if found := _UNRESOLVED.search(message):
        # jest: `Cannot find module './x' from 'src/a.js'`; vitest: node's or Vite's words.
        typechecked = "TS2307" in message or "type declarations" in message
        category = module_category(found["module"] or found["vite"], bundled=False, typechecked=typechecked)
    else:
        category = classify(message, "node")
    return category if category in (_SUITE_CAUSES if suite else _TEST_CAUSES) else "test_failure"


def _vitest_failure(lines: list[str], index: int, file: str, name: str | None) -> tuple[BuildError, int]:
    """A vitest ` FAIL  file > name` block: its first error line and location."""
    end = index + 1
    message = ""
    while end < min(len(lines), index + _BLOCK_LINES):
        text = lines[end]
        if _VITEST_END.match(text):
            break
        if not message and text.strip() and not _LOCATION.match(text):
            message = _PREFIX_RX.sub("", text, count=1).strip()
        end += 1
    title = f"{file} > {name}" if name else file
    category = _category(message, suite=name is None)
    error = BuildError(
        f"{title}: {message}" if message else title,
        category,
        "vitest",
        file,
        log_line=index,
        # A test file that cannot even be loaded says more than an assertion does.
        specificity=9 if category == "test_failure" else 10,
    )
    if place := _project_location(lines, index + 1, end, file):
        error.file, error.line, error.column = place
    return error, end


def test_failures(lines: list[str]) -> Located:
    """Failing tests of node --test, jest and vitest, in log order."""
    errors: list[BuildError] = []
    spans: list[tuple[int, int]] = []
    jest_file: str | None = None
    names: set[str] = set()
    vitest = False
    ran_tests: bool | None = None  # computed on the first cross mark
    for index, text in enumerate(lines):
        if "FAIL" in text and (header := _FAIL_HEADER.match(text)):
            if header["name"] or header["suite"]:
                error, end = _vitest_failure(lines, index, header["file"], header["name"])
                errors.append(error)
                spans.append((index, end))
                vitest = True
            else:
                jest_file = header["file"]
            continue
        tap = _TAP_NOT_OK.match(text)
        if tap and not tap["directive"]:
            errors.append(_tap_failure(lines, index, tap["name"]))
        elif (block := _JEST_BLOCK.match(text)) and block["name"] not in names:
            names.add(block["name"])
            error, end = _block_failure(lines, index, block["name"], jest_file)
            errors.append(error)
            spans.append((index, end))
        elif (
            (spec := _SPEC_FAIL.match(text))
            and text.lstrip()[0] in "✖×"
            and spec["name"] != "failing tests:"
            and not spec["name"].startswith("｢")  # webpack-dev-middleware's `✖ ｢wdm｣:` log tag
            # node's spec reporter lists each failure twice (inline and under "failing tests:").
            and spec["name"] not in names
            and not _is_diagnostic(lines, index)
            # A CLI's failed step (`× Deploying app...`) wears the same mark: a test needs a test run.
            and (ran_tests := _ran_tests(lines) if ran_tests is None else ran_tests)
        ):
            names.add(spec["name"])
            error, end = _block_failure(lines, index, spec["name"], None)
            errors.append(error)
            spans.append((index, end))
    if vitest:
        # vitest's summary tree (`× suite > name 4ms`) repeats the failures its FAIL blocks report.
        errors = [e for e in errors if e.tool == "vitest" or e.file]
    if not errors:
        errors = [
            BuildError(t.strip(), "test_failure", "node", log_line=i, specificity=1)
            for i, t in enumerate(lines)
            if ("fail" in t or "Tests" in t) and _TEST_TOTALS.match(t)
        ][:1]
    errors.sort(key=lambda e: e.log_line or 0)
    return Located(errors, spans)


# What a test runner prints besides a failure: passes, counts, its own name.
_TEST_RUN = re.compile(
    r"^\s*[✔✓√] |\b\d+ (?:passing|failing|pending)\b|^\s*ℹ (?:tests|pass|fail) \d"
    r"|\b(?:mocha|jest|vitest|ava|tap|jasmine|karma|node --test)\b|^\s*(?:Tests?|Test Files|Test Suites):",
    re.IGNORECASE,
)


def _ran_tests(lines: list[str]) -> bool:
    """True when the log shows a test runner at work (see _TEST_RUN)."""
    return any(_TEST_RUN.search(text) for text in lines)


def _is_diagnostic(lines: list[str], index: int) -> bool:
    """True for pip's and uv's `× what failed` lines, which open a diagnostic block."""
    following = next((t.strip() for t in lines[index + 1 : index + 3] if t.strip()), "")
    return following.startswith(_DIAGNOSTIC_TAIL)


def _block_end(lines: list[str], start: int) -> int:
    """Where a failure's report that runs past its first lines ends: the next failure or the summary."""
    end = start
    while end < min(len(lines), start + _FAILURE_LINES_MAX):
        text = lines[end]
        if any(pattern.match(text) for pattern in (_AFTER_FAILURES, _JEST_BLOCK, _SPEC_FAIL, _FAIL_HEADER)):
            break
        end += 1
    return end


def _tap_failure(lines: list[str], index: int, name: str) -> BuildError:
    """`not ok N - name` and its YAML block (location, error)."""
    error = BuildError(f"not ok - {name}", "test_failure", "node", log_line=index, specificity=9)
    detail = ""
    end = min(len(lines), index + 40)
    for at in range(index + 1, end):
        text = lines[at]
        if _TAP_RESULT.match(text):
            break
        if location := _TAP_LOCATION.match(text):
            error.file, error.line = location["file"], int(location["line"])
        elif not detail and (err := _TAP_ERROR.match(text)):
            detail = err["msg"].strip().strip("'\"")
            if detail in ("|-", "|", ">-", "|+"):
                # A YAML block scalar: the message is on the following indented lines.
                detail = next((t.strip() for t in lines[at + 1 : end] if t.strip()), "")
    if detail:
        error.message = f"{error.message}: {detail}"
    return error


def _block_failure(lines: list[str], index: int, name: str, file: str | None) -> tuple[BuildError, int]:
    """A jest `● name` / node spec `✖ name` block: the first message line and the test's frame."""
    error = BuildError(name, "test_failure", "node", file, log_line=index, specificity=9)
    detail = ""
    end = index + 1
    while end < min(len(lines), index + _FAILURE_LINES):
        text = lines[end]
        if _JEST_BLOCK.match(text) or _SPEC_FAIL.match(text) or _FAIL_HEADER.match(text):
            break
        stripped = text.strip()
        if (
            not detail
            and stripped
            and not stripped.startswith(("at ", ">", "|", "❯"))
            and not stripped[0].isdigit()
        ):
            detail = stripped
        end += 1
    # jest names the file whose import failed (`Cannot find module './x' from 'src/a.js'`): the
    # frame in that file is the import, the test file's only the start of the chain.
    importer = _JEST_IMPORTER.search(detail)
    want = importer["file"] if importer else file
    place = _project_location(lines, index + 1, end, want)
    if place is None and end == index + _FAILURE_LINES:
        # A long diff of the values compared comes before the code frame and the stack: read on.
        end = _block_end(lines, end)
        place = _project_location(lines, index + 1, end, want)
    if place:
        error.file, error.line = place[0], place[1]
    elif (compiled := _DIAGNOSTIC_PLACE.match(detail)) and (not file or _same(compiled["file"], file)):
        # ts-jest: `src/a.spec.ts:1:20 - error TS2307: ...`
        error.file, error.line = file or compiled["file"], int(compiled["line"])
    elif file and (framed := next(filter(None, map(_CODE_FRAME.match, lines[index + 1 : end])), None)):
        # No frame the project's (cut, or in a path the frame pattern cannot read): jest's code frame
        # shows the assertion's line, in the test file when no other file's frame is printed.
        error.line = int(framed["line"])
    error.message = f"{name}: {detail}" if detail else name
    if detail and name.endswith(_JEST_SUITE):
        error.category = _category(detail, suite=True)
        error.specificity = 9 if error.category == "test_failure" else 10
    return error, end
