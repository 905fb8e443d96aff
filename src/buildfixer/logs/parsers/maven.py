"""Maven 3's own failure reports.

Maven prefixes its messages with `[ERROR]` (or `[FATAL]` for POM problems) and
ends a failed build with `Failed to execute goal <plugin> (<execution>) on
project <x>: <reason>`. This parser reports:

* the goal failure, whose reason is specific for dependency and JDK problems
  ("Could not resolve dependencies ... Could not find artifact g:a:jar:1.0",
  "Fatal error compiling: error: release version 21 not supported") and only a
  pointer for "Compilation failure" / "There are test failures";
* POM problems (`Non-parseable POM`, `Non-resolvable parent POM`, missing
  versions) with the POM's path and the `@ line N, column M` position;
* compiler errors that carry no file ("Source option 5 is no longer supported");
  located compiler errors (`[ERROR] /x/A.java:[12,5] ...`) belong to javac.py;
* failed tests, from Surefire's per-test report or its summary lists;
* other top-level errors (no POM, unknown lifecycle phase, plugin not found).
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import ENOUGH, Parser, jvmtest
from buildfixer.logs.taxonomy import classify

_PREFIX = re.compile(r"^.{0,40}?\[(ERROR|FATAL)\] ?")
_GOAL = re.compile(r"^Failed to execute goal (?:(\S+) (?:\(([^)]*)\) )?)?on project (\S+?):\s*(.*)$")
# Starting only where blanks start (`(?<!\s)`): the same match, without rescanning a long run of
# blanks from each of its characters.
_HELP = re.compile(r"(?<!\s)\s*-> \[Help \d+\]\s*$")
_POSITION = re.compile(r"@ line (\d+), column (\d+)")
_POM_PATH = re.compile(r"\bPOM (\S+\.xml)\b|\(([^()\s]+\.xml)\) has \d+ errors?")
_PROJECT_POM = re.compile(r"The project .*?\(([^()\s]+\.xml)\) has \d+ errors?")
_TESTS_RUN = re.compile(r"Tests run: \d+, Failures: (\d+), Errors: (\d+)")
# `demo.AppTest.adds -- Time elapsed: 0.1 s <<< FAILURE!` (Surefire 3) or
# `adds(demo.AppTest)  Time elapsed: 0.1 sec  <<< ERROR!` (Surefire 2).
_TEST_CASE = re.compile(
    r"^(?:([\w$.]+)\.([\w$\[\]() ,-]+?) --|([\w$\[\]]+)\(([\w$.]+)\)) +Time elapsed: .*<<< (FAILURE|ERROR)!"
)
# Lines of a per-test report read for its stack frames.
_MAX_REPORT = 60
_SUMMARY_LIST = re.compile(r"^(?:Failures|Errors|Failed tests|Tests in error)\s*:\s*(.*)$")
_SUMMARY_ITEM = re.compile(r"^\s+(\S.*)$")
# `FooTest.adds:27 expected...`, `org.x.FooTest.adds:27`, `FooTest.adds(int)[1]:27`, `FooTest>Base.adds:27`.
_SUMMARY_LOCATION = re.compile(r"^(?:[\w$.]+>)?([\w$.]+)\.[\w$]+(?:\([\w$., ]*\))?(?:\[[^\]]*\])?:(\d+)")
# Surefire 2's older summary names the test as JUnit 4 describes it, `method(pkg.FooTest): message`
# (`Failed tests:   adds(demo.AppTest): expected:<3> but was:<4>`), without a line.
_SUMMARY_DESCRIPTION = re.compile(r"^[^\s(][^(]*\(((?:[\w$]+\.)*[A-Z][\w$]*)\)(?::|\s|$)")
# Top-level error lines worth reporting on their own.
_TOP_LEVEL = re.compile(
    r"^(?:The goal you specified|Unknown lifecycle phase|No plugin found for prefix|Plugin \S+ or one of"
    r"|Unknown packaging|Error resolving version for plugin|Could not (?:find|resolve|transfer) "
    r"|Failed to (?:collect|read artifact)|\[?Rule \d+: .* failed)"
)
_BOILERPLATE = (
    "To see the full stack trace",
    "Re-run Maven using",
    "For more information about the errors",
    "[Help ",
    "After correcting the problems",
    "  mvn ",
    "Please refer to ",
    "Some problems were encountered",
    "The build could not read",
    "-> [Help",
    "COMPILATION ERROR",
)
_ENFORCER_RULE = re.compile(r"^.{0,40}?\[WARNING\] Rule \d+: (?P<rule>[\w.$]+) failed with message:?")
_ERROR_COUNT = re.compile(r"^\[INFO\] \d+ errors?\b")
_GENERIC_REASONS = ("Compilation failure", "There are test failures", "There were test failures")

_MAX_MESSAGE = 600


def _body(line: str) -> str | None:
    """The text after `[ERROR]`/`[FATAL]`, or None for other lines."""
    match = _PREFIX.match(line) if ("[ERROR]" in line or "[FATAL]" in line) else None
    return _HELP.sub("", line[match.end() :]).rstrip() if match else None


def _error(
    message: str, index: int, specificity: int, tool: str = "maven", **where: int | str | None
) -> BuildError:
    message = " ".join(message.split())
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return BuildError(
        message=message,
        category=classify(message, tool),
        tool=tool,
        log_line=index,
        specificity=specificity,
        file=where.get("file"),  # type: ignore[arg-type]
        line=where.get("line"),  # type: ignore[arg-type]
        column=where.get("column"),  # type: ignore[arg-type]
    )


def _continuation(lines: list[str], start: int, limit: int = 3) -> list[str]:
    """The `[ERROR]` lines that continue a message, up to a blank one or a located compiler error."""
    found: list[str] = []
    for line in lines[start : start + limit]:
        body = _body(line)
        if (
            not body
            or body.startswith(("/", "-> "))
            or ".java:[" in body
            or any(b in body for b in _BOILERPLATE)
        ):
            break
        found.append(body.strip())
    return found


def _goal_error(lines: list[str], index: int, body: str) -> BuildError | None:
    match = _GOAL.match(body)
    if not match:
        return None
    plugin, _execution, project, reason = match.groups()
    short_plugin = plugin.split(":", 1)[1] if plugin and plugin.count(":") >= 3 else plugin
    goal = f"{short_plugin} on project {project}" if short_plugin else f"on project {project}"
    if reason.startswith(_GENERIC_REASONS):
        # Only a pointer: the compiler errors or failed tests are reported on their own.
        reason = reason.split(":", 1)[0].rstrip(". ")
        return _error(f"Failed to execute goal {goal}: {reason}", index, 1 if "Compil" in reason else 2)
    if not reason or reason.endswith(":"):
        reason = f"{reason} {' '.join(_continuation(lines, index + 1))}".strip()
    if reason.startswith("Fatal error compiling: "):
        reason = reason.removeprefix("Fatal error compiling: ").removeprefix("error: ")
        return _error(f"{reason} ({goal})", index, 8, tool="javac")
    error = _error(f"{reason} ({goal})", index, 6)
    if error.category == "library_unavailable":
        error.specificity = 8
    return error


def _enforcer_rule(lines: list[str], index: int) -> BuildError | None:
    """An Enforcer rule that failed: `[WARNING] Rule 0: <rule> failed with message:` and its text.

    The rule's message follows on unprefixed lines; the `[ERROR]` goal that ends the build
    only says "Some Enforcer rules have failed. Look above ...".
    """
    found = _ENFORCER_RULE.match(lines[index])
    if not found:
        return None
    detail = []
    for text in lines[index + 1 : index + 4]:
        if not text.strip() or text.lstrip().startswith("["):
            break
        detail.append(text.strip())
    message = " ".join([f"{found['rule'].rsplit('.', 1)[-1]} failed:", *detail])
    return _error(message, index, 8)


def _test_case(lines: list[str], index: int, match: re.Match[str]) -> BuildError:
    """A failed test from Surefire's per-test report, located at the test class's stack frame.

    The exception's message may take several unindented lines; the report ends at the next
    test's header, a Maven `[LEVEL]` line or Surefire's `Tests run:` line. Without a frame of the
    test class (a trace trimmed to the assertion's frames), the test class's file is still named.
    """
    test_class = match.group(1) or match.group(4)
    method = match.group(2) or match.group(3)
    report = []
    for probe in lines[index + 1 : index + _MAX_REPORT]:
        if "<<< " in probe or probe.startswith("[") or probe.startswith("Tests run:"):
            break
        report.append(probe)
    cause = jvmtest.exception_told(report)
    # Another test class's frame stands for an inherited test method (`BaseTest.checks`).
    frame = jvmtest.test_frame(report, test_class)
    file = jvmtest.source_file(test_class, frame)
    line = frame.line if frame else None
    message = f"{test_class}.{method} {match.group(5)}: {cause}".rstrip(": ")
    error = _error(message, index, 6, tool="maven", file=file, line=line)
    error.category = "test_failure"  # whatever the exception says, a test failed
    return error


def _summary_tests(lines: list[str], index: int, first: str) -> list[BuildError]:
    """Failed tests listed under `Failures:` / `Failed tests:` in the results summary."""
    found = []
    items = [(index, first)] if first else []
    for j in range(index + 1, min(len(lines), index + 200)):
        body = _body(lines[j])
        text = body if body is not None else lines[j]
        item = _SUMMARY_ITEM.match(text)
        if not item:
            break
        items.append((j, item.group(1)))
    for j, item_text in items:
        if item_text.startswith(("Run ", "at ")):
            continue
        located = _SUMMARY_LOCATION.match(item_text)
        file, line = (
            (jvmtest.source_file(located.group(1), None), int(located.group(2))) if located else (None, None)
        )
        if not located and (described := _SUMMARY_DESCRIPTION.match(item_text)):
            file = jvmtest.source_file(described.group(1), None)
        error = _error(item_text, j, 5, file=file, line=line)
        error.category = "test_failure"
        found.append(error)
    return found


def parse(lines: list[str]) -> list[BuildError]:
    """Find Maven failure reports in cleaned log lines.

    Args:
        lines: the cleaned log.

    Returns:
        BuildErrors with tool "maven" (or "javac" for file-less compiler errors).
    """
    errors: list[BuildError] = []
    test_cases: list[BuildError] = []
    test_summary: list[BuildError] = []
    in_compiler_list = False
    for index, line in enumerate(lines):
        if len(errors) >= ENOUGH:
            break
        if "<<< " in line:
            stripped = _PREFIX.sub("", line).strip()
            case = _TEST_CASE.match(stripped)
            if case:
                test_cases.append(_test_case(lines, index, case))
                continue
        body = _body(line)
        if body is None and "[WARNING] Rule " in line and (rule := _enforcer_rule(lines, index)):
            errors.append(rule)
            continue
        if body is None:
            if "Failed tests:" in line or "Tests in error:" in line:
                listed = _SUMMARY_LIST.match(line.strip())
                if listed:
                    test_summary.extend(_summary_tests(lines, index, listed.group(1).strip()))
            # `[INFO] 2 errors` closes the list that `COMPILATION ERROR :` opened.
            in_compiler_list = in_compiler_list and not _ERROR_COUNT.match(line)
            continue
        if body.startswith("COMPILATION ERROR") or body.startswith("Failed to execute goal"):
            in_compiler_list = "Compilation failure" in body or body.startswith("COMPILATION ERROR")
            goal = _goal_error(lines, index, body)
            if goal:
                errors.append(goal)
            continue
        if in_compiler_list:
            # File-less compiler errors between `COMPILATION ERROR :` and the error
            # count, or after "Compilation failure" up to the blank `[ERROR]` line.
            text = body.strip()
            if not text or any(b in text for b in _BOILERPLATE):
                in_compiler_list = False
            elif not body.startswith(" ") and ".java:" not in text and ".kt:" not in text:
                errors.append(_error(text.removeprefix("error: "), index, 7, tool="javac"))
            continue
        if "@ line" in body:
            position = _POSITION.search(body)
            if position and not body.lstrip().startswith("The project"):
                errors.append(_pom_problem(lines, index, body, position))
                continue
        tests_run = _TESTS_RUN.search(body)
        if tests_run:
            if "<<<" not in body and (int(tests_run.group(1)) or int(tests_run.group(2))):
                errors.append(_error(body.strip(), index, 2))
            continue
        listed = _SUMMARY_LIST.match(body)
        if listed:
            test_summary.extend(_summary_tests(lines, index, listed.group(1).strip()))
            continue
        if _TOP_LEVEL.match(body.strip()):
            message = " ".join([body.strip(), *_continuation(lines, index + 1, 2)])
            errors.append(_error(message, index, 7))
    # Surefire prints each failure twice (per test and in the summary); the
    # per-test report has the exception and stack, so it wins when present.
    errors.extend(test_cases or test_summary)
    errors.sort(key=lambda e: e.log_line or 0)
    return errors


def _pom_problem(lines: list[str], index: int, body: str, position: re.Match[str]) -> BuildError:
    """A POM problem at `@ line N, column M`, located in the POM Maven names nearby."""
    path = _POM_PATH.search(body)
    file = (path.group(1) or path.group(2)) if path else None
    if file is None:
        # "The project g:a:1.0 (/x/pom.xml) has 1 error" precedes the indented
        # copy of the problem and follows the [FATAL] one.
        for probe in [*reversed(lines[max(0, index - 5) : index]), *lines[index + 1 : index + 8]]:
            project = _PROJECT_POM.search(probe)
            if project:
                file = project.group(1)
                break
    message = body.strip()
    return _error(message, index, 9, file=file, line=int(position.group(1)), column=int(position.group(2)))


PARSER = Parser(
    name="maven",
    # Surefire's per-test report comes without `[ERROR]` when a user pastes only the report file.
    triggers=("[ERROR]", "[FATAL]", "Failed tests:", "Tests in error:", "<<< FAILURE!", "<<< ERROR!"),
    parse=parse,
)
