"""pass@k: the unbiased estimator over per-instance (samples, successes), as pure functions.

For one instance with `n` attempts of which `c` resolved, pass@k = 1 - C(n-c, k) / C(n, k): the chance that
k attempts drawn without replacement from the n include at least one success. A benchmark's pass@k is the
mean over its instances. Where an instance has fewer than k attempts the estimate does not exist: it is
NaN, and so is every mean that includes it (never silently a smaller k).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
G = TypeVar("G", bound=Hashable)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one instance; NaN when it has fewer than k attempts.

    Computed as 1 - prod_{i=n-c+1..n} (1 - k/i), which equals 1 - C(n-c, k)/C(n, k) without the huge
    binomials (stable for any n).

    Args:
        n: Attempts made on the instance.
        c: Attempts that resolved it (0 <= c <= n).
        k: Attempts the metric allows (k >= 1).

    Returns:
        A probability in [0, 1], or NaN when n < k.

    Raises:
        ValueError: k < 1, or c outside [0, n].
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if c < 0 or c > n:
        raise ValueError(f"successes must lie in [0, n]: n={n}, c={c}")
    if n < k:
        return math.nan
    if n - c < k:  # every draw of k contains a success
        return 1.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def ks_for(samples: int) -> list[int]:
    """The k values a report shows for `samples` attempts per instance: 1, 2, 4, ... and samples itself.

    Args:
        samples: Attempts per instance (the largest k that can be estimated).

    Returns:
        Powers of two up to samples, plus samples when it is not one; empty when samples < 1.
    """
    ks: list[int] = []
    k = 1
    while k <= samples:
        ks.append(k)
        k *= 2
    if samples >= 1 and ks[-1] != samples:
        ks.append(samples)
    return ks


def aggregate(per_instance: Mapping[K, tuple[int, int]], ks: Iterable[int]) -> dict[int, float]:
    """Mean pass@k over instances for each k.

    Args:
        per_instance: (n, c) of each instance.
        ks: The k values wanted.

    Returns:
        {k: mean}; NaN for a k that some instance has fewer than k attempts for, and for every k when
        there are no instances.
    """
    counts = list(per_instance.values())
    result: dict[int, float] = {}
    for k in ks:
        if not counts:
            result[k] = math.nan
            continue
        values = [pass_at_k(n, c, k) for n, c in counts]
        result[k] = math.nan if any(math.isnan(v) for v in values) else math.fsum(values) / len(values)
    return result


def aggregate_by(
    per_instance: Mapping[K, tuple[int, int]], group_of: Mapping[K, G], ks: Iterable[int]
) -> dict[G, dict[int, float]]:
    """Mean pass@k per group of instances (origin, category, difficulty tier, configuration ...).

    Args:
        per_instance: (n, c) of each instance.
        group_of: The group of each instance; instances absent from it are left out.
        ks: The k values wanted.

    Returns:
        {group: {k: mean}} for every group that has at least one instance, groups in first-seen order.
    """
    ks = list(ks)
    members: dict[G, dict[K, tuple[int, int]]] = {}
    for key, counts in per_instance.items():
        if key in group_of:
            members.setdefault(group_of[key], {})[key] = counts
    return {group: aggregate(items, ks) for group, items in members.items()}


def tally(outcomes: Iterable[tuple[K, bool]]) -> dict[K, tuple[int, int]]:
    """(n, c) per instance from (instance, resolved) pairs, one pair per attempt.

    Args:
        outcomes: One (instance key, resolved) pair per attempt.

    Returns:
        {instance: (attempts, successes)} in first-seen order.
    """
    counts: dict[K, tuple[int, int]] = {}
    for key, resolved in outcomes:
        n, c = counts.get(key, (0, 0))
        counts[key] = (n + 1, c + int(bool(resolved)))
    return counts


def bootstrap_ci(
    per_instance: Mapping[K, tuple[int, int]],
    ks: Iterable[int],
    rounds: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[int, tuple[float, float] | None]:
    """Percentile bootstrap confidence interval of the mean pass@k, resampling instances.

    Instances are what varies between benchmarks of the same kind, so they are drawn with replacement
    (`rounds` times, a fixed seed so a report is reproducible); attempts within an instance stay as
    they were (their spread is already inside the unbiased estimate).

    Args:
        per_instance: (n, c) of each instance.
        ks: The k values wanted.
        rounds: Bootstrap resamples.
        level: Coverage of the interval (0.95: the 2.5th to the 97.5th percentile).
        seed: Seed of the resampling.

    Returns:
        {k: (low, high)}; None for a k that does not exist (an instance has fewer than k attempts) or
        when there are no instances.
    """
    import random  # only reports need it

    counts = list(per_instance.values())
    rng = random.Random(seed)
    tail = (1.0 - level) / 2
    result: dict[int, tuple[float, float] | None] = {}
    for k in ks:
        values = [pass_at_k(n, c, k) for n, c in counts]
        if not values or any(math.isnan(v) for v in values):
            result[k] = None
            continue
        size = len(values)
        means = sorted(math.fsum(rng.choices(values, k=size)) / size for _ in range(rounds))
        low = means[int(math.floor(tail * (rounds - 1)))]
        high = means[int(math.ceil((1.0 - tail) * (rounds - 1)))]
        result[k] = (low, high)
    return result
