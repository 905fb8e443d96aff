"""Fix-memory search latency over many entries: SQLite FTS5 (BM25) vs a word-overlap scan, same run.

Usage: python benchmarks/memory_search.py [--entries 100000] [--queries 300]

Builds a memory of synthetic entries in the shapes real ones take (javac, Kotlin, Gradle resolution,
Maven, pip, pytest and npm errors with varied symbols, files, coordinates and versions), then times
`FixMemory.search` + the selector for queries that are new errors of the same shapes. The baseline is
the obvious alternative to a database: scoring every entry by the words it shares with the query in
Python (what a notes directory does today). Goal: p95 under 20 ms at 100k entries.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from buildfixer.memory.select import rank_hits
from buildfixer.memory.store import Entry, FixMemory

SHAPES = [
    "src/main/java/com/{pkg}/{cls}.java:{n}: error: cannot find symbol {sym} (location: class {cls})",
    "e: file:///w/app/src/main/kotlin/{pkg}/{cls}.kt:{n}:{m} Unresolved reference: {sym}",
    "Could not resolve {grp}:{art}:{ver}. Required by: project :app > {grp}:{art}-core:{ver}",
    "Failed to execute goal on project {art}: Could not resolve {grp}:{art}:jar:{ver}",
    "ModuleNotFoundError: No module named '{mod}'",
    "tests/test_{mod}.py:{n}: AssertionError: assert {n} == {m} in test_{sym}",
    "npm ERR! 404 Not Found - GET https://registry.npmjs.org/{mod} - '{mod}@{ver}' is not in this registry",
    "src/{mod}/{cls}.ts({n},{m}): error TS2339: Property '{sym}' does not exist on type '{cls}'",
    "AAPT: error: resource {pkg}:drawable/{sym} (aka {grp}:drawable/{sym}) not found",
    "Manifest merger failed : uses-sdk:minSdkVersion {n} cannot be smaller than {m} declared in {grp}",
]
# Names as varied as a real code base's: classes, symbols, packages, artifacts from syllables.
SYLLABLES = [c + v for c in "bdklmnprstv" for v in "aeo"]
_names = random.Random(11)
WORDS = sorted(
    {"".join(_names.choice(SYLLABLES) for _ in range(_names.randint(2, 4))) for _ in range(40_000)}
)


def fill(shape: str, rng: random.Random) -> str:
    def word() -> str:
        return rng.choice(WORDS) + rng.choice(WORDS).capitalize()

    n, m, ver = rng.randint(1, 900), rng.randint(1, 80), f"{rng.randint(0, 9)}.{rng.randint(0, 30)}"
    return shape.format(
        pkg=rng.choice(WORDS), cls=word().capitalize(), sym=word(), n=n, m=m, ver=ver,
        grp=f"com.{rng.choice(WORDS)}", art=rng.choice(WORDS), mod=rng.choice(WORDS),
    )  # fmt: skip


def overlap_scan(entries: list[tuple[str, frozenset[str]]], query: str, limit: int) -> list[str]:
    """The baseline: every entry scored by the words it shares with the query."""
    words = frozenset(re.findall(r"[a-z0-9_]{3,}", query.lower()))
    scored = sorted(((len(words & bag), text) for text, bag in entries), reverse=True)
    return [text for _, text in scored[:limit]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    errors = [fill(rng.choice(SHAPES), rng) for _ in range(args.entries)]
    queries = [fill(rng.choice(SHAPES), rng) for _ in range(args.queries)]
    with tempfile.TemporaryDirectory() as tmp, FixMemory(Path(tmp) / "m.sqlite3") as memory:
        start = time.perf_counter()
        memory.add_many(
            Entry("repair", e, patch=f"fix {i}", build_system="gradle") for i, e in enumerate(errors)
        )
        print(f"stored {args.entries} entries in {time.perf_counter() - start:.1f} s "
              f"({(Path(tmp) / 'm.sqlite3').stat().st_size / 1e6:.0f} MB)")  # fmt: skip
        fts = []
        for query in queries:
            start = time.perf_counter()
            rank_hits(memory.search(query, limit=15))[:5]
            fts.append((time.perf_counter() - start) * 1000)
    bags = [(e, frozenset(re.findall(r"[a-z0-9_]{3,}", e.lower()))) for e in errors]
    scan = []
    for query in queries[: max(20, args.queries // 10)]:
        start = time.perf_counter()
        overlap_scan(bags, query, 5)
        scan.append((time.perf_counter() - start) * 1000)

    def p95(xs: list[float]) -> float:
        return statistics.quantiles(xs, n=20)[-1]

    for name, times in (("FTS5 + selector", fts), ("word-overlap scan", scan)):
        median = statistics.median(times)
        print(f"{name:18s}: p50 {median:7.2f} ms   p95 {p95(times):7.2f} ms   ({len(times)} queries)")
    print(f"p95 ratio scan/FTS5: {p95(scan) / p95(fts):.0f}x")


if __name__ == "__main__":
    main()
