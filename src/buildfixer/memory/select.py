"""The selector: which remembered fixes to offer for an error, best first.

Relevance (BM25 of the error's words, normalised to the best hit) weighed with the entry's
record: its success rate when offered before (Laplace-smoothed, so a new entry starts at one
half) and whether it fixed an error of the same category.
"""

from __future__ import annotations

import re

from buildfixer.memory.store import Entry, content_words

RELEVANCE, SUCCESS, SAME_CATEGORY = 0.6, 0.3, 0.1
# BM25 ranks whatever shares a rare word; a fix is offered for an error only when their texts
# share this part of the shorter one's words (the overlap coefficient).
MIN_OVERLAP = 0.4
_NAMES = re.compile(r"\b\w*(?:_|[a-z][A-Z])\w*\b")  # snake_case and camelCase names
_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(text: str) -> set[str]:
    """Content words, and the parts of compound names (`test_mean` counts as `mean` too).

    An error naming the test then matches a question naming the method it tests.
    """
    words = set(content_words(text))
    parts = {p.lower() for w in _NAMES.findall(text) for p in _PART.findall(w) if len(p) > 2}
    return words | set(content_words(" ".join(parts)))


def same_kind(a: str, b: str) -> bool:
    """Whether two errors share enough words to be the same kind of failure.

    A part of the shorter one's words (MIN_OVERLAP), and two words at least when it has two: one
    word in common ("find" in "cannot find symbol" and "could not find a version") is chance.
    """
    left, right = _words(a), _words(b)
    shorter = min(len(left), len(right))
    shared = len(left & right)
    return shorter > 0 and shared >= min(2, shorter) and shared / shorter >= MIN_OVERLAP


def relevant(hits: list[Entry], error: str) -> list[Entry]:
    """The hits whose error is of the same kind as `error` (`same_kind`); notes always."""
    return [hit for hit in hits if hit.kind == "note" or same_kind(hit.error, error)]


def rank_hits(hits: list[Entry], category: str | None = None) -> list[Entry]:
    """`hits` ordered by relevance, past success and category, best first."""
    if not hits:
        return []
    best = max(hit.score for hit in hits) or 1.0

    def merit(hit: Entry) -> float:
        success = (hit.successes + 1) / (hit.uses + 2)
        same = 1.0 if category and hit.category == category else 0.0
        return RELEVANCE * hit.score / best + SUCCESS * success + SAME_CATEGORY * same

    return sorted(hits, key=merit, reverse=True)
