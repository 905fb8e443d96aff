"""The log-analysis pipeline: clean, parse, classify, rank.

`analyze_text` runs every parser whose trigger occurs in the cleaned log, fills
in categories parsers left open, merges duplicates and puts the root error
first. The category of the whole log is the root error's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.core.build_result import CATEGORIES, BuildError
from buildfixer.logs import fallback
from buildfixer.logs.named_path import named_path
from buildfixer.logs.parsers import all_parsers
from buildfixer.logs.rank import rank
from buildfixer.logs.taxonomy import classify
from buildfixer.logs.text import clean_log, read_log
from buildfixer.logs.window import window_text

_log = logging.getLogger(__name__)

# Substrings that hint at each build system, with weights: markers only one tool
# prints weigh more than words any log may contain. Presence, not counts, is
# scored, so a 10 MB log costs a few substring searches per marker.
_MARKERS: dict[str, tuple[tuple[str, int], ...]] = {
    "gradle": (
        ("> Task :", 3),
        ("* What went wrong:", 3),
        ("BUILD SUCCESSFUL in", 3),
        ("BUILD FAILED in", 3),
        ("actionable task", 3),
        ("Starting a Gradle Daemon", 3),
        ("Deprecated Gradle features", 3),
        ("gradlew", 2),
        (":compileJava", 2),
        ("build.gradle", 2),
        ("Gradle", 1),
    ),
    "maven": (
        ("[INFO] Scanning for projects", 4),
        ("[INFO] BUILD FAILURE", 4),
        ("[INFO] BUILD SUCCESS", 4),
        ("Failed to execute goal", 3),
        ("--- maven-", 2),
        ("Apache Maven", 2),
        ("[Help 1]", 2),
        ("pom.xml", 1),
        ("[INFO] Building ", 2),
    ),
    "npm": (
        ("npm ERR!", 4),
        ("npm error", 4),
        ("npm WARN", 3),
        ("npm warn", 3),
        ("node_modules", 1),
        ("package.json", 1),
        ("yarn run", 2),
        ("pnpm", 1),
        # Front-end build tools that npm scripts run.
        ("webpack", 2),
        ("vite v", 2),
        ("ng build", 2),
        ("react-scripts", 2),
        ("Node.js v", 2),
        # JavaScript test runners and pnpm's script failure.
        ("vitest", 2),
        ("error TS", 2),
        ("ELIFECYCLE", 3),
    ),
    "python": (
        ("test session starts", 4),
        ("short test summary info", 4),
        ("subprocess-exited-with-error", 3),
        ("Traceback (most recent call last)", 2),
        ("pip install", 2),
        ("Successfully installed", 2),
        ("Building wheel", 2),
        ("site-packages", 1),
        ("pytest", 2),
        ("setup.py", 2),
        ("pyproject.toml", 1),
        ("ModuleNotFoundError", 1),
        ("Could not find a version that satisfies the requirement", 4),
        ("No matching distribution found", 4),
        ("Looking in indexes", 3),
        ("Looking in links", 3),
        ("Requirement already satisfied", 3),
        ("*** Error compiling", 3),
        ('.py", line ', 3),
        ("Collecting ", 1),
        # uv and poetry.
        ("Using CPython", 3),
        ("uv pip", 2),
        ("uv sync", 2),
        ("poetry install", 2),
        ("Python requirement", 2),
        ("requires-python", 2),
    ),
}
# Specificity up to which an unclassified error leaves room for the fallback scan.
_WEAK = 4
# Errors ranked at most. A flood of error-looking lines must not cost a classification and
# a comparison each; the most specific ones, earliest first, are the candidates for the root.
MAX_ERRORS = 300
_EDGE_LINES = 3000
_EDGE_CHARS = 256 * 1024
# The last of these in a log is the build's verdict.
_SUCCESS = ("BUILD SUCCESSFUL", "[INFO] BUILD SUCCESS")
_FAILURE = ("BUILD FAILED", "[INFO] BUILD FAILURE", "FAILURE: Build failed", "FAILURE: Build completed")


@dataclass
class Analysis:
    """What a build log says: its errors (root first), category and build system.

    `lines` are the cleaned log lines that `BuildError.log_line` indexes.
    """

    errors: list[BuildError]
    category: str | None
    build_system: str | None
    lines: list[str] = field(repr=False)

    @property
    def root(self) -> BuildError | None:
        """The error most likely to be the cause of the failure."""
        return self.errors[0] if self.errors else None

    def to_dict(self) -> dict[str, Any]:
        """The contract form: `{"errors": [...], "category": ..., "build_system": ...}`."""
        return {
            "errors": [e.to_dict() for e in self.errors],
            "category": self.category,
            "build_system": self.build_system,
        }


def build_system_of_log(lines: list[str]) -> str | None:
    """Guess which build system wrote a log.

    Args:
        lines: the (cleaned) log lines.

    Returns:
        "gradle", "maven", "python" or "npm", or None when no marker occurs.
    """
    # Markers sit near the start (banners, first tasks) and the end (verdict);
    # looking only there keeps a 10 MB log cheap.
    text = "\n".join(lines[:_EDGE_LINES] + lines[-_EDGE_LINES:])
    scores = {name: sum(w for marker, w in markers if marker in text) for name, markers in _MARKERS.items()}
    best = max(scores, key=lambda name: scores[name])  # ties: dict order, gradle first
    return best if scores[best] > 0 else None


def _succeeded(text: str) -> bool:
    """True when the log's last verdict line says the build succeeded."""
    text = text[-_EDGE_CHARS:]
    last_success = max(text.rfind(marker) for marker in _SUCCESS)
    last_failure = max(text.rfind(marker) for marker in _FAILURE)
    return last_success > last_failure


def _run_parsers(lines: list[str], text: str) -> list[BuildError]:
    found: list[BuildError] = []
    for parser in all_parsers():
        if not parser.applies_to(text):
            continue
        try:
            found.extend(parser.parse(lines))
        except Exception:  # a parser bug must not hide what the other parsers found
            _log.warning("log parser %r failed; its errors are skipped", parser.name, exc_info=True)
    return found


def _most_specific(errors: list[BuildError]) -> list[BuildError]:
    """At most MAX_ERRORS errors: the most specific, earliest first among equals."""
    if len(errors) <= MAX_ERRORS:
        return errors

    def most_specific_first(error: BuildError) -> tuple[int, int]:
        return -error.specificity, 1 << 62 if error.log_line is None else error.log_line

    return sorted(errors, key=most_specific_first)[:MAX_ERRORS]


def analyze_text(text: str) -> Analysis:
    """Analyze a build log given as text; a huge one through its head and tail (logs.window).

    Args:
        text: the raw log (ANSI codes and progress noise are removed here).

    Returns:
        The Analysis; a successful build's log has no errors and category None.
    """
    return _analyze(window_text(text))


def _analyze(text: str) -> Analysis:
    """Analyze a log of bounded size (a window of it when it was long)."""
    lines = clean_log(text).lines
    joined = "\n".join(lines)
    build_system = build_system_of_log(lines)
    if _succeeded(joined):
        return Analysis(errors=[], category=None, build_system=build_system, lines=lines)
    errors = _run_parsers(lines, joined)
    if all(e.category == "other" and e.specificity <= _WEAK for e in errors):
        # Nothing, or only wrappers such as "Process 'command node' finished with
        # non-zero exit value 1": the cause is in a tool's output no parser knows.
        errors += fallback.scan(lines, build_system)
    errors = _most_specific(errors)
    for error in errors:
        if error.category not in CATEGORIES or error.category == "other":
            error.category = classify(error.message, error.tool)
    ranked = rank(errors)
    category = ranked[0].category if ranked else None
    if category == "other":
        fallback.name_what_it_saw(lines, ranked[0])
    if ranked and ranked[0].file is None and (named := named_path(ranked[0].message)):
        ranked[0].file, ranked[0].line = named  # a path the message names in prose
    return Analysis(errors=ranked, category=category, build_system=build_system, lines=lines)


def analyze_file(path: str | Path, *, strict: bool = True) -> Analysis:
    """Analyze a saved build log; a huge one through its head and tail, read without the middle.

    Args:
        path: the log file.
        strict: reject a file that is not a text log (see `read_log`); False for a
            build's own output, analyzed whatever bytes it holds.

    Returns:
        The Analysis of its text.

    Raises:
        BuildfixerError: the file is missing, unreadable or (strict) not a text log.
    """
    return _analyze(read_log(path, strict=strict))  # already windowed: read without the middle
