"""How long validating an instance took on this machine: kept, to say up front how long the next will take.

One small JSON file in the cache, `validation-times.json`: seconds per repeat (checkout included)
by instance id and base commit. An instance never timed here is estimated from its build
system's typical time; the whole estimate packs instances onto workers longest first, as
`bench.validate` runs them.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from buildfixer.bench.dataset import Instance

TIMES_FILE = "validation-times.json"
# Seconds one repeat (base build + gold build) takes when never timed here: warm tools, 2 cores.
TYPICAL_REPEAT_S = {"maven": 12.0, "gradle": 12.0, "npm": 8.0, "python": 2.0}
_UNKNOWN_SYSTEM_S = 12.0
_MAX_ENTRIES = 5000  # the file stays small however many datasets were validated


def _key(instance: Instance) -> str:
    return f"{instance.instance_id}@{instance.base_commit}"


def load(cache_dir: Path) -> dict[str, float]:
    """The recorded times; empty when there are none or the file is unreadable (a guess is then made)."""
    try:
        data = json.loads((cache_dir / TIMES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float)) and v >= 0}


def record(cache_dir: Path, measured: Iterable[tuple[Instance, float]]) -> None:
    """Add seconds-per-repeat measurements; written whole and atomically (never half a file)."""
    times = load(cache_dir)
    for instance, seconds in measured:
        times.pop(_key(instance), None)  # re-inserted last: the newest survive the cap
        times[_key(instance)] = round(seconds, 2)
    kept = dict(list(times.items())[-_MAX_ENTRIES:])
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".times-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(kept, out)
        os.replace(tmp, cache_dir / TIMES_FILE)
    except OSError:  # a cache that cannot be written only loses the next estimate
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def per_repeat(instance: Instance, times: dict[str, float]) -> float:
    """Seconds one repeat of this instance should take: as measured here, else typical."""
    known = times.get(_key(instance))
    return known if known is not None else TYPICAL_REPEAT_S.get(instance.build_system, _UNKNOWN_SYSTEM_S)


def estimate_s(instances: Sequence[Instance], repeats: int, workers: int, times: dict[str, float]) -> float:
    """Wall time of validating `instances`: each worker takes the next job when free, longest first."""
    loads = [0.0] * max(1, workers)
    for seconds in sorted((per_repeat(i, times) * repeats for i in instances), reverse=True):
        heapq.heapreplace(loads, loads[0] + seconds)
    return max(loads)


def in_words(seconds: float) -> str:
    """`about 40 s`, `about 6 min`, `about 1 h 20 min`: an estimate is not precise to the second."""
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"
