"""`fix` that declines: its wall time against one build of the same project, measured in the same run.

Run: PYTHONPATH=src python benchmarks/bench_fix_declined.py [--example gradle-app/syntax-error] [--repeat 3]
     [--compare-src OTHER/src]   (also time `fix` of another version, e.g. an older commit's worktree)
     [--on-branch]               (the project on a branch past main: triage has a base commit to build)

A fix the recipes decline changes nothing, so the build it started with is its verdict: the fix
should cost one build plus the snapshot, not two builds. Each round materializes the broken
example as a git project, builds it once in place (the baseline), then runs `buildfixer fix` on a
fresh copy. Warm caches: a first round is run and discarded.
"""

from __future__ import annotations

import argparse
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


def timed(argv: list[str], src: Path) -> float:
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run(argv, capture_output=True, check=False, env=env)
    return time.perf_counter() - start


def as_git_project(example: str, dest: Path, on_branch: bool = False) -> Path:
    """The broken example as a git project; with `on_branch`, on a branch one commit past `main`
    (so `fix`'s triage finds a base commit that differs, which it would build)."""
    root = materialize(get_example(example), dest)
    steps = [["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "broken"]]
    if on_branch:
        steps += [["checkout", "-q", "-b", "feature"], ["commit", "-q", "--allow-empty", "-m", "more"]]
    for args in steps:
        subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=b", *args], cwd=root, check=True)
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", default="gradle-app/syntax-error")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-src", type=Path, help="another version's source to time `fix` from")
    parser.add_argument("--on-branch", action="store_true", help="a branch past main: triage has a base")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "buildfixer"]
    builds: list[float] = []
    fixes: dict[str, list[float]] = {"this version": []}
    sources = {"this version": ROOT / "src"}
    if args.compare_src:
        sources[str(args.compare_src)] = args.compare_src.resolve()
        fixes[str(args.compare_src)] = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_no in range(args.repeat + 1):
            build_copy = as_git_project(args.example, Path(tmp) / f"b{round_no}")
            build_s = timed([*cli, "build", str(build_copy)], ROOT / "src")
            shutil.rmtree(build_copy, ignore_errors=True)
            if round_no:  # the first round warms caches and daemons
                builds.append(build_s)
            for label, src in sources.items():
                fix_copy = as_git_project(
                    args.example, Path(tmp) / f"f{round_no}-{len(fixes[label])}", args.on_branch
                )
                fix_s = timed([*cli, "fix", str(fix_copy), "--model", "recipes"], src)
                shutil.rmtree(fix_copy, ignore_errors=True)
                if round_no:
                    fixes[label].append(fix_s)
    build = statistics.median(builds)
    where = ", on a branch past main" if args.on_branch else ""
    print(f"{args.example}{where}, {args.repeat} rounds, medians, warm caches")
    print(f"  one build                  : {build:6.1f} s")
    for label, times in fixes.items():
        fix = statistics.median(times)
        print(f"  fix (declined), {label[:12]:<12} : {fix:6.1f} s = {fix / build:.2f}x one build")


if __name__ == "__main__":
    main()
