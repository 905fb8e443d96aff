"""Failed JVM tests located at the test's own stack frame, whoever reported them.

A failed test is fixed in the test class (or in the code it calls, which its frame leads to),
so a failure is located at the frame of the test class: not at the assertion library's frame on
top of the stack (`org.junit.Assert.fail(Assert.java:88)`), nor at the runner's or reflection's
frames below it. The helpers here pick that frame; maven.py (Surefire) and gradle.py (the test
task's console report) use them for the tests they name.

Some logs show a failed test only through its stack trace: an IDE's test runner pasted into an
issue, a Surefire log cut to the trace, an Android Studio report::

    java.lang.AssertionError: Expected value to be true.
        at org.junit.Assert.fail(Assert.java:89)
        at com.acme.shop.BasketTest.emptyBasketHasNoTotal(BasketTest.kt:42)

This module's parser reports such traces, one per trace with a frame of a test class (named
like one: `FooTest`, `FooTests`, `FooIT`, `TestFoo`, and for Groovy, Kotlin and Scala also
`FooSpec`/`FooSuite`), unless a Surefire or Gradle test header right above it already names the
test. Its errors are weak (specificity 3): any located error another parser finds outranks them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser

# `at org.x.FooTest.adds(FooTest.java:12)`; Gradle's `at app//org.x...` class-loader prefix;
# Spock's method names have blanks (`at x.FooSpec.adds two numbers(FooSpec.groovy:9)`). The method
# has no dot, so the class ends at the last dot before the parenthesis: one way to match, linear.
_FRAME = re.compile(r"^\s*at (?:\S+//)?([\w$.]+)\.[^().]*\(([\w$]+\.(java|kt|groovy|scala)):(\d+)\)")
# Packages of the JDK, the test frameworks, assertion and mocking libraries and build tools:
# their frames are never the test's.
_FRAMEWORK = (
    "java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.", "scala.", "groovy.",
    "org.codehaus.groovy.", "org.junit.", "junit.", "org.testng.", "org.opentest4j.", "org.spockframework.",
    "spock.", "io.kotest.", "org.scalatest.", "org.assertj.", "org.hamcrest.", "com.google.common.truth.",
    "org.mockito.", "io.mockk.", "org.gradle.", "worker.org.gradle.", "org.apache.maven.", "org.robolectric.",
    "androidx.test.", "android.", "dalvik.", "org.springframework.test.",
)  # fmt: skip
# Class names test runners pick up, by language (Java's `*Spec` is often a JPA Specification).
_TEST_NAME_JAVA = re.compile(r"^(?:Test[A-Z0-9_]\w*|\w+(?:Test|Tests|TestCase|IT|ITCase))$")
_TEST_NAME_OTHER = re.compile(
    r"^(?:Test[A-Z0-9_]\w*|\w+(?:Test|Tests|TestCase|IT|ITCase|Spec|Specification|Suite))$"
)
# A report line that already names the failed test (Surefire, Gradle): its parser owns the trace.
_NAMED_ABOVE = re.compile(r"<<< (?:FAILURE|ERROR)!|\bFAILED$")
_EXCEPTION_LOOKBACK = 4
_MESSAGE_LOOKBACK = 8  # lines of an exception's message above its first frame
_MAX_CAUSE = 300  # characters of an exception's message kept in a failed test's error
# An exception's name opening its message: `org.opentest4j.AssertionFailedError:`, `java.lang.AssertionError`.
_EXCEPTION_NAME = re.compile(r"(?:[\w$]+\.)+[\w$]*(?:Error|Exception|Throwable|Failure)[\w$]*(?::|$)")
_MAX_ERRORS = 20
_SPECIFICITY = 3


@dataclass(frozen=True)
class Frame:
    """One stack frame: the class, its source file's name and the line."""

    class_name: str
    file_name: str
    line: int

    @property
    def outer(self) -> str:
        """The simple name of the outermost class (`FooTest` for `x.FooTest$Nested$1`)."""
        return simple_name(self.class_name)


def _may_be_test_frame(line: str) -> bool:
    """A substring test each test class's frame passes (tested before the frame's regex)."""
    return "Test" in line or "Spec" in line or "IT." in line or "Suite" in line


def simple_name(class_name: str) -> str:
    """`FooTest` from `org.x.FooTest`, `org.x.FooTest$Inner` or `FooTest`."""
    return class_name.rsplit(".", 1)[-1].split("$", 1)[0]


def parse_frame(line: str) -> Frame | None:
    """The frame on a stack-trace line, or None."""
    found = _FRAME.match(line) if "at " in line else None
    return Frame(found.group(1), found.group(2), int(found.group(4))) if found else None


def is_test_frame(frame: Frame) -> bool:
    """True for a frame of a class named like a test, outside the frameworks' packages."""
    if frame.class_name.startswith(_FRAMEWORK) or frame.file_name.split(".", 1)[0] != frame.outer:
        return False
    names = _TEST_NAME_JAVA if frame.file_name.endswith(".java") else _TEST_NAME_OTHER
    return names.match(frame.outer) is not None


def test_frame(lines: Iterable[str], test_class: str | None = None) -> Frame | None:
    """The frame that locates a failed test among stack-trace lines.

    Args:
        lines: the lines of the failure's report (non-frame lines are skipped).
        test_class: the failed test's class as the report names it (`org.x.FooTest`, `FooTest`),
            when it does.

    Returns:
        The first frame of that class (its nested and anonymous classes included), else the
        first frame of a class named like a test outside the frameworks, else None.
    """
    wanted = simple_name(test_class) if test_class else None
    fallback: Frame | None = None
    for text in lines:
        # Substring tests first: most frames of a trace are the runner's and the framework's.
        if not ((wanted is not None and wanted in text) or (fallback is None and _may_be_test_frame(text))):
            continue
        frame = parse_frame(text)
        if frame is None:
            continue
        if wanted is not None and frame.outer == wanted:
            return frame
        if fallback is None and is_test_frame(frame):
            if wanted is None:
                return frame
            fallback = frame
    return fallback


def source_file(test_class: str | None, frame: Frame | None, extension: str = ".java") -> str | None:
    """The test's source file (`org/x/FooTest.java`).

    The package's folders and the frame's file name, or the class's simple name and `extension`
    when no frame gives it.
    """
    if frame is not None:
        # The frame's own class is the better package source when it is not the named class.
        owner = test_class if test_class and simple_name(test_class) == frame.outer else frame.class_name
        package = owner.rsplit(".", 1)[0].replace(".", "/") if "." in owner else ""
        return f"{package}/{frame.file_name}" if package else frame.file_name
    if not test_class:
        return None
    package = test_class.rsplit(".", 1)[0].replace(".", "/") if "." in test_class else ""
    name = simple_name(test_class) + extension
    return f"{package}/{name}" if package else name


def _exception_line(lines: list[str], first_frame: int) -> int | None:
    """Index of the exception line above a trace's first frame (`java.lang.AssertionError: ...`).

    A message on lines of its own (AssertJ, JUnit 5: `AssertionFailedError:` / `expected: 0` /
    ` but was: -1`) is passed over to the exception's name above it.
    """
    nearest = None
    for j in range(first_frame - 1, max(-1, first_frame - 1 - _MESSAGE_LOOKBACK), -1):
        text = lines[j].strip()
        if not text:
            continue
        if text.startswith("at "):
            break
        nearest = j if nearest is None else nearest
        if _EXCEPTION_NAME.match(text):
            return j
    return nearest if nearest is not None and first_frame - nearest <= _EXCEPTION_LOOKBACK else None


def exception_told(lines: list[str]) -> str:
    """An exception's line and the message lines below it up to its first frame, on one line.

    AssertJ and JUnit 5 start the message on the line after the exception's name
    (`AssertionFailedError:` / `expected: 0` / ` but was: -1`).
    """
    told: list[str] = []
    for line in lines:
        if line.lstrip().startswith(("at ", "... ")):
            break
        told += [line.strip()] if line.strip() else []
    return " ".join(told)[:_MAX_CAUSE]


def parse(lines: list[str]) -> list[BuildError]:
    """Failed tests seen only through stack traces through a test class.

    Args:
        lines: the cleaned log.

    Returns:
        One test_failure per trace that runs through a test class and that no test report header
        right above it names; located at the test class's frame.
    """
    errors: list[BuildError] = []
    trace_start: int | None = None  # first frame of the current trace
    reported = False  # the current trace already gave an error
    for index, text in enumerate(lines):
        stripped = text.lstrip()
        if not stripped.startswith("at "):
            if stripped and not stripped.startswith(("...", "Caused by:", "Suppressed:")):
                trace_start, reported = None, False  # `Caused by:` continues the same failure
            continue
        if trace_start is None:
            trace_start = index
        if reported or not _may_be_test_frame(text):
            continue
        frame = parse_frame(text)
        if frame is None or not is_test_frame(frame):
            continue
        reported = True
        start = _exception_line(lines, trace_start)
        header = lines[max(0, (start or trace_start) - 3) : start or trace_start]
        if any(_NAMED_ABOVE.search(above) for above in header):
            continue
        cause = exception_told(lines[start:trace_start]) if start is not None else ""
        message = f"{frame.outer} failed: {cause}" if cause else f"{frame.outer} failed"
        errors.append(
            BuildError(
                message=message,
                category="test_failure",  # an exception ran through a test: a test failed
                tool="junit",
                file=source_file(None, frame),
                line=frame.line,
                log_line=start if start is not None else index,
                specificity=_SPECIFICITY,
            )
        )
        if len(errors) >= _MAX_ERRORS:
            break
    return errors


PARSER = Parser(
    name="jvmtest",
    triggers=(
        "Test.java:", "Tests.java:", "IT.java:", "TestCase.java:", "Test.kt:", "Tests.kt:", "Spec.kt:",
        "Test.groovy:", "Spec.groovy:", "Test.scala:", "Spec.scala:", "Suite.scala:",
    ),
    parse=parse,
)  # fmt: skip
