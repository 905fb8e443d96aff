"""Grading as pure functions: what makes an instance valid, how hard it is, whether an attempt resolved it.

No I/O and no builds: callers (bench validation, curation filters, the harness, the reports) run
the builds and read the files, then ask here.

- **Validity.** An instance is valid when its failing state fails the same way in every repeat
  (same status and category: one *build outcome*), that way being a failure of the recorded
  category, and its gold patch builds in every repeat.
- **Difficulty.** Lines changed, cut at `TIER_LIMITS` (inclusive upper bounds); histograms of
  change size cut at `SIZE_EDGES`, which contain every tier limit, with the same rule
  (`size_bin`), so a tier is always a whole number of histogram bins.
- **Verdict.** An attempt resolved its instance when the harness's own build succeeded; what the
  agent said does not count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

# --- the verdict ----------------------------------------------------------------------------------

SUCCESS = "success"
FAILURE = "failure"


def is_resolved(status: str) -> bool:
    """Whether an attempt whose verdict build (the harness's own) ended with `status` resolved it."""
    return status == SUCCESS


# --- difficulty -----------------------------------------------------------------------------------

# Tiers by lines changed (Table 11 of the study): each holds the sizes above the previous limit up
# to its own, inclusive; the last has no limit.
TIER_LIMITS: tuple[tuple[str, int | None], ...] = (
    ("trivial", 10),
    ("small", 100),
    ("medium", 1000),
    ("large", None),
)
TIERS: tuple[str, ...] = tuple(name for name, _ in TIER_LIMITS)
# Histogram bin edges (log-spaced, two per decade); every tier limit is one of them.
SIZE_EDGES: tuple[int, ...] = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)


def size_bin(value: float, limits: Sequence[float]) -> int:
    """Index of the bin holding `value`: bin i is (limits[i-1], limits[i]]; the first has no lower bound.

    Args:
        value: A size (lines changed).
        limits: Increasing inclusive upper bounds; values above the last fall in bin len(limits).
    """
    return sum(1 for limit in limits if value > limit)


def difficulty(lines_changed: float) -> str:
    """The tier of a change of this many lines: trivial 1-10, small 11-100, medium 101-1000, large."""
    limits = [limit for _, limit in TIER_LIMITS if limit is not None]
    return TIERS[size_bin(lines_changed, limits)]


def tier_range(name: str) -> str:
    """The lines a tier holds, in words: `1–10`, `11–100`, `101–1000`, `>1000`."""
    low = 1
    for tier, limit in TIER_LIMITS:
        if tier == name:
            return f"{low}–{limit}" if limit is not None else f">{low - 1}"
        low = (limit or 0) + 1
    raise ValueError(f"unknown tier {name!r} (known: {', '.join(TIERS)})")


def histogram_edges(largest: float) -> list[float]:
    """The `SIZE_EDGES` a histogram of sizes up to `largest` needs: from 1 to the first edge >= largest.

    Bins are (edges[i], edges[i+1]], the first also holding everything below it (see `size_bin`
    with `edges[1:-1]`). Beyond the last standard edge the top edge is `largest` itself.
    """
    edges: list[float] = [e for e in SIZE_EDGES if e < largest] or [SIZE_EDGES[0]]
    top = next((e for e in SIZE_EDGES if e >= largest and e > edges[-1]), None)
    edges.append(top if top is not None else max(math.ceil(largest), int(edges[-1]) + 1))
    return edges


def bin_range(edges: Sequence[float], index: int) -> str:
    """The whole numbers of lines bin `index` holds: `1–3`, `4–10`, `11–30` ..."""
    low = 1 if index == 0 else int(edges[index]) + 1
    return f"{low}–{edges[index + 1]:.0f}"


# --- validity -------------------------------------------------------------------------------------


class Build(Protocol):
    """What grading needs of one build: its status and failure category."""

    @property
    def status(self) -> str:
        """success, failure, timeout or error."""

    @property
    def category(self) -> str | None:
        """The failure's category (None on success)."""


def build_outcome(build: Build) -> str:
    """`status` or `status/category`: what must be the same in every repeat."""
    return f"{build.status}/{build.category}" if build.category else build.status


# Why a stage does not count: its outcome changed between repeats, the failing state built, it
# failed with another category, it ended otherwise than failing (timeout, error), the fixed state
# did not build, or not every repeat ran.
FLAKY = "flaky"
BUILDS = "builds"
OTHER_CATEGORY = "other_category"
NOT_FAILURE = "not_failure"
NOT_SUCCESS = "not_success"
INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class ValidityFinding:
    """Why an instance is not valid, as data (callers word it).

    Attributes:
        stage: `base` (the failing state) or `gold` (with the gold patch applied).
        kind: FLAKY, BUILDS, OTHER_CATEGORY, NOT_FAILURE, NOT_SUCCESS or INCOMPLETE.
        seen: The stage's build outcomes, one per repeat, in order.
    """

    stage: str
    kind: str
    seen: tuple[str, ...]


def base_finding(builds: Sequence[Build], category: str | None = None) -> ValidityFinding | None:
    """None when the failing state fails the same way in every repeat, as a failure of `category`.

    Args:
        builds: Its builds, one per repeat (none: nothing to judge, None).
        category: The recorded category; None accepts any, as long as it is always the same.
    """
    seen = tuple(build_outcome(b) for b in builds)
    if not seen:
        return None
    if len(set(seen)) > 1:
        return ValidityFinding("base", FLAKY, seen)
    first = builds[0]
    if first.status == SUCCESS:
        return ValidityFinding("base", BUILDS, seen)
    if first.status != FAILURE:
        return ValidityFinding("base", NOT_FAILURE, seen)
    if category is not None and first.category != category:
        return ValidityFinding("base", OTHER_CATEGORY, seen)
    return None


def gold_finding(builds: Sequence[Build]) -> ValidityFinding | None:
    """None when the fixed state (gold patch applied) builds in every repeat."""
    seen = tuple(build_outcome(b) for b in builds)
    if not seen:
        return None
    if len(set(seen)) > 1:
        return ValidityFinding("gold", FLAKY, seen)
    if builds[0].status != SUCCESS:
        return ValidityFinding("gold", NOT_SUCCESS, seen)
    return None


def validity(
    base: Sequence[Build], gold: Sequence[Build], category: str | None, repeats: int
) -> list[ValidityFinding]:
    """Every reason the instance is not valid; empty when it is.

    Args:
        base: Builds of the failing state, one per repeat.
        gold: Builds with the gold patch applied, one per repeat.
        category: The recorded category (None: any, the same every time).
        repeats: Builds each stage needed; fewer (and nothing else wrong) is INCOMPLETE.
    """
    findings = [f for f in (base_finding(base, category), gold_finding(gold)) if f is not None]
    if not findings and (len(base) < repeats or len(gold) < repeats):
        stage, builds = ("base", base) if len(base) < repeats else ("gold", gold)
        findings.append(ValidityFinding(stage, INCOMPLETE, tuple(build_outcome(b) for b in builds)))
    return findings
