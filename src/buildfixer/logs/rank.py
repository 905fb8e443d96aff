"""Merge duplicate errors and put the root cause first.

Build tools repeat themselves: Maven prints every compiler error twice, Gradle
wraps compiler errors in "Compilation failed; see the compiler error output",
and a summary ("There were failing tests") follows the specific failures. The
ranking keeps one copy of each error, drops summaries that only point at a more
specific error, and orders by specificity (how much an error says about its
cause), then by position: the first error of a cascade is usually the cause of
the later ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from buildfixer.core.build_result import BuildError

# Errors up to this specificity only point elsewhere ("Compilation failed",
# "There are test failures", "BUILD FAILED"); from SPECIFIC on they name a cause.
SUMMARY_MAX = 2
SPECIFIC_MIN = 5

# Tools whose reports wrap other tools' messages, and the shortest quoted message
# taken as evidence of wrapping (shorter ones, like "error", match by chance).
_WRAPPING_TOOLS = frozenset({"gradle", "maven"})
_MIN_QUOTED = 20

# Starting only where blanks start: the same matches, without rescanning a run of blanks.
_HELP = re.compile(r"(?<!\s)\s*-> \[help \d+\]")
_SPACE = re.compile(r"\s+")
_SIMILAR = 0.6  # word overlap (Jaccard) above which two messages are the same error


def normalize_message(message: str) -> str:
    """A comparison key for messages: case, spacing and Maven's help links ignored."""
    text = _SPACE.sub(" ", _HELP.sub("", message.lower())).strip()
    return text.rstrip(".:; ")


def _words(message: str) -> set[str]:
    """The words of an error message, without numbers (line numbers and versions move)."""
    return set(re.findall(r"[a-z_][a-z_.]{2,}", message.lower()))


def similar(a: BuildError, b: BuildError) -> bool:
    """Whether two errors are the same failure: same category and file, mostly the same words.

    The repair loop's test of "the same error remained" and triage's of "it fails the same way"
    (a rerun, the base commit).
    """
    if a.category != b.category or (a.file or "") != (b.file or ""):
        return False
    left, right = _words(a.message), _words(b.message)
    if not left and not right:
        return True
    return len(left & right) / len(left | right) >= _SIMILAR


def _key(error: BuildError) -> tuple[str, int | None, str]:
    file = (error.file or "").replace("\\", "/")
    return (file, error.line, normalize_message(error.message))


def _position(error: BuildError) -> int:
    return error.log_line if error.log_line is not None else 1 << 62


def dedupe(errors: Iterable[BuildError]) -> list[BuildError]:
    """Keep one error per (file, line, normalized message).

    The kept copy is the earliest one in the log, with the highest specificity
    any copy had (Maven's second copy may come from a different parser path).
    """
    kept: dict[tuple[str, int | None, str], BuildError] = {}
    for error in sorted(errors, key=_position):
        key = _key(error)
        first = kept.get(key)
        if first is None:
            kept[key] = error
        elif error.specificity > first.specificity:
            first.specificity = error.specificity
            if first.column is None:
                first.column = error.column
    return list(kept.values())


def _is_covered(summary: BuildError, specific: list[BuildError]) -> bool:
    """True when a summary error adds nothing beyond the specific errors.

    A summary is covered by a specific error of the same category, by any
    specific error that precedes it (wrappers come after what they wrap), and,
    when the summary names no category, by any specific error at all.
    """
    for error in specific:
        if error.category == summary.category or summary.category == "other":
            return True
        if _position(error) < _position(summary):
            return True
    return False


def _drop_wrappers(errors: list[BuildError]) -> list[BuildError]:
    """Drop build-tool reports that only repeat another tool's error inside their own words.

    Gradle's "Execution failed for task ... > <cause>" quotes the message an
    Android, Kotlin or NDK parser reports on its own, in that tool's name and
    often with a location; the quoted copy is the same cause and goes.
    """
    wrappers = [e for e in errors if e.tool in _WRAPPING_TOOLS]
    inner = [e for e in errors if e.tool not in _WRAPPING_TOOLS]
    if not wrappers or not inner:
        return errors
    inner_keys = {normalize_message(e.message) for e in inner}
    inner_keys = {k for k in inner_keys if len(k) >= _MIN_QUOTED}
    dropped: set[int] = set()
    for wrapper in wrappers:
        text = normalize_message(wrapper.message)
        if any(key in text and key != text for key in inner_keys):
            dropped.add(id(wrapper))
    return [e for e in errors if id(e) not in dropped]


def rank(errors: Iterable[BuildError]) -> list[BuildError]:
    """Deduplicate errors and order them root cause first.

    Args:
        errors: errors from all parsers, in any order.

    Returns:
        Distinct errors, most specific first, earliest first among equals.
    """
    distinct = _drop_wrappers(dedupe(errors))
    specific = [e for e in distinct if e.specificity >= SPECIFIC_MIN]
    if specific:
        distinct = [e for e in distinct if e.specificity > SUMMARY_MAX or not _is_covered(e, specific)]
    return sorted(distinct, key=lambda e: (-e.specificity, _position(e)))
