"""Runner overhead: `buildfixer build` (the CLI, end to end) vs the bare build command.

Same fixture, same run.

The bare command is exactly the one buildfixer runs (same flags, JDK, caches and daemon), so the
difference is buildfixer itself: CLI start-up, detection, planning, log handling.
Usage: python benchmarks/bench_runner_overhead.py [--repeats 5] [--projects maven-app gradle-app]
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

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import SYSTEMS, detect_build_system, resolve_jdk, stop_daemons
from buildfixer.examples import materialize_base


def bare_command(project: Path) -> tuple[list[str], dict[str, str]]:
    options = BuildOptions(sandbox="none")
    system = detect_build_system(project)
    plan = SYSTEMS[system].plan(project, options, resolve_jdk(None))
    env = {**os.environ, **plan.env}
    return plan.command, env


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"build failed: {argv}")
    return elapsed


def in_process(project: Path) -> float:
    """The runner without interpreter start-up: what the bench harness and agent tools pay."""
    start = time.perf_counter()
    result, _ = build_and_analyze(project, BuildOptions(sandbox="none"))
    elapsed = time.perf_counter() - start
    if not result.ok:
        raise SystemExit(f"build failed: {result.log_path}")
    return elapsed


def python_startup() -> float:
    return statistics.median(run([sys.executable, "-c", "pass"], Path.cwd()) for _ in range(5))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--projects", nargs="+", default=["maven-app", "gradle-app"])
    args = parser.parse_args()
    # Unsandboxed, like the bare command: the sandbox has its own benchmark (bench_sandbox_overhead.py).
    cli = [sys.executable, "-m", "buildfixer", "build", "--no-sandbox", "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.projects:
            project = materialize_base(name, Path(tmp) / name)
            argv, env = bare_command(project)
            run(argv, project, env)  # warm-up: downloads, daemon start
            bare, ours, library = [], [], []
            for _ in range(args.repeats):  # interleaved so machine noise hits both alike
                bare.append(run(argv, project, env))
                ours.append(run([*cli, str(project)], project))
                library.append(in_process(project))
            stop_daemons(project)
            b, o, lib = statistics.median(bare), statistics.median(ours), statistics.median(library)
            print(
                f"{name:<12} bare {b:6.3f} s | `buildfixer build` {o:6.3f} s = {o / b:.3f}x"
                f" (+{1000 * (o - b):.0f} ms) | build_and_analyze() in-process {lib:6.3f} s = {lib / b:.3f}x"
                f" (+{1000 * (lib - b):.0f} ms)   median of {args.repeats}"
            )
    print(f"python start-up alone (python -c pass): {python_startup():.3f} s")


if __name__ == "__main__":
    main()
