"""What a curation run did: the one tally the progress line, the printed summary and `--json` all show.

Candidates are counted by their standing in the state file (a candidate resumed from an earlier
run counts as it stands there), so a rerun of the same command reports the same kept and rejected
numbers. States are counted once each, by cache key: `built` when this run ran at least one of its
builds (`succeeded` when every build of it returned success, `failed` otherwise), `cached` when
the build-result cache answered every request for it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from buildfixer.curate.builds import merge_state
from buildfixer.curate.filters import FILTERS

# The order rejections are shown in: the filters, then a candidate whose commit cannot be read, then
# any other error.
REJECTIONS = (*FILTERS, "unreadable", "error")


@dataclass
class Summary:
    """What a curation run did (counts of this run's candidates and of the states it asked for)."""

    mode: str
    repo: str
    candidates: int = 0
    evaluated: int = 0  # candidates run through the filters in this run (others were resumed)
    accepted: int = 0  # kept: in the dataset
    rejected: dict[str, int] = field(default_factory=dict)  # by filter, `duplicate` included
    states_built: int = 0  # states (cache keys) this run built, at least one build each
    states_succeeded: int = 0  # ... every build of which succeeded
    states_failed: int = 0  # ... some build of which did not (failure, timeout, error)
    states_cached: int = 0  # states the cache alone answered
    builds_run: int = 0  # builds run, repeats included
    duration_s: float = 0.0
    instances_in_file: int = 0
    # Commits skipped because git cannot read them or their files (a partial or shallow clone,
    # a damaged object): commit -> git's reason. Skipped before they are candidates; a candidate
    # whose commit cannot be read is rejected as `unreadable` instead.
    unreadable: dict[str, str] = field(default_factory=dict)
    # How the branch commits built before the filters failed (human mode): reason -> commits. One
    # reason for most of them is the environment, not the history (Java 6 sources on JDK 17).
    failures: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the user may do about an empty run
    _states: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def resumed(self) -> int:
        """Candidates whose outcome came from the state file."""
        return self.candidates - self.evaluated

    @property
    def cache_hits(self) -> int:
        """States the cache answered (the name older callers use)."""
        return self.states_cached

    @property
    def hit_rate(self) -> float:
        """Share of the states asked for that the cache answered."""
        asked = self.states_cached + self.states_built
        return self.states_cached / asked if asked else 0.0

    def count(self, stats: dict[str, Any]) -> None:
        """Add one job's build requests (a CacheStats as a dict)."""
        self.builds_run += stats.get("builds", 0)
        for key, kind in stats.get("states", {}).items():
            self._states[key] = merge_state(self._states.get(key), kind)
        kinds = list(self._states.values())
        self.states_succeeded, self.states_failed = kinds.count("succeeded"), kinds.count("failed")
        self.states_built = self.states_succeeded + self.states_failed
        self.states_cached = kinds.count("cached")

    def tally(self, row: dict[str, Any] | None, sign: int) -> None:
        """Add (`sign` 1) or take back (-1) one candidate's standing (a state-file row)."""
        if row is None:
            return
        if row["accepted"]:
            self.accepted += sign
            return
        name = row.get("filter") or "error"
        counts = {**self.rejected, name: self.rejected.get(name, 0) + sign}
        order = [*REJECTIONS, *sorted(set(counts) - set(REJECTIONS))]
        self.rejected = {f: counts[f] for f in order if counts.get(f)}

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the hit rate."""
        data = asdict(self)
        data.pop("_states")
        return {**data, "resumed": self.resumed, "hit_rate": round(self.hit_rate, 3),
                "duration_s": round(self.duration_s, 1)}  # fmt: skip

    def text(self, out: object) -> str:
        """The human form (two lines, a third naming skipped commits); `out` is the dataset's path."""
        rejected = ", ".join(f"{name} {n}" for name, n in self.rejected.items()) or "none"
        text = (
            f"kept {self.accepted} of {self.candidates} candidate(s) ({self.evaluated} evaluated now, "
            f"{self.resumed} resumed); rejected: {rejected}\n"
            f"states: {self.states_built} built ({self.states_succeeded} succeeded, "
            f"{self.states_failed} failed), {self.states_cached} from cache "
            f"(hit rate {self.hit_rate:.0%}); {self.builds_run} build(s) run, {self.duration_s:.0f} s; "
            f"{self.instances_in_file} instance(s) in {out}"
        )
        if self.failures:
            total = sum(self.failures.values())
            reason, count = max(self.failures.items(), key=lambda item: item[1])
            text += f"\n{count} of the {total} branch commit(s) that failed to build failed so: {reason}"
        for note in self.notes:
            text += f"\nnote: {note}"
        if self.unreadable:
            skipped = "; ".join(f"{sha[:12]} ({why[:200]})" for sha, why in self.unreadable.items())
            text += f"\nskipped {len(self.unreadable)} commit(s) git cannot read: {skipped}"
        return text
