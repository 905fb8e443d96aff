"""Throughput of the RL environment with a scripted policy: rollouts per minute, reset latency, build share.

    python benchmarks/env_throughput.py [--rollouts 8] [--workers 1,2] [--modes simplified,full]
                                        [--instances ID,ID]

Each rollout is one episode of `BuildRepairEnv` on a bundled instance, driven by that instance's
bundled script (`bench/data/scripts/<id>.json`, its steps as assistant messages; in full mode the
loop's tries answered in turn, "give up" once the script is spent, the same tools).
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


GIVE_UP = {"role": "assistant", "content": "I cannot fix this."}


def worker(job: tuple[list[str], int, str]) -> list[dict[str, float]]:
    """Run `count` rollouts over the instances in turn; one record per rollout."""
    from buildfixer.env import BuildRepairEnv

    ids, count, mode = job
    rows = {
        json.loads(line)["instance_id"]: json.loads(line)
        for line in (DATA / "instances.jsonl").read_text().splitlines()
    }
    envs = {i: BuildRepairEnv(rows[i], mode=mode, toolset="gradlefixer", max_turns=20) for i in ids}
    records = []
    try:
        for n in range(count):
            instance_id = ids[n % len(ids)]
            env, began = envs[instance_id], time.monotonic()
            first = env.reset()
            reset_s = time.monotonic() - began
            began = time.monotonic()
            ended = first.get("ended")  # full mode: a remembered fix may end the loop before any reply
            reward, done, info = (ended["reward"], True, ended["info"]) if ended else (0.0, False, {})
            script = actions(instance_id)
            while not done:
                _, reward, done, info = env.step(script.pop(0) if script else GIVE_UP)
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
    parser.add_argument("--modes", default="simplified,full")
    parser.add_argument("--instances", default=DEFAULT)
    args = parser.parse_args()
    ids = args.instances.split(",")
    print(
        "| mode | workers | rollouts | rollouts/min | first reset s | later reset s | build share | reward |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    runs = [(m, int(w)) for m in args.modes.split(",") for w in args.workers.split(",")]
    for mode, workers in runs:
        per = [args.rollouts // workers + (1 if w < args.rollouts % workers else 0) for w in range(workers)]
        began = time.monotonic()
        with ProcessPoolExecutor(workers) as pool:
            records = [r for part in pool.map(worker, [(ids, n, mode) for n in per]) for r in part]
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
            f"| {mode} | {workers} | {len(records)} | {rate:.1f} | {resets} | {share:.0%} "
            f"| {mean_reward:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
