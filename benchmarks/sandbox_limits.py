"""How fast a sandbox's limits stop a bomb, and whether the machine stays usable meanwhile.

Each bomb runs in a real sandbox (`buildsys.project.run_in_sandbox`, as tools and builds use it)
with a small limit set through its variable. Printed per bomb: the limit reported, the seconds
from start to stop, and the slowest of the host's `true` (started every 0.2 s while the bomb ran).

Usage: python benchmarks/sandbox_limits.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox
from buildfixer.buildsys.sandbox.limits import VARIABLES, sandbox_limits

BOMBS = {
    "fork bomb": ("processes", "200", "b() { b | b & }; b; sleep 100"),
    "memory bomb": (
        "memory",
        "256M",
        'python3 -c "a = []\nwhile True: a.append(bytearray(10 ** 7))"; sleep 100',
    ),
    "CPU loop": ("cpu_s", "2", "exec python3 -c 'while True: pass'"),
    "huge file": ("file_size", "8M", "exec head -c 64M /dev/zero > big"),
}


def run_bomb(limit: str, value: str, command: str) -> tuple[str | None, float, float]:
    """(limit reported, seconds to stop, slowest host `true` in seconds)."""
    os.environ[VARIABLES[limit]] = value
    sandbox_limits.cache_clear()
    latencies: list[float] = []
    done = threading.Event()

    def measure() -> None:
        while not done.is_set():
            start = time.monotonic()
            subprocess.run(["true"], check=True)
            latencies.append(time.monotonic() - start)
            time.sleep(0.2)

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        project.mkdir()
        options = BuildOptions(cache_dir=Path(tmp) / "cache", offline=True)
        thread = threading.Thread(target=measure, daemon=True)
        thread.start()
        start = time.monotonic()
        run = run_in_sandbox(
            project, options, ["sh", "-c", command], env={"PATH": "/usr/bin:/bin"},
            log_path=Path(tmp) / "log", timeout_s=120, owner="bench-limits",
        )  # fmt: skip
        took = time.monotonic() - start
        done.set()
        thread.join()
    del os.environ[VARIABLES[limit]]
    return run.limit, took, max(latencies, default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, (limit, value, command) in BOMBS.items():
        runs = [run_bomb(limit, value, command) for _ in range(args.repeats)]
        reported = {r[0] for r in runs}
        median, slowest = statistics.median(r[1] for r in runs), max(r[1] for r in runs)
        print(
            f"{name:<12} limit {limit}={value:<5} reported {','.join(map(str, reported)):<10} "
            f"stopped after {median:5.2f} s (max {slowest:5.2f}) | "
            f"host `true` slowest {max(r[2] for r in runs) * 1000:6.1f} ms   ({args.repeats} runs)",
            flush=True,
        )


if __name__ == "__main__":
    main()
