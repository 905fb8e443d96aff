"""Grading rules, each pinned at its boundaries: validity, tiers and histogram bins, the verdict."""

from dataclasses import dataclass

import pytest

from buildfixer.harness import grading
from buildfixer.harness.grading import (
    BUILDS,
    FLAKY,
    INCOMPLETE,
    NOT_FAILURE,
    NOT_SUCCESS,
    OTHER_CATEGORY,
    ValidityFinding,
    base_finding,
    bin_range,
    build_outcome,
    difficulty,
    gold_finding,
    histogram_edges,
    is_resolved,
    size_bin,
    tier_range,
    validity,
)


@dataclass
class B:
    status: str
    category: str | None = None


FAIL = B("failure", "syntax")
OK = B("success")


# --- the verdict ----------------------------------------------------------------------------------


def test_resolved_only_when_the_harness_build_succeeds() -> None:
    assert is_resolved("success")
    assert [is_resolved(s) for s in ("failure", "timeout", "error", "")] == [False] * 4


# --- validity -------------------------------------------------------------------------------------


def test_outcome_is_status_and_category() -> None:
    assert build_outcome(FAIL) == "failure/syntax"
    assert build_outcome(OK) == "success"
    assert build_outcome(B("timeout")) == "timeout"


def test_a_valid_instance_has_no_finding() -> None:
    assert validity([FAIL, FAIL], [OK, OK], "syntax", 2) == []
    assert validity([FAIL], [OK], None, 1) == []  # no recorded category: any, the same each time


def test_the_failing_state_must_fail_the_same_way_every_time() -> None:
    other = B("failure", "configuration")
    assert base_finding([FAIL, other]) == ValidityFinding(
        "base", FLAKY, ("failure/syntax", "failure/configuration")
    )
    assert base_finding([FAIL, OK], "syntax") == ValidityFinding("base", FLAKY, ("failure/syntax", "success"))
    assert base_finding([OK, OK], "syntax") == ValidityFinding("base", BUILDS, ("success", "success"))
    assert base_finding([B("timeout")], "syntax") == ValidityFinding("base", NOT_FAILURE, ("timeout",))
    assert base_finding([B("error")]) == ValidityFinding("base", NOT_FAILURE, ("error",))
    assert base_finding([other], "syntax") == ValidityFinding(
        "base", OTHER_CATEGORY, ("failure/configuration",)
    )
    assert base_finding([other, other]) is None  # curation records whatever category it is
    assert base_finding([]) is None


def test_the_gold_patch_must_build_every_time() -> None:
    assert gold_finding([OK, OK]) is None
    assert gold_finding([OK, FAIL]) == ValidityFinding("gold", FLAKY, ("success", "failure/syntax"))
    assert gold_finding([FAIL, FAIL]) == ValidityFinding("gold", NOT_SUCCESS, ("failure/syntax",) * 2)
    assert gold_finding([B("timeout")]) == ValidityFinding("gold", NOT_SUCCESS, ("timeout",))
    assert gold_finding([]) is None


def test_validity_reports_both_stages_then_missing_repeats() -> None:
    both = validity([OK], [FAIL], "syntax", 1)
    assert [(f.stage, f.kind) for f in both] == [("base", BUILDS), ("gold", NOT_SUCCESS)]
    assert validity([FAIL], [OK], "syntax", 2) == [ValidityFinding("base", INCOMPLETE, ("failure/syntax",))]
    assert validity([FAIL, FAIL], [OK], "syntax", 2) == [ValidityFinding("gold", INCOMPLETE, ("success",))]
    assert validity([FAIL], [], "syntax", 1) == [ValidityFinding("gold", INCOMPLETE, ())]
    # Something wrong already says why: no INCOMPLETE on top.
    assert [f.kind for f in validity([OK], [], "syntax", 2)] == [BUILDS]


# --- difficulty: one rule for tiers and histogram bins ---------------------------------------------


def test_tiers_have_inclusive_upper_limits() -> None:
    sizes = (0, 1, 10, 11, 100, 101, 1000, 1001, 10**6)
    assert [difficulty(n) for n in sizes] == [
        "trivial", "trivial", "trivial", "small", "small", "medium", "medium", "large", "large",
    ]  # fmt: skip
    assert difficulty(10.5) == "small"
    assert [tier_range(t) for t in grading.TIERS] == ["1–10", "11–100", "101–1000", ">1000"]
    with pytest.raises(ValueError, match="unknown tier"):
        tier_range("huge")


def test_size_bin_puts_a_limit_in_the_bin_below_it() -> None:
    assert [size_bin(v, [3, 10]) for v in (0, 1, 3, 3.5, 10, 11)] == [0, 0, 0, 1, 1, 2]


def test_every_tier_is_a_whole_number_of_histogram_bins() -> None:
    limits = [limit for _, limit in grading.TIER_LIMITS if limit is not None]
    assert set(limits) <= set(grading.SIZE_EDGES)
    edges = histogram_edges(50_000)
    inner = edges[1:-1]
    for lines in range(0, 3001):
        tier = difficulty(lines)
        index = size_bin(lines, inner)
        # Every size of a bin has the tier of the bin's top: no bin straddles a tier limit.
        assert difficulty(edges[index + 1]) == tier, lines
    # The case the two definitions used to disagree on: 10 lines, Trivial, in the 4-10 bin.
    assert bin_range(edges, size_bin(10, inner)) == "4–10" and difficulty(10) == "trivial"
    assert bin_range(edges, size_bin(11, inner)) == "11–30" and difficulty(11) == "small"


def test_histogram_edges_cover_the_largest_size() -> None:
    assert histogram_edges(2000) == [1, 3, 10, 30, 100, 300, 1000, 3000]
    assert histogram_edges(1000) == [1, 3, 10, 30, 100, 300, 1000]  # 1000 is in the (300, 1000] bin
    assert histogram_edges(1) == [1, 3] and histogram_edges(0) == [1, 3]
    assert histogram_edges(250_000.5)[-2:] == [100_000, 250_001]
    assert [bin_range([1, 3, 10, 30], i) for i in range(3)] == ["1–3", "4–10", "11–30"]
