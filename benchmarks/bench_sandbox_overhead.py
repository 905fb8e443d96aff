"""Sandbox overhead: a warm build in the bubblewrap sandbox vs the same build unsandboxed, same run.

Both sides are `build_project` with default options except `sandbox`, on the same copy of a
bundled example, interleaved so machine noise hits both alike. Warm means what a repair's second
and later builds see: dependencies cached, the Python venv and node_modules installed, the Gradle
daemon running (unsandboxed: on the host; sandboxed: inside the project's sandbox session).
Also shown: the cold one-command sandbox (`warm=False`: a fresh sandbox per step) against the
unsandboxed cold build.

Usage: python benchmarks/bench_sandbox_overhead.py [--repeats 5] [--projects gradle-app maven-app ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project, stop_daemons
from buildfixer.examples import materialize_base


def timed_build(project: Path, options: BuildOptions) -> float:
    start = time.perf_counter()
    result = build_project(project, options)
    elapsed = time.perf_counter() - start
    if not result.ok:
        raise SystemExit(f"build failed ({options.sandbox}): {result.log_path}")
    return elapsed


def compare(project: Path, warm: bool, repeats: int) -> tuple[float, float]:
    """Median seconds of (unsandboxed, sandboxed) builds."""
    plain, boxed = BuildOptions(sandbox="none", warm=warm), BuildOptions(sandbox="bubblewrap", warm=warm)
    timed_build(project, plain), timed_build(project, boxed)  # warm-up: downloads, daemons, venvs
    times: dict[str, list[float]] = {"none": [], "bubblewrap": []}
    for _ in range(repeats):
        for options in (plain, boxed):
            times[options.sandbox].append(timed_build(project, options))
    stop_daemons(project, plain)
    stop_daemons(project, boxed)
    return statistics.median(times["none"]), statistics.median(times["bubblewrap"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--projects", nargs="+", default=["gradle-app", "maven-app", "python-app", "npm-app"])
    parser.add_argument("--cold", action="store_true", help="also compare cold builds (slow)")
    args = parser.parse_args()
    modes = [True, False] if args.cold else [True]
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.projects:
            project = materialize_base(name, Path(tmp) / name)
            for warm in modes:
                plain, boxed = compare(project, warm, args.repeats)
                print(
                    f"{name:<11} {'warm' if warm else 'cold'}: unsandboxed {plain:6.2f} s | sandboxed "
                    f"{boxed:6.2f} s = {boxed / plain:.3f}x ({1000 * (boxed - plain):+.0f} ms)"
                    f"   median of {args.repeats}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
