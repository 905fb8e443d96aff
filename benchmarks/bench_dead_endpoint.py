"""`fix` against a model endpoint nothing listens on: how long until the user is told, and how.

Run: PYTHONPATH=src python benchmarks/bench_dead_endpoint.py [--repeat 3] [--compare-src OTHER/src]
     (--compare-src also times another version, e.g. a worktree of the commit before the probe)

A tiny npm project whose build fails at once; BUILDFIXER_API_BASE names a port of 127.0.0.1 that
was bound and closed. Prints each version's median wall time, exit code and last stderr line.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = {"name": "tiny", "version": "1.0.0", "scripts": {"build": 'node -e "process.exit(1)"'}}


def dead_base() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def one_fix(src: Path, tmp: Path, base: str) -> tuple[float, int, str]:
    project = Path(tempfile.mkdtemp(dir=tmp))
    (project / "package.json").write_text(json.dumps(PACKAGE))
    env = {**os.environ, "PYTHONPATH": str(src), "BUILDFIXER_API_BASE": base,
           "BUILDFIXER_CACHE_DIR": str(tmp / "cache")}  # fmt: skip
    argv = [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", "openai/local"]
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    lines = proc.stderr.strip().splitlines() or [""]
    return time.perf_counter() - start, proc.returncode, lines[-1][:150]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-src", type=Path, help="another version's source to time as well")
    args = parser.parse_args()
    sources = {"this version": ROOT / "src"}
    if args.compare_src:
        sources[str(args.compare_src)] = args.compare_src.resolve()
    base = dead_base()
    print(f"fix with BUILDFIXER_API_BASE={base} (nothing listens), {args.repeat} runs, median")
    with tempfile.TemporaryDirectory() as tmp:
        for label, src in sources.items():
            runs = [one_fix(src, Path(tmp), base) for _ in range(args.repeat)]
            median = statistics.median(t for t, _, _ in runs)
            print(f"  {label[:40]:<40} {median:6.1f} s  exit {runs[-1][1]}  {runs[-1][2]}")


if __name__ == "__main__":
    main()
