"""Huge build output: what a build that prints 200 MB costs buildfixer, over the build itself.

Run: PYTHONPATH=src python benchmarks/huge_output.py [--mb 200] [--keep DIR]

Generates an npm project whose `build` script prints --mb megabytes of worker chatter (a third
of the lines look like errors: WARN/ERROR lines, exceptions, stack frames) between a javac
error in its first lines and a Gradle "What went wrong" report at its end, then fails. Each
measurement runs in a fresh process:

- the bare build: the plan's commands in a shell, output to a file (the baseline);
- `buildfixer build PROJECT` end to end (the CLI, default options);
- the analysis alone: `attach_analysis` of that build's log;
- the agent tools' views of that build: raw (`raw_view`) and condensed (`condensed_view`).

For each: wall time, peak RSS of the buildfixer process itself (ru_maxrss of RUSAGE_SELF, read
at its exit) and the ratio of the time to the bare build's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

JAVAC_ERROR = """> Task :app:compileJava
/work/app/src/main/java/demo/App.java:5: error: cannot find symbol
        System.out.println(greeting.lenght());
                                   ^
  symbol:   method lenght()
  location: variable greeting of type String
1 error
"""
GRADLE_FAILURE = """
FAILURE: Build failed with an exception.

* What went wrong:
Could not resolve all files for configuration ':app:compileClasspath'.
> Could not find com.example:missing-lib:1.2.3.
  Required by:
      project :app

* Try:
Run with --stacktrace option to get the stack trace.

BUILD FAILED in 1m 2s
"""

# The build script: chatter in 1 MB writes, a third of it error-looking, every line distinct.
FLOOD_JS = """const fs = require("fs");
const total = %(bytes)d;
fs.writeSync(1, %(head)s);
const kinds = [
  (n) => `[worker-${n %% 8}] INFO  batch ${n} processed ${n * 7 %% 1000} records in ${n %% 90} ms\\n`,
  (n) => `[worker-${n %% 8}] DEBUG cache lookup key=item-${n} hit=${n %% 3 === 0}\\n`,
  (n) => `[worker-${n %% 8}] WARN  retrying request ${n} after error: connection reset by peer\\n`,
  (n) => `[worker-${n %% 8}] ERROR request ${n} failed: upstream timeout after 30000 ms\\n`,
  (n) => `java.lang.IllegalStateException: batch ${n} rejected by validator\\n`,
  (n) => `\\tat demo.pipeline.Stage${n %% 50}.run(Stage${n %% 50}.java:${n %% 400})\\n`,
];
let written = 0, n = 0;
while (written < total) {
  const parts = [];
  let size = 0;
  while (size < 1048576) {
    const line = kinds[n %% kinds.length](n);
    parts.push(line);
    size += line.length;
    n++;
  }
  const chunk = parts.join("");
  fs.writeSync(1, chunk);
  written += chunk.length;
}
fs.writeSync(1, %(tail)s);
process.exit(1);
"""

# Runs a piece of buildfixer in this process, then reports its result and peak RSS as JSON.
PROBE = """
import json, resource, sys, time
from pathlib import Path
start = time.perf_counter()
kind, project, log = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
report = {}
if kind == "cli":
    from buildfixer.cli.main import main
    sys.argv = ["buildfixer", "build", str(project)]
    try:
        main()
    except SystemExit as exit:
        report["exit"] = exit.code
else:
    from buildfixer.buildsys.analyzed import attach_analysis
    from buildfixer.core.build_result import BuildResult
    from buildfixer.tools.build_support import condensed_view, raw_view
    result = BuildResult(status="failure", exit_code=1, duration_s=1.0, build_system="npm",
                         command=["npm", "run", "build"], jdk=None, log_path=log, output_tail="")
    if kind == "analysis":
        analysis = attach_analysis(result, project)
        root = analysis.root if analysis else None
        where = root.location() if root and root.file else ""
        report["root"] = f"{where} {root.message if root else ''}"[:120]
        report["errors"] = len(analysis.errors) if analysis else 0
    elif kind == "raw_view":
        report["chars"] = len(raw_view(result))
    else:
        report["chars"] = len(condensed_view(result, project))
report["seconds"] = time.perf_counter() - start
report["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("PROBE " + json.dumps(report), file=sys.stderr)
"""


def make_project(directory: Path, megabytes: int) -> Path:
    """An npm project (no dependencies) whose build prints `megabytes` MB and fails."""
    directory.mkdir(parents=True, exist_ok=True)
    scripts = {"build": "node flood.js"}
    package = {"name": "huge-output", "version": "1.0.0", "private": True, "scripts": scripts}
    (directory / "package.json").write_text(json.dumps(package))
    script = FLOOD_JS % {
        "bytes": megabytes * 1024 * 1024,
        "head": json.dumps(JAVAC_ERROR),
        "tail": json.dumps(GRADLE_FAILURE),
    }
    (directory / "flood.js").write_text(script)
    return directory


def probe_env(cache: Path) -> dict[str, str]:
    """This checkout's sources first on the path; a private cache (the CLI keeps its logs there)."""
    path = f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    return {**os.environ, "PYTHONPATH": path, "BUILDFIXER_CACHE_DIR": str(cache)}


def bare_build(project: Path, log: Path) -> tuple[float, float]:
    """The build's own commands in a shell, output to a file: (seconds, peak RSS MB of its processes)."""
    npm = shutil.which("npm") or "npm"
    script = f"{npm} install --no-audit --no-fund --no-package-lock; {npm} run build"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    with open(log, "wb") as out:
        subprocess.run(["sh", "-c", script], cwd=project, stdout=out, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - start
    return elapsed, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024


def probe(kind: str, project: Path, log: Path) -> tuple[float, dict[str, Any]]:
    """Run one PROBE in a fresh interpreter: (wall seconds, its report)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, kind, str(project), str(log)],
        env=probe_env(log.parent / "cache"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    lines = [line for line in proc.stderr.splitlines() if line.startswith("PROBE ")]
    if not lines:
        raise SystemExit(f"{kind} probe failed:\n{proc.stderr[-3000:]}")
    return elapsed, json.loads(lines[-1][len("PROBE ") :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="megabytes the build prints")
    parser.add_argument("--keep", type=Path, help="put the project and logs here and keep them")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="huge-output-"))
    try:
        project = make_project(work / "project", args.mb)
        log = work / "bare.log"
        bare_s, bare_mb = bare_build(project, log)
        size = log.stat().st_size
        print(f"build output: {size / 1e6:.0f} MB; src: {SRC}")
        print(f"{'measurement':34} {'wall s':>8} {'x build':>8} {'peak RSS MB':>12}  notes")
        print(f"{'bare build (npm install + build)':34} {bare_s:8.2f} {1:8.2f} {bare_mb:12.0f}  node/npm")
        cli_s, cli = probe("cli", project, log)
        print(f"{'buildfixer build (CLI)':34} {cli_s:8.2f} {cli_s / bare_s:8.2f} {cli['peak_mb']:12.0f}"
              f"  exit {cli.get('exit')}; overhead {cli_s - bare_s:+.2f} s")  # fmt: skip
        for kind in ("analysis", "raw_view", "condensed_view"):
            seconds, report = probe(kind, project, log)
            notes = {k: v for k, v in report.items() if k not in ("seconds", "peak_mb")}
            print(f"{kind:34} {seconds:8.2f} {seconds / bare_s:8.2f} {report['peak_mb']:12.0f}  {notes}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
