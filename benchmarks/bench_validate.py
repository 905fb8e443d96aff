"""`bench validate bundled` with its default flags: this version against another, alternating, same machine.

Run: PYTHONPATH=src python benchmarks/bench_validate.py --compare-src OTHER/src [--rounds 2]

Each round validates the whole bundled dataset once with each version (default workers and
repeats, warm caches), alternating so that neither always runs on a cooler machine. Prints each
version's median wall time, the first line it printed (this version: its estimate) and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def validate(src: Path) -> tuple[float, int, str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "buildfixer", "bench", "validate", "bundled"],
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    lines = proc.stdout.splitlines() or [""]
    return time.perf_counter() - start, proc.returncode, lines[0][:120]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--compare-src", type=Path, required=True, help="the other version's source")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sources = {"before": args.compare_src.resolve(), "this version": ROOT / "src"}
    times: dict[str, list[float]] = {label: [] for label in sources}
    first: dict[str, str] = {}
    for _ in range(args.rounds):
        for label, src in sources.items():
            seconds, code, line = validate(src)
            times[label].append(seconds)
            first[label] = f"exit {code}: {line}"
    base = statistics.median(times["before"])
    print(f"bench validate bundled, default flags, {args.rounds} rounds alternating, medians")
    for label, values in times.items():
        median = statistics.median(values)
        print(f"  {label:<13} {median:6.0f} s  {base / median:4.2f}x  ({first[label]})")


if __name__ == "__main__":
    main()
