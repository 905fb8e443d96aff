"""Gradle's own failure reports, from Gradle 4.x to 8.x.

Gradle ends a failed build with one or more blocks like::

    * Where:
    Build file '/p/app/build.gradle' line: 12

    * What went wrong:
    A problem occurred evaluating project ':app'.
    > Could not get unknown property 'foo' for project ':app'.

Each "What went wrong" block becomes one error (the headline and its `>` causes
joined), located by the "Where" block before it, except that dependency
resolution failures are split into one error per artifact that could not be
found, and Kotlin-script compilation errors into one error per `Line N:`.
Failed tests (`demo.AppTest > adds FAILED`) are reported one by one. Task
`FAILED` markers and `BUILD FAILED` are reported only when no block exists
(a truncated log), since the blocks always say more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser, jvmtest
from buildfixer.logs.taxonomy import classify

_WHERE = re.compile(
    r"^(?:Build file|Settings file|Script|Initialization script|Precompiled script plugin) '(.+?)'"
    r"(?: line: (\d+))?"
)
# Where a block ends: the next `* Section:`, the footer, or the separators of a
# multi-failure report (`2: Task failed with an exception.`).
_BLOCK_END = re.compile(
    r"^(?:\* [A-Z][\w ]*:|BUILD FAILED|BUILD SUCCESSFUL|FAILURE: |={20,}|\d+: Task failed)"
)
# Where a located failure block ends: the sections after "What went wrong", the verdict,
# another failure of a multi-failure report.
_SPAN_END = re.compile(r"^(?:\* [A-Z][\w ]*:|BUILD FAILED|FAILURE: |\d+: Task failed)")
_TASK_FAILED = re.compile(r"^(?:> Task )?(:[\w:.-]*)(?: FAILED)$|^> Task (:[\w:.-]+) FAILED")
_COORDINATE_MISSING = re.compile(r"^Could not find ([\w.-]+:[\w.-]+(?::[\w.+-]+)*)\.?$")
_COORDINATE_UNRESOLVED = re.compile(r"^Could not resolve ([\w.-]+:[\w.-]+(?::[\w.+-]+)*)\.?$")
_KTS_LINE = re.compile(r"^\s*Line (\d+):")
_KTS_CARET = re.compile(r"^\s*\^ (.+)$")
_GROOVY_POSITION = re.compile(r"'([^']+)': (\d+): .*?@ line (\d+), column (\d+)")
# A class name in a test report line (`org.x.AppTest`, `AppTest$Nested`), and TestNG's
# `class.method` (`org.x.AppTest.adds`).
_TEST_CLASS = re.compile(r"^(?:[\w$]+\.)*[A-Z][\w$]*$")
_TEST_CLASS_METHOD = re.compile(r"^((?:[\w$]+\.)*[A-Z][\w$]*)\.([a-z_$][\w$]*)$")
# A stack frame (`at app//org.x.AppTest.adds(AppTest.java:31)`) or Gradle 4's
# short form below a failed test (`java.lang.AssertionError at AppTest.java:5`).
_TEST_SHORT = re.compile(r"\bat ([\w$]+\.(?:java|kt|groovy|scala)):(\d+)$")
# Continuation lines that only list where Gradle looked; they drown the message.
_SKIP_DETAIL = re.compile(
    r"^\s*(?:- )?(?:https?:|file:/|Searched in|If the artifact|- Gradle |project :|\.\.\.)"
)
# Causes that only point elsewhere (at the compiler output or a test report).
_GENERIC = re.compile(
    r"Compilation failed; see the compiler (?:error )?output|Compilation error\. See log"
    r"|There were failing tests|Script compilation errors?:?\s*$|Build failed with an exception",
    re.IGNORECASE,
)

_MAX_MESSAGE = 600
# Headlines of a failure report that people paste (and IDEs show) without the
# `* What went wrong:` line above them; read as a block of their own.
_HEADLINES = (
    "Execution failed for task '",
    "Could not determine the dependencies of task",
    "A problem occurred evaluating ",
    "A problem occurred configuring ",
    "Could not resolve all ",
    "Plugin [id: ",
    "Could not compile build file",
    "Could not compile settings file",
    "An exception occurred applying plugin request",
)
# Line starts the parser looks at, besides lines containing "FAILED" (the
# numbered ones head the failures of a multi-failure report).
_INTERESTING = ("* ", "FAILURE: ", "1: ", "2: ", "3: ", "4: ", "5: ", "6: ", "7: ", "8: ", "9: ", *_HEADLINES)


@dataclass
class _Block:
    """One "What went wrong" block: headline, causes, and where it happened."""

    start: int
    headline: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)
    # (index of the cause, "project :app") for dependency causes with a "Required by:" list.
    required_by: list[tuple[int, str]] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    file: str | None = None
    line: int | None = None


def _read_block(lines: list[str], start: int) -> tuple[_Block, int]:
    """Read the block whose first content line is `start`; return it and the index after it."""
    block = _Block(start=start)
    i = start
    expect_required = False
    while i < len(lines):
        raw = lines[i]
        if _BLOCK_END.match(raw):
            break
        text = raw.strip()
        i += 1
        if not text:
            expect_required = False
            continue
        if text.startswith(">"):
            block.causes.append(text.lstrip("> ").strip())
            expect_required = False
        elif text.startswith("Required by:"):
            expect_required = True
        elif expect_required and text.startswith("project "):
            block.required_by.append((len(block.causes) - 1, text))
        elif _SKIP_DETAIL.match(text):
            continue
        elif not block.causes and not block.extra and len(block.headline) < 3:
            block.headline.append(text)
        elif block.causes and len(block.causes[-1]) < _MAX_MESSAGE:
            block.causes[-1] += " " + text  # a cause that wraps over several lines
        else:
            block.extra.append(raw)
    return block, i


def _error(
    message: str,
    index: int,
    specificity: int,
    file: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> BuildError:
    category = classify(message, "gradle")
    if len(message) > _MAX_MESSAGE:
        # Keep the head (what failed) and the tail (the innermost cause).
        message = message[: _MAX_MESSAGE * 2 // 3] + " ... " + message[-(_MAX_MESSAGE // 3) :]
    return BuildError(
        message=message,
        category=category,
        tool="gradle",
        file=file,
        line=line,
        column=column,
        log_line=index,
        specificity=specificity,
    )


def _block_errors(block: _Block) -> list[BuildError]:
    """Turn one "What went wrong" block into errors."""
    headline = " ".join(block.headline)
    errors = []
    # Dependency failures: one error per artifact, the most actionable unit.
    for n, cause in enumerate(block.causes):
        missing = _COORDINATE_MISSING.match(cause)
        if missing:
            users = ", ".join(text for k, text in block.required_by if k == n)
            context = headline + (f" Required by: {users}" if users else "")
            coordinate = missing.group(1).rstrip(".")
            errors.append(_error(f"Could not find {coordinate}. ({context})", block.start, 8))
    if not errors:
        for n, cause in enumerate(block.causes):
            unresolved = _COORDINATE_UNRESOLVED.match(cause)
            if unresolved:
                reason = " > ".join(block.causes[n + 1 : n + 3]) or headline
                coordinate = unresolved.group(1).rstrip(".")
                errors.append(_error(f"Could not resolve {coordinate}: {reason}", block.start, 7))
    if errors:
        return errors
    # Kotlin build scripts: `Line 12: <code>` followed by `^ Unresolved reference: x`.
    everything = block.headline + block.causes + [x.rstrip() for x in block.extra]
    kts_line = None
    for text in everything:
        located = _KTS_LINE.match(text)
        if located:
            kts_line = int(located.group(1))
        caret = _KTS_CARET.match(text)
        if caret and kts_line is not None:
            message = f"{headline.rstrip(':')}: line {kts_line}: {caret.group(1)}"
            errors.append(_error(message, block.start, 9, block.file, kts_line))
            kts_line = None
    if errors:
        return errors
    message = " > ".join([headline, *block.causes]) if headline else " > ".join(block.causes)
    if not message:
        return []
    file, line, column = block.file, block.line, None
    groovy = _GROOVY_POSITION.search(message)
    if groovy:
        file, line, column = groovy.group(1), int(groovy.group(3)), int(groovy.group(4))
    error = _error(message, block.start, 4, file, line, column)
    if _GENERIC.search(block.causes[-1] if block.causes else headline):
        error.specificity = 2 if error.category == "test_failure" else 1
    elif file and line is not None:
        error.specificity = 9
    elif error.category != "other":
        error.specificity = 6
    return [error]


def _bare_where(lines: list[str], wrong: int) -> tuple[str, int | None] | None:
    """The `Build file '...' line: N` line just above a `* What went wrong:` that has no `* Where:`.

    A report pasted from its middle (or an IDE's copy of it) keeps the location line and drops
    its `* Where:` header; nothing but blank lines may separate it from the block.
    """
    for probe in reversed(lines[max(0, wrong - 3) : wrong]):
        if located := _WHERE.match(probe.strip()):
            return located.group(1), int(located.group(2)) if located.group(2) else None
        if probe.strip():
            return None
    return None


def where_spans(lines: list[str]) -> list[tuple[int, int, str, int]]:
    """The failure blocks a build-script location heads: (first line, end line, build file, line).

    A failure another tool reports inside such a block (AGP's `[CXX1101] NDK at ... did not
    have a source.properties file`, an SDK directory that does not exist) happened while Gradle
    evaluated that line of the build script (`* Where:` / `Build file '...' line: 16`): other
    parsers use it when the cause has no position of its own. Only `* What went wrong:` lines
    are looked at, so a 10 MB log costs one prefix test per line.
    """
    spans: list[tuple[int, int, str, int]] = []
    for i, text in enumerate(lines):
        if not text.startswith("* What went wrong:"):
            continue
        where = _bare_where(lines, i)
        if where and where[1] is not None:
            stop = min(len(lines), i + 400)
            end = next((k for k in range(i + 1, stop) if _SPAN_END.match(lines[k])), stop)
            spans.append((i, end, where[0], where[1]))
    return spans


def _test_name(line: str) -> tuple[str | None, str] | None:
    """The class and the test of a console report line such as `org.x.AppTest > adds() FAILED`.

    JUnit 5 adds nested classes (`AppTest > Nested > adds() FAILED`); TestNG puts its suites
    first and names the test `class.method` (`Gradle suite > Gradle test > org.x.AppTest.adds
    FAILED`); a display name with blanks leaves the class unknown (None).
    """
    if not line.endswith(" FAILED") or line[:1].isspace():
        return None
    parts = line.removesuffix(" FAILED").split(" > ")
    for n, part in enumerate(parts[:-1]):
        if _TEST_CLASS.match(part):
            return part, " > ".join(parts[n + 1 :])
    if test := _TEST_CLASS_METHOD.match(parts[-1]):
        return test.group(1), test.group(2)
    return None, " > ".join(parts)


# Lines the test JVM writes to stderr while Gradle prints a failure's trace (JDK 17+ warns about the
# Security Manager Gradle 4 installs): interleaved with the trace, not its end.
_INTERLEAVED = ("WARNING: ", "OpenJDK 64-Bit Server VM warning: ")


def _test_error(lines: list[str], index: int, name: str | None, test: str) -> BuildError:
    """A failed test from the console summary, located at the test class's frame below it.

    The frame comes from the full trace (`exceptionFormat FULL`) or Gradle's short form
    (`java.lang.AssertionError at AppTest.java:5`); without either the class's file is named.
    """
    detail = lines[index + 1].strip() if index + 1 < len(lines) else ""
    if not detail.startswith(("java", "org", "kotlin", "junit", "at ", "Caused", "com")):
        detail = ""
    message = f"Test {name} > {test} FAILED" if name else f"Test {test} FAILED"
    message += f": {detail}" if detail else ""
    report = []
    for probe in lines[index + 1 : index + 60]:
        if probe.startswith(_INTERLEAVED):
            continue  # the test JVM's stderr, printed in the middle of the trace
        if probe and not probe[:1].isspace():
            break  # the indented detail of this test has ended
        report.append(probe)
    frame = jvmtest.test_frame(report, name)
    file = jvmtest.source_file(name, frame)
    line = frame.line if frame else None
    if frame is None or (name and frame.outer != jvmtest.simple_name(name)):
        for probe in report:
            if short := _TEST_SHORT.search(probe):
                short_frame = jvmtest.Frame(name or "", short.group(1), int(short.group(2)))
                file, line = jvmtest.source_file(name, short_frame), short_frame.line
                break
    error = _error(message, index, 6, file, line)
    error.category = "test_failure"  # whatever the assertion says, a test failed
    return error


def parse(lines: list[str]) -> list[BuildError]:
    """Find Gradle failure reports in cleaned log lines.

    Args:
        lines: the cleaned log.

    Returns:
        BuildErrors with tool "gradle", in log order.
    """
    errors: list[BuildError] = []
    failed_tasks: list[tuple[int, str]] = []
    build_failed: int | None = None
    where: tuple[str, int | None] | None = None
    block_end = 0
    # Only a few lines can matter; pick them with substring tests (a 10 MB log
    # has ~150k lines) and skip those already read as part of a block.
    candidates = [
        n for n, text in enumerate(lines)
        if text.startswith(_INTERESTING) or "FAILED" in text or text[:3] == " * "
    ]  # fmt: skip
    for i in candidates:
        if i < block_end:
            continue
        # A section heading pasted one blank in (` * What went wrong:`) is still one.
        line = lines[i][1:] if lines[i][:3] == " * " else lines[i]
        if line.startswith("* "):
            if line.startswith("* Where:"):
                where = None
                for probe in lines[i + 1 : i + 4]:
                    located = _WHERE.match(probe.strip())
                    if located:
                        where = (located.group(1), int(located.group(2)) if located.group(2) else None)
                        break
            elif line.startswith("* What went wrong:"):
                block, block_end = _read_block(lines, i + 1)
                where = where or _bare_where(lines, i)
                if where:
                    block.file, block.line = where
                where = None
                errors.extend(_block_errors(block))
        elif line.startswith(_HEADLINES):
            block, block_end = _read_block(lines, i)
            errors.extend(_block_errors(block))
        elif line.startswith("FAILURE: ") or (line[:1].isdigit() and "Task failed" in line):
            where = None
        elif line.startswith("BUILD FAILED"):
            build_failed = i if build_failed is None else build_failed
        elif "FAILED" in line:
            task = _TASK_FAILED.match(line.strip())
            if task:
                failed_tasks.append((i, task.group(1) or task.group(2)))
            elif " > " in line:
                test = _test_name(line)
                if test:
                    errors.append(_test_error(lines, i, *test))
    if errors:
        return errors
    # No report block: fall back to the failed tasks, then to the verdict itself.
    for index, task_name in failed_tasks:
        errors.append(_error(f"Task {task_name} FAILED", index, 1))
    if not errors and build_failed is not None:
        errors.append(_error(lines[build_failed].strip(), build_failed, 0))
    return errors


PARSER = Parser(
    name="gradle",
    triggers=("* What went wrong", "FAILED", "FAILURE: ", *_HEADLINES),
    parse=parse,
)
