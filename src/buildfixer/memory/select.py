"""The selector: which remembered fixes to offer for an error, best first.

Relevance (BM25 of the error's words, normalised to the best hit) weighed with the entry's
record: its success rate when offered before (Laplace-smoothed, so a new entry starts at one
half) and whether it fixed an error of the same category.
"""

from __future__ import annotations

from buildfixer.memory.store import Entry

RELEVANCE, SUCCESS, SAME_CATEGORY = 0.6, 0.3, 0.1


def rank(hits: list[Entry], category: str | None = None) -> list[Entry]:
    """`hits` ordered by relevance, past success and category, best first."""
    if not hits:
        return []
    best = max(hit.score for hit in hits) or 1.0

    def merit(hit: Entry) -> float:
        success = (hit.successes + 1) / (hit.uses + 2)
        same = 1.0 if category and hit.category == category else 0.0
        return RELEVANCE * hit.score / best + SUCCESS * success + SAME_CATEGORY * same

    return sorted(hits, key=merit, reverse=True)
