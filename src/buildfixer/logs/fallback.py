"""Last resort for logs no parser recognises: pick the lines that read like an error.

Real logs are often fragments: a user pastes the few lines they think matter, an IDE
shows a failure without the build tool's framing, a wrapper (node-gyp, a CI step)
prints a tool's output in its own words. When no parser finds anything, the error is
still usually one line that says what went wrong in words the taxonomy knows
("Could not find artifact ...", "ninja: error: ...", "g++: command not found").

Each candidate line is scored by what it says (a known category beats an unknown
one), whether it is marked as an error, and whether it is only a summary ("BUILD
FAILED", "exit code 1"); the best one, earliest among equals, leads.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.phrases import Phrases
from buildfixer.logs.rank import SUMMARY_MAX
from buildfixer.logs.taxonomy import classify

# Words that make a line worth classifying at all (case-insensitive; phrases, searched fast:
# a case-insensitive alternation costs microseconds per character of every line scanned).
_CANDIDATE = Phrases(
    "error", "fail", "could not", "couldn't", "cannot", "can't", "not found", "missing", "exception",
    "incompatible", "unsupported", "unable", "no such", "denied", "invalid", r"requires?\b",
    "not supported", "no matching", "exceeded", "not installed", "externally managed", "unsupported",
    "can not", "not allowed", "not permitted", "refused", "problems found", "is required",
)  # fmt: skip
# An explicit error marker: `error:`, `[ERROR]`, `Error:`, `npm ERR!`, `ERESOLVE`, kotlinc's `e:`.
_MARKED = re.compile(r"(?:^|[\s\[:(])(?:fatal )?(?:error|ERROR|Error)(?:[:!\]]| TS\d)|^e: |\bE[A-Z]{3,}\b")
# Lines that only say that something failed, or where to look.
_SUMMARY = re.compile(
    r"BUILD FAIL|FAILURE: Build|Build failed with an exception|exit (?:code|status|value)|exited with"
    r"|See above|see logs|for more information|Run with --|A complete log|--stacktrace|not ok\s*$"
    r"|^\s*(?:\*\*\*|=+|-+)\s*$|failed with exit|Command failed|subprocess-exited|^> Task \S+ FAILED",
    re.IGNORECASE,
)
# Stack frames and their trailers, which name exception classes without being errors;
# notes, hints and warnings, which only comment on them.
_FRAME = re.compile(r"^\s*(?:at |\.\.\. \d+ more|#\d+\s|\^|~+$|File \")")
_ASIDE = re.compile(r"^\s*(?:note|hint|warning|warn|w|\[WARNING\]|npm WARN|npm warn)\b:?", re.IGNORECASE)
# Passing checks of test runners ("✔ shows an error on bad input") only mention errors.
_PASSED = re.compile(
    r"(?:^|\s)(?:✔|✓|√)\s|^\s*ok \d+ |\bPASS(?:ED)?\b|\b(?:fail|failed|failures|errors?):? 0\b"
)
_CONTINUATION = re.compile(r"^\s+(?:>\s*)?\S|^\s*>\s*\S")

_SCAN_LINES = 5000
_MAX_MESSAGE = 600
_MAX_CONTINUATION = 2
_MAX_ERRORS = 10
_MAX_CLASSIFIED = 500


def _message(lines: list[str], index: int) -> str:
    """The line, with the indented or `>` lines right below it that continue it."""
    parts = [lines[index].strip()]
    for text in lines[index + 1 : index + 1 + _MAX_CONTINUATION]:
        if not _CONTINUATION.match(text) or _FRAME.match(text):
            break
        parts.append(text.strip().lstrip("> "))
    return " ".join(parts)[:_MAX_MESSAGE]


def scan(lines: list[str], tool: str | None) -> list[BuildError]:
    """Errors read from lines that look like errors, for a log no parser understood.

    Args:
        lines: the cleaned log.
        tool: who to name as reporter (the detected build system), or None.

    Returns:
        Up to ten errors in log order; specificity 2 to 5, so any parser's error
        would outrank them.
    """
    start = max(0, len(lines) - _SCAN_LINES)
    candidates: list[tuple[int, str]] = []
    seen: set[str] = set()
    for index in range(start, len(lines)):
        text = lines[index]
        if not _CANDIDATE.search(text) or _FRAME.match(text) or _ASIDE.match(text):
            continue
        if text.startswith("$ ") or _PASSED.search(text):  # our step header; a passing test
            continue
        stripped = text.strip()
        if len(stripped) < 8 or stripped in seen:
            continue
        seen.add(stripped)
        candidates.append((index, stripped))
    found: list[BuildError] = []
    # Classifying is the costly part: in a flood of error-looking lines, the last ones (nearest
    # to where the build stopped) are classified.
    for index, stripped in candidates[-_MAX_CLASSIFIED:]:
        message = _message(lines, index)
        category = classify(message, tool)
        score = 2 + (2 if category != "other" else 0) + (1 if _MARKED.search(stripped) else 0)
        if _SUMMARY.search(stripped):
            score = 1
        found.append(
            BuildError(
                message=message,
                category=category,
                tool=tool or "build",
                log_line=index,
                specificity=score,
            )
        )
    if not found:
        return []
    best = sorted(found, key=lambda e: (-e.specificity, e.log_line or 0))[:_MAX_ERRORS]
    return sorted(best, key=lambda e: e.log_line or 0)


# The step that failed, in each tool's words: Gradle's task, Maven's goal, an npm script, the
# part of a pip install that failed, a make target, a CI step's command.
_STEP = (
    re.compile(r"Execution failed for task '(?P<step>[^']+)'"),
    re.compile(r"^> Task (?P<step>\S+) FAILED"),
    re.compile(r"Failed to execute goal (?P<step>\S+(?: \([^)]*\))? on project \S+?):? "),
    re.compile(r"(?:Lifecycle script|Script) [`'\"](?P<step>[^`'\"]+)[`'\"] (?:failed|exited)"),
    re.compile(r"npm (?:ERR!|error) (?:[^@\s]*@\S+ )?(?P<step>\w[\w:-]*): `"),
    re.compile(r"^\s*× (?P<step>.+?) did not run successfully"),
    re.compile(r"make(?:\[\d+\])?: \*\*\* \[(?P<step>[^\]]+)\] Error"),
    re.compile(r"Command failed(?: with exit code \d+)?: (?P<step>.+)"),
)
_MAX_STEP = 120


def failed_step(lines: list[str]) -> str | None:
    """The task, goal, script or command the log says failed (the last one named), or None."""
    for text in lines[::-1][:_SCAN_LINES]:
        for pattern in _STEP:
            if found := pattern.search(text):
                return found["step"].strip()[:_MAX_STEP]
    return None


def name_what_it_saw(lines: list[str], root: BuildError) -> None:
    """Make an unclassified root error say what failed and the first line that reads like an error.

    An `other` is the analyzer's admission that no rule knows the failure; it still names what it
    saw, so a reader (or an agent) knows where to look: `task ':app:bundle': <error line>`. A root
    that is only a summary ("BUILD FAILED", pip's "subprocess-exited-with-error") gives way to the
    first line of the log that reads like an error.
    """
    message = root.message
    step = failed_step(lines)
    if root.specificity <= SUMMARY_MAX:
        seen = [
            e for e in scan(lines, None)
            if e.specificity > 1 and e.log_line != root.log_line and not (step and step in e.message)
        ]  # fmt: skip
        if seen:
            message, root.log_line = seen[0].message, seen[0].log_line
    if step and step not in message:
        message = f"{step}: {message}"
    root.message = message[:_MAX_MESSAGE]
