"""pass@k against hand-computed values, including n < k, and its aggregation."""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buildfixer.reports.passk import aggregate, aggregate_by, ks_for, pass_at_k, tally


def exact(n: int, c: int, k: int) -> float:
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def test_hand_computed_values() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2) = 0.7
    assert pass_at_k(5, 2, 3) == pytest.approx(1 - 1 / 10)  # 1 - C(3,3)/C(5,3)
    assert pass_at_k(5, 2, 4) == 1.0  # any 4 of 5 include a success
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2) = 1 - 3/6


def test_all_and_none_resolved() -> None:
    for n in (1, 2, 7):
        for k in range(1, n + 1):
            assert pass_at_k(n, n, k) == 1.0
            assert pass_at_k(n, 0, k) == 0.0


def test_fewer_attempts_than_k_is_nan() -> None:
    assert math.isnan(pass_at_k(1, 1, 2))
    assert math.isnan(pass_at_k(3, 0, 4))
    assert math.isnan(pass_at_k(0, 0, 1))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        pass_at_k(5, 2, 0)
    with pytest.raises(ValueError):
        pass_at_k(5, 6, 1)
    with pytest.raises(ValueError):
        pass_at_k(5, -1, 1)


def test_large_n_is_stable() -> None:
    assert pass_at_k(10_000, 1, 1) == pytest.approx(1e-4, rel=1e-12)
    # C(1000, 100) has 140 digits: the product form stays exact to float precision.
    assert pass_at_k(1000, 500, 100) == pytest.approx(exact(1000, 500, 100), abs=1e-12)
    assert pass_at_k(100_000, 3, 50) == pytest.approx(exact(100_000, 3, 50), rel=1e-9)
    assert 0.0 <= pass_at_k(100_000, 99_990, 5) <= 1.0


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_matches_the_binomial_formula(args: tuple[int, int, int]) -> None:
    n, c, k = args
    assert pass_at_k(n, c, k) == pytest.approx(exact(n, c, k), abs=1e-12)


def test_ks_for() -> None:
    assert ks_for(0) == []
    assert ks_for(1) == [1]
    assert ks_for(2) == [1, 2]
    assert ks_for(3) == [1, 2, 3]
    assert ks_for(4) == [1, 2, 4]
    assert ks_for(5) == [1, 2, 4, 5]
    assert ks_for(8) == [1, 2, 4, 8]
    assert ks_for(10) == [1, 2, 4, 8, 10]


def test_aggregate_means_and_nan() -> None:
    result = aggregate({"a": (4, 2), "b": (2, 2)}, [1, 2, 4])
    assert result[1] == pytest.approx((0.5 + 1.0) / 2)
    assert result[2] == pytest.approx((5 / 6 + 1.0) / 2)  # a: 1 - C(2,2)/C(4,2) = 5/6
    assert math.isnan(result[4])  # b has only 2 attempts
    assert all(math.isnan(v) for v in aggregate({}, [1, 2]).values())


def test_aggregate_by_groups() -> None:
    counts = {"a": (2, 2), "b": (2, 0), "c": (2, 1), "d": (1, 1)}
    groups = {"a": "human", "b": "human", "c": "llm", "d": "llm"}
    result = aggregate_by(counts, groups, [1, 2])
    assert list(result) == ["human", "llm"]
    assert result["human"] == {1: pytest.approx(0.5), 2: pytest.approx(0.5)}
    assert result["llm"][1] == pytest.approx((0.5 + 1.0) / 2)
    assert math.isnan(result["llm"][2])  # d: one attempt
    assert aggregate_by(counts, {"a": "x"}, [1]) == {"x": {1: 1.0}}  # others left out


def test_tally() -> None:
    assert tally([("a", True), ("b", False), ("a", False), ("a", True)]) == {"a": (3, 2), "b": (1, 0)}
