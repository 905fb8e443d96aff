"""`bench run` speed: wall time of the bundled dataset with 1 vs 2 workers, and harness overhead.

Run: PYTHONPATH=src python benchmarks/bench_bench_run.py [--agent oracle]

The oracle agent applies each gold patch, so an attempt is: workspace checkout, patch, one build.
Harness overhead per attempt = the run's wall time (1 worker) minus the attempts' own wall time,
divided by the attempts: the worker process start and the result line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from buildfixer.bench.dataset import dataset_dir, load_dataset  # noqa: E402
from buildfixer.bench.run import RunConfig, run_benchmark  # noqa: E402

DATASET = ROOT / "src" / "buildfixer" / "bench" / "data" / "instances.jsonl"


def timed_run(instances: list[dict], workers: int, agent: str, out: Path) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    rows = run_benchmark(instances, dataset_dir(DATASET), RunConfig(agent=agent, model="none"), out, workers)
    return time.perf_counter() - start, rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", default="oracle")
    args = parser.parse_args()
    instances = [i.to_dict() for i in load_dataset(DATASET)]
    with tempfile.TemporaryDirectory() as tmp:
        timed_run(instances, 2, args.agent, Path(tmp) / "warmup")  # caches, venvs, daemons warm
        one, rows = timed_run(instances, 1, args.agent, Path(tmp) / "w1")
        two, _ = timed_run(instances, 2, args.agent, Path(tmp) / "w2")
    print(f"{len(instances)} instances, agent {args.agent}, warm caches")
    print(f"  1 worker : {one:7.1f} s")
    print(f"  2 workers: {two:7.1f} s = {one / two:.2f}x faster")
    attempt = [r["duration_s"] for r in rows]
    print(f"  attempt wall time inside the worker: median {statistics.median(attempt):.2f} s")
    per_attempt_outside = (one - sum(attempt)) / len(rows)
    print(f"  harness time outside the attempts: {per_attempt_outside:.2f} s per attempt")
    print(json.dumps({"one": one, "two": two, "outside_per_attempt": per_attempt_outside}))


if __name__ == "__main__":
    main()
