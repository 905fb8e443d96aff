"""`fix` that declines: its wall time against one build of the same project, measured in the same run.

Run: PYTHONPATH=src python benchmarks/bench_fix_declined.py [--example gradle-app/syntax-error] [--repeat 3]

A fix the recipes decline changes nothing, so the build it started with is its verdict: the fix
should cost one build plus the snapshot, not two builds. Each round materializes the broken
example as a git project, builds it once in place (the baseline), then runs `buildfixer fix` on a
fresh copy. Warm caches: a first round is run and discarded.
"""

from __future__ import annotations

import argparse
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


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False)
    return time.perf_counter() - start


def as_git_project(example: str, dest: Path) -> Path:
    root = materialize(get_example(example), dest)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "broken"]):
        subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=b", *args], cwd=root, check=True)
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", default="gradle-app/syntax-error")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "buildfixer"]
    builds, fixes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for round_no in range(args.repeat + 1):
            build_copy = as_git_project(args.example, Path(tmp) / f"b{round_no}")
            fix_copy = as_git_project(args.example, Path(tmp) / f"f{round_no}")
            build_s = timed([*cli, "build", str(build_copy)])
            fix_s = timed([*cli, "fix", str(fix_copy), "--model", "recipes"])
            shutil.rmtree(build_copy, ignore_errors=True)
            if round_no:  # the first round warms caches and daemons
                builds.append(build_s)
                fixes.append(fix_s)
    build, fix = statistics.median(builds), statistics.median(fixes)
    print(f"{args.example}, {args.repeat} rounds, medians, warm caches")
    print(f"  one build          : {build:6.1f} s")
    print(f"  fix (declined)     : {fix:6.1f} s = {fix / build:.2f}x one build")


if __name__ == "__main__":
    main()
