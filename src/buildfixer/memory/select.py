"""The selector: which remembered fixes to offer for an error, best first.

Relevance (BM25 of the error's words, normalised to the best hit) weighed with the entry's
record: its success rate when offered before (Laplace-smoothed, so a new entry starts at one
half) and whether it fixed an error of the same category.
"""

from __future__ import annotations

import re

from buildfixer.memory.store import Entry

RELEVANCE, SUCCESS, SAME_CATEGORY = 0.6, 0.3, 0.1
# BM25 ranks whatever shares a rare word; a fix is offered for an error only when their texts
# share this part of the shorter one's words (the overlap coefficient).
MIN_OVERLAP = 0.4


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z0-9]{2,}", text.lower()))


def overlap(a: str, b: str) -> float:
    """Shared words over the words of the shorter text (0 when either has none)."""
    left, right = _words(a), _words(b)
    return len(left & right) / min(len(left), len(right)) if left and right else 0.0


def relevant(hits: list[Entry], error: str) -> list[Entry]:
    """The hits whose error shares enough words with `error` to be the same kind of failure."""
    return [hit for hit in hits if hit.kind == "note" or overlap(hit.error, error) >= MIN_OVERLAP]


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
