"""Throughput of the RL environment with a scripted policy: rollouts per minute, reset latency, build share.

    python benchmarks/env_throughput.py [--rollouts 8] [--workers 1,2] [--instances ID,ID]

Each rollout is one episode of `BuildRepairEnv` (simplified mode) on a bundled instance, driven by
that instance's bundled script (`bench/data/scripts/<id>.json`, its steps as assistant messages).
A worker is a process with one environment per instance, so its first reset of an instance pays
the failing build and the checkout; the later ones pay a checkout. Printed: rollouts per minute
(resets included), the first and the median later reset, and the share of the episodes' time
(after the reset) spent building: the build tools and the verdict build.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "src" / "buildfixer" / "bench" / "data"
DEFAULT = "semverkit-elif-colon,cart-receipt-flag"


def actions(instance_id: str) -> list[dict[str, Any]]:
    """The instance's script as OpenAI assistant messages."""
    steps = json.loads((DATA / "scripts" / f"{instance_id}.json").read_text())
    messages = []
    for n, step in enumerate(steps):
        calls = [
            {"id": f"s{n}c{i}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
            for i, c in enumerate(step.get("tool_calls", []))
        ]  # fmt: skip
        messages.append(
            {"role": "assistant", "content": step.get("content"), **({"tool_calls": calls} if calls else {})}
        )
    return messages


def worker(job: tuple[list[str], int]) -> list[dict[str, float]]:
    """Run `count` rollouts over the instances in turn; one record per rollout."""
    from buildfixer.env import BuildRepairEnv

    ids, count = job
    rows = {
        json.loads(line)["instance_id"]: json.loads(line)
        for line in (DATA / "instances.jsonl").read_text().splitlines()
    }
    envs = {i: BuildRepairEnv(rows[i], toolset="gradlefixer") for i in ids}
    records = []
    try:
        for n in range(count):
            instance_id = ids[n % len(ids)]
            env, began = envs[instance_id], time.monotonic()
            env.reset()
            reset_s = time.monotonic() - began
            began = time.monotonic()
            for action in actions(instance_id):
                _, reward, done, info = env.step(action)
                if done:
                    break
            records.append({"reset_s": reset_s, "first": n < len(ids), "rollout_s": time.monotonic() - began,
                            "build_s": info["build_seconds"], "reward": reward})  # fmt: skip
    finally:
        for env in envs.values():
            env.close()
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--instances", default=DEFAULT)
    args = parser.parse_args()
    ids = args.instances.split(",")
    print("| workers | rollouts | rollouts/min | first reset s | later reset s | build share | reward |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for workers in (int(w) for w in args.workers.split(",")):
        per = [args.rollouts // workers + (1 if w < args.rollouts % workers else 0) for w in range(workers)]
        began = time.monotonic()
        with ProcessPoolExecutor(workers) as pool:
            records = [r for part in pool.map(worker, [(ids, n) for n in per]) for r in part]
        wall = time.monotonic() - began
        first = [r["reset_s"] for r in records if r["first"]]
        later = [r["reset_s"] for r in records if not r["first"]] or [float("nan")]
        share = sum(r["build_s"] for r in records) / sum(r["rollout_s"] for r in records)
        mean_reward = sum(r["reward"] for r in records) / len(records)
        rate, resets = (
            len(records) / wall * 60,
            f"{statistics.median(first):.2f} | {statistics.median(later):.2f}",
        )
        print(
            f"| {workers} | {len(records)} | {rate:.1f} | {resets} | {share:.0%} | {mean_reward:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
