"""What triage adds to `fix` on a real failure: `fix` against `fix --no-triage`, same projects, same run.

Run: PYTHONPATH=src python benchmarks/bench_triage.py [--example gradle-app/syntax-error ...] [--repeat 3]

Each round materializes each broken example as a fresh git project (one branch: no base to compare
with) and runs `buildfixer fix --model recipes --json` on it with and without triage, alternating
which goes first. The recipes decline these failures, so a fix is its first build (plus triage's
builds) and the snapshot: the difference is triage's cost. Warm caches: a first round is discarded.
Prints the medians, the ratio against the no-triage baseline, and what triage itself took (its
record's `seconds`: its builds and its reading of the log), which a busy machine blurs less than the
difference of two wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from buildfixer.examples import get_example, materialize  # noqa: E402

# A compile error (deterministic: triage reads the log, builds nothing) and failing tests (a test may
# flap: triage builds once more), on Gradle, Maven and npm.
EXAMPLES = ("gradle-app/syntax-error", "maven-app/failing-test", "npm-app/failing-test")


def as_git_project(example: str, dest: Path) -> Path:
    root = materialize(get_example(example), dest)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "broken"]):
        subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=b", *args], cwd=root, check=True)
    return root


def fix(project: Path, triage: bool) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", "recipes", "--json"]
    argv += [] if triage else ["--no-triage"]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ})
    took = time.perf_counter() - start
    return took, json.loads(done.stdout) if done.stdout.strip() else {}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", action="append", help="a bundled broken example (repeatable)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    examples = args.example or list(EXAMPLES)
    times: dict[tuple[str, bool], list[float]] = {(e, t): [] for e in examples for t in (False, True)}
    seen: dict[str, dict] = {}
    own: dict[str, list[float]] = {e: [] for e in examples}
    with tempfile.TemporaryDirectory() as tmp:
        for round_no in range(args.repeat + 1):
            for example in examples:
                order = (False, True) if round_no % 2 else (True, False)
                for triage in order:
                    name = f"{example.replace('/', '-')}-{round_no}-{triage}"
                    project = as_git_project(example, Path(tmp) / name)
                    took, out = fix(project, triage)
                    shutil.rmtree(project, ignore_errors=True)
                    if round_no:  # the first round warms caches and daemons
                        times[(example, triage)].append(took)
                    if triage and out.get("triage"):
                        seen[example] = out["triage"]
                        if round_no:
                            own[example].append(out["triage"]["seconds"])
    print(f"fix --model recipes, {args.repeat} rounds, medians, warm caches")
    head = f"{'example':<26} {'no triage':>10} {'triage':>10} {'ratio':>6} {'own time':>9} {'ratio':>6}"
    print(f"{head}  verdict")
    for example in examples:
        base = statistics.median(times[(example, False)])
        with_triage = statistics.median(times[(example, True)])
        spent = statistics.median(own[example]) if own[example] else 0.0
        found = seen.get(example, {})
        said = f"{found.get('class')}, {found.get('builds')} extra build(s)"
        print(
            f"{example:<26} {base:9.1f}s {with_triage:9.1f}s {with_triage / base:5.2f}x {spent:8.1f}s "
            f"{(base + spent) / base:5.2f}x  {said}"
        )


if __name__ == "__main__":
    main()
