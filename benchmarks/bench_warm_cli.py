"""Warm Gradle builds across separate `buildfixer build` commands against bare `gradle build`.

A user (or a CI step, or an agent's shell) runs `buildfixer build` again and again on the same
project. Each command is a new process; what stays warm between them is what the comparison is
about. Three sides, interleaved in the same run so machine noise hits them alike:

- bare: `gradle build --daemon` on the host, the daemon warm from the previous call (the baseline);
- buildfixer: `buildfixer build` (sandboxed, the default) as a separate command each time;
- optionally `--before SRC`: the same command from another source tree (e.g. a worktree of an
  older commit), to show what a change bought.

The project is a copy of the bundled `gradle-app` example; nothing changes between builds (the
up-to-date build is what a warm daemon speeds up most). Medians of `--repeats` after one warm-up.

Usage: python benchmarks/bench_warm_cli.py [--repeats 5] [--before /path/to/old/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from buildfixer.buildsys.project import stop_daemons
from buildfixer.examples import materialize_base


def timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        output = done.stdout.decode()[-2000:] + done.stderr.decode()[-2000:]
        raise SystemExit(f"{' '.join(argv)} failed:\n{output}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", type=Path, help="source tree of another buildfixer to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare_project = materialize_base("gradle-app", Path(tmp) / "bare" / "gradle-app")
        ours_project = materialize_base("gradle-app", Path(tmp) / "ours" / "gradle-app")
        before_project = materialize_base("gradle-app", Path(tmp) / "before" / "gradle-app")
        ours = [sys.executable, "-m", "buildfixer", "build", "."]
        sides: dict[str, tuple[list[str], Path, dict[str, str] | None]] = {
            "bare gradle build (host daemon)": (["gradle", "build", "--daemon", "-q"], bare_project, None),
            "buildfixer build (sandboxed)": (ours, ours_project, None),
        }
        if args.before:
            env = {**os.environ, "PYTHONPATH": str(args.before)}
            argv = [sys.executable, "-m", "buildfixer", "build", "."]
            sides["buildfixer build, --before tree"] = (argv, before_project, env)
        for argv, cwd, env in sides.values():
            timed(argv, cwd, env)  # warm-up: downloads, the daemon, the keeper
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.repeats):
            for name, (argv, cwd, env) in sides.items():
                times[name].append(timed(argv, cwd, env))
        subprocess.run(["gradle", "--stop"], cwd=bare_project, capture_output=True)
        stop_daemons(ours_project.resolve())
    bare = statistics.median(times["bare gradle build (host daemon)"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<36} median {median:6.2f} s  ({median / bare:4.2f}x bare)  runs {values}")


if __name__ == "__main__":
    main()
