"""Resolve rate of the repair loop with an empty vs a warm fix memory, on the bundled dataset.

    python benchmarks/memory_effect.py [--out DIR] [--workers 2] [--policies recipes,scripted]

The bundled breakages are all different and all in the test split, so in a benchmark no memory
entry may ever serve one of them (no leakage: a test-split fix is never read back, nor anything
newer than the instance). Memory pays where failures *recur*: a fix lost in a merge, a revert of
a revert, the same bad bump on another branch. This script builds that case from the bundled
repositories, for every instance:

- the original instance becomes the train split (its gold patch is what a warm memory holds,
  dated at the original's `created_at`);
- a *recurrence* (test split): on a new branch, the gold fix is committed a day after the
  original, and 30 days later a commit brings the breakage back (the base commit's tree again).

Each policy of the loop (`--agent pipeline`) runs on the recurrences twice: with no memory, and
with the originals' gold patches imported (`buildfixer memory import`, train split only). The
scripted policy replays the bundled per-instance scripts (`bench/data/scripts`) through the
gradlefixer toolset they were written for. Printed: resolved, LLM calls, replays, wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "src" / "buildfixer" / "bench" / "data"
SUFFIX = "-again"


def git(repo: Path, *args: str, date: str | None = None, stdin: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    ident = ["-c", "user.name=Recurrence", "-c", "user.email=recurrence@example.com"]
    done = subprocess.run(
        ["git", *ident, *args], cwd=repo, env=env, input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def shifted(stamp: str, days: int) -> str:
    return (datetime.fromisoformat(stamp) + timedelta(days=days)).isoformat()


def recurrences(originals: list[dict], work: Path) -> list[dict]:
    """One recurrence per original, on a branch of a clone of its repository."""
    clones: dict[str, Path] = {}
    made = []
    for row in originals:
        repo = clones.get(row["repo"])
        if repo is None:
            repo = clones[row["repo"]] = work / "repos" / Path(row["repo"]).stem
            subprocess.run(["git", "clone", "-q", str(DATA / row["repo"]), str(repo)], check=True)
        git(repo, "checkout", "-q", "--force", "-B", f"again/{row['instance_id']}", row["base_commit"])
        git(repo, "apply", "--index", "-", stdin=row["gold_patch"])
        git(repo, "commit", "-qm", "fix", date=shifted(row["created_at"], 1))
        git(repo, "apply", "--index", "-R", "-", stdin=row["gold_patch"])
        again = shifted(row["created_at"], 30)
        git(repo, "commit", "-qm", "the breakage comes back", date=again)
        made.append(
            {**row, "instance_id": row["instance_id"] + SUFFIX, "repo": str(repo),
             "base_commit": git(repo, "rev-parse", "HEAD"), "fix_commit": None, "created_at": again,
             "split": "test"}
        )  # fmt: skip
    return made


def bench(
    dataset: Path, out: Path, model: str, memory: Path | None, workers: int, toolset: str | None
) -> dict:
    env = dict(os.environ)
    # A run reads and writes its own memory: the warm one when named, else one in its run directory.
    chosen = ["--memory", str(memory)] if memory else []
    only = [arg for row in map(json.loads, dataset.read_text().splitlines()) if row["split"] == "test"
            for arg in ("--only", row["instance_id"])]  # fmt: skip
    cmd = [sys.executable, "-m", "buildfixer", "bench", "run", str(dataset), "--agent", "pipeline",
           "--model", model, "--workers", str(workers), "--out", str(out), "--json", *chosen,
           *only]  # fmt: skip
    if toolset:
        cmd += ["--toolset", toolset]
    began = time.monotonic()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    replays = 0
    for row in rows:
        meta = json.loads((out / row["trajectory"]).read_text())["meta"].get("pipeline") or {}
        replays += sum(t.get("policy") == "replay" for e in meta.get("errors", []) for t in e["tries"])
    return {
        "resolved": sum(r["resolved"] for r in rows), "attempts": len(rows),
        "llm_calls": sum(r["llm_calls"] for r in rows), "replays": replays,
        "seconds": round(time.monotonic() - began),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="keep the runs here (default: a temporary directory)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--policies", default="recipes,scripted")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="memory-effect-"))
    work.mkdir(parents=True, exist_ok=True)
    originals = [
        json.loads(line) for line in (DATA / "instances.jsonl").read_text().splitlines() if line.strip()
    ]
    originals = [{**row, "split": "train"} for row in originals]
    dataset = work / "instances.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in originals + recurrences(originals, work)))
    scripts = work / "scripts"
    scripts.mkdir(exist_ok=True)
    for script in (DATA / "scripts").glob("*.json"):
        shutil.copy(script, scripts / f"{script.stem}{SUFFIX}.json")
    warm = work / "warm.sqlite3"
    env = {**os.environ, "BUILDFIXER_MEMORY": str(warm)}
    subprocess.run(
        [sys.executable, "-m", "buildfixer", "memory", "import", str(dataset)], env=env, check=True
    )

    policies = {"recipes": ("recipes", None), "scripted": (f"scripted:{scripts}", "gradlefixer")}
    print("| policy | memory | resolved | LLM calls | replays | wall s |\n|---|---|---:|---:|---:|---:|")
    for name in args.policies.split(","):
        model, toolset = policies[name]
        for label, memory in (("empty", None), ("warm", warm)):
            result = bench(dataset, work / f"{name}-{label}", model, memory, args.workers, toolset)
            print(f"| {name} | {label} | {result['resolved']}/{result['attempts']} | {result['llm_calls']} | "
                  f"{result['replays']} | {result['seconds']} |", flush=True)  # fmt: skip
    print(f"runs in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
