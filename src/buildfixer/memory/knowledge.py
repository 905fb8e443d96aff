"""`ask_for_help` answered from the fix memory (a `tools.context.KnowledgeBase`).

In a benchmark the memory is read as the instance's world was: only entries made before its
`created_at`, never its own, never a test split (`Horizon`). Only entries of the trust domains
the repair allows are offered at all, for replay or as text (`memory.trust`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from buildfixer.memory.select import rank_hits, relevant
from buildfixer.memory.store import Entry, FixMemory
from buildfixer.memory.trust import DEFAULT_TRUST, allowed_origins

_TOP = 3
_PATCH_CHARS = 2_500


@dataclass(frozen=True)
class Horizon:
    """What a reader of the memory may see: entries before `as_of`, not those of `instance_id`."""

    as_of: str | None = None
    instance_id: str | None = None


class MemoryKnowledgeBase:
    """Past fixes of similar errors, most relevant and most successful first."""

    def __init__(
        self, path: Path, build_system: str | None = None, horizon: Horizon = Horizon(), *,
        domain: str | None = None, trust: str = DEFAULT_TRUST, counts: bool = True,
    ) -> None:  # fmt: skip
        """Read the memory at `path` (opened per question: it may be written meanwhile).

        Args:
            path: The database.
            build_system: Only this build system's entries (and notes).
            horizon: A benchmark instance's view (nothing after it, not its own).
            domain: The trust domain of the repository being repaired (None: unknown).
            trust: Whose entries it takes (`memory.trust.TRUST_LEVELS`).
            counts: Whether offers and successes are counted into the database (`record_use`).
        """
        self.path = path
        self.build_system = build_system
        self.horizon = horizon
        self.domain = domain
        self.trust = trust
        self.origins = allowed_origins(trust, domain)
        self.counts = counts

    def allows(self, entry: Entry) -> bool:
        """Whether the entry's trust domain is one this repair takes code and text from."""
        return self.origins is None or entry.origin in self.origins

    def candidates(
        self, error: str, category: str | None = None, limit: int = _TOP, context: str = ""
    ) -> list[Entry]:
        """Remembered fixes for an error, best first (relevance, past success, same category).

        Args:
            error: The error to fix; a fix is offered only when its error shares enough words.
            category: The error's category (the selector prefers fixes of the same one).
            limit: At most this many.
            context: More of the log (the build's other errors) to search by.
        """
        with FixMemory(self.path) as memory:
            hits = memory.search(
                f"{error}\n{context}", limit=limit * 3, build_system=self.build_system,
                as_of=self.horizon.as_of, exclude_instance=self.horizon.instance_id, origins=self.origins,
            )  # fmt: skip
        return rank_hits(relevant(hits, error), category)[:limit]

    def record_use(self, entry_id: int, succeeded: bool) -> None:
        """Count that a fix was offered, and whether the repair it led to worked.

        Not in a benchmark (a horizon is set) nor in the environment (`counts` false): counts
        learned on evaluated instances would steer the selector on the others.
        """
        if not self.counts or self.horizon.as_of or self.horizon.instance_id:
            return
        with FixMemory(self.path) as memory:
            memory.record_use(entry_id, succeeded)

    def answer(self, question: str) -> str:
        """The best remembered fixes for the question (an error message), with their patches."""
        best = self.candidates(question)
        if not best:
            return "the fix memory has nothing that matches the question"
        parts = [f"## {hit.render(_PATCH_CHARS, self.domain)}" for hit in best]
        return f"{len(best)} past fix(es) of similar errors:\n\n" + "\n\n".join(parts)
