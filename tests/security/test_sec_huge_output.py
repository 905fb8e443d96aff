"""A build that prints a flood costs little time and bounded memory, and its root error is still found.

Each attack is a real npm build (no dependencies) whose `build` script prints a flood of one kind
and fails. It runs through `build_and_analyze` with the default options (its logs in a
temporary state directory), then through both tool views of the result, in a child process
started by a small wrapper: the wrapper's RUSAGE_CHILDREN peak RSS covers the child and every
process of the build, whatever the test process itself ran before.

Before the logs were read through bounded windows, a 200 MB flood cost 84 s and 1.7 GB; a
dense flood of error-looking lines took minutes per megabyte, and a long line of box-drawing
characters (a progress bar without its percentage) was cubic in its length.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from buildfixer.logs.analyze import analyze_text

MB = 1024 * 1024
# Peak RSS of the analyzing process and of every build process (node prints in 1 MB writes).
MEMORY_BOUND_MB = 300
# Seconds buildfixer may add to the build (reading, analyzing, both views); generous for a
# loaded two-core machine, where the bounded analysis takes one to three seconds.
OVERHEAD_BOUND_S = 40

JAVAC_ERROR = (
    "> Task :app:compileJava\n"
    "/work/app/src/main/java/demo/App.java:5: error: cannot find symbol\n"
    "        System.out.println(greeting.lenght());\n"
    "                                   ^\n"
    "  symbol:   method lenght()\n"
    "  location: variable greeting of type String\n"
    "1 error\n"
)
GRADLE_FAILURE = (
    "\nFAILURE: Build failed with an exception.\n\n"
    "* What went wrong:\n"
    "Could not resolve all files for configuration ':app:compileClasspath'.\n"
    "> Could not find com.example:missing-lib:1.2.3.\n"
    "  Required by:\n"
    "      project :app\n\n"
    "BUILD FAILED in 1m 2s\n"
)

# Node functions `(n) => string` that make the n-th piece of a flood.
CHATTER = """[
  (n) => `[worker-${n % 8}] INFO  batch ${n} processed ${n * 7 % 1000} records in ${n % 90} ms\\n`,
  (n) => `[worker-${n % 8}] WARN  retrying request ${n} after error: connection reset by peer\\n`,
  (n) => `[worker-${n % 8}] ERROR request ${n} failed: upstream timeout after 30000 ms\\n`,
  (n) => `java.lang.IllegalStateException: batch ${n} rejected by validator\\n`,
  (n) => `\\tat demo.pipeline.Stage${n % 50}.run(Stage${n % 50}.java:${n % 400})\\n`,
]"""
FLOODS = {
    # Every line a distinct compiler error: each one a parser hit and a classification.
    "dense_errors": "[(n) => `src/demo/F${n}.java:${n % 90 + 1}: error: cannot find symbol x${n}\\n`]",
    # One line, never ended: a minified bundle or a binary dumped without newlines.
    "one_long_line": "[(n) => 'error: could not find module '.repeat(1000)]",
    # Lines of a megabyte each.
    "megabyte_lines": "[(n) => 'x'.repeat(1048575) + '\\n']",
    # A progress bar without its percentage, redrawn in place with carriage returns.
    "progress_redraws": "[(n) => '\\u2501'.repeat(200) + ` step ${n}\\r`]",
    "box_drawing_lines": "[(n) => '\\u2501'.repeat(8000) + '\\n']",
    "escape_sequences": "[(n) => `\\x1b[3${n % 8}m\\x1b]0;title ${n}\\x07\\x1b[2K\\x1b[1A${n}\\x1b[0m\\n`]",
    "two_char_lines": "[(n) => 'a\\n'.repeat(4096)]",
    "binary_garbage": "[(n) => require('crypto').randomBytes(65536)]",
}

FLOOD_JS = """const fs = require("fs");
const kinds = %(kinds)s;
let written = 0, n = 0;
fs.writeSync(1, %(head)s);
while (written < %(total)d) {
  const parts = [];
  let size = 0;
  while (size < 1048576) {
    const piece = kinds[n %% kinds.length](n);
    parts.push(piece);
    size += piece.length;
    n++;
  }
  const chunk = Buffer.isBuffer(parts[0]) ? Buffer.concat(parts) : parts.join("");
  fs.writeSync(1, chunk);
  written += chunk.length;
}
fs.writeSync(1, %(tail)s);
process.exit(1);
"""

# Builds and analyzes the project with the default options, renders both tool views, reports.
CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    from pathlib import Path
    from buildfixer.buildsys.analyzed import build_and_analyze
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.tools.build_support import condensed_view, raw_view
    project, state = Path(sys.argv[1]), Path(sys.argv[2])
    start = time.monotonic()
    result, analysis = build_and_analyze(project, BuildOptions(state_dir=state))
    raw, condensed = raw_view(result), condensed_view(result, project)
    root = result.errors[0] if result.errors else None
    print(json.dumps({
        "status": result.status, "build_s": result.duration_s, "total_s": time.monotonic() - start,
        "log_bytes": Path(result.log_path).stat().st_size, "errors": len(result.errors),
        "root": root and {"message": root.message, "file": root.file, "line": root.line},
        "raw": raw, "condensed": condensed,
        "own_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))
    """
)
# Runs the child and reports the peak RSS of it and of everything it started.
WRAPPER = textwrap.dedent(
    """
    import json, resource, subprocess, sys
    proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = {"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr[-4000:], "peak_mb": peak}
    print(json.dumps(report))
    """
)


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """`tmp_path`, emptied after the test: its logs are hundreds of megabytes, and pytest keeps
    the temporary directories of the last three runs."""
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


def flood_project(root: Path, kinds: str, megabytes: int, head: str = "", tail: str = "") -> Path:
    """An npm project whose build prints `head`, about `megabytes` MB of `kinds`, `tail`, and fails."""
    root.mkdir()
    package = {"name": "flood", "version": "1.0.0", "private": True, "scripts": {"build": "node flood.js"}}
    (root / "package.json").write_text(json.dumps(package))
    values = {"kinds": kinds, "total": megabytes * MB, "head": json.dumps(head), "tail": json.dumps(tail)}
    (root / "flood.js").write_text(FLOOD_JS % values)
    return root


def run_measured(code: str, *args: str) -> tuple[dict, float]:
    """Run `python -c code args` under WRAPPER: its JSON report and the peak RSS (MB) of it and of
    every process it started. On a timeout the wrapper's process group goes, the child included."""
    argv = [sys.executable, "-c", WRAPPER, sys.executable, "-c", code, *args]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err
    wrapped = json.loads(out)
    assert wrapped["rc"] == 0, wrapped["err"]
    return json.loads(wrapped["out"]), wrapped["peak_mb"]


def build_in_child(project: Path, state: Path) -> tuple[dict, float]:
    """The report of CHILD building the project, and the peak RSS (MB) of it and of the build."""
    return run_measured(CHILD, str(project), str(state))


def assert_bounded(report: dict, peak_mb: float, megabytes: int) -> None:
    assert report["status"] == "failure"
    assert report["log_bytes"] >= megabytes * MB  # the build did print the flood
    assert peak_mb < MEMORY_BOUND_MB, f"peak RSS {peak_mb:.0f} MB"
    overhead = report["total_s"] - report["build_s"]
    assert overhead < OVERHEAD_BOUND_S, f"{overhead:.1f} s over a {report['build_s']:.1f} s build"
    assert report["errors"] <= 300
    assert len(report["raw"]) < 20_000 and len(report["condensed"]) < 20_000


@pytest.mark.slow
@pytest.mark.parametrize("where", ["first_lines", "last_lines"])
def test_root_error_of_a_120_mb_flood(where: str, scratch: Path):
    head, tail = (JAVAC_ERROR, "") if where == "first_lines" else ("", GRADLE_FAILURE)
    project = flood_project(scratch / "project", CHATTER, 120, head=head, tail=tail)
    report, peak_mb = build_in_child(project, scratch / "state")
    assert_bounded(report, peak_mb, 120)
    root = report["root"]
    if where == "first_lines":
        assert (root["file"], root["line"]) == ("/work/app/src/main/java/demo/App.java", 5)
        assert "cannot find symbol" in root["message"] and "App.java:5" in report["condensed"]
    else:
        assert "com.example:missing-lib:1.2.3" in root["message"]
        assert "missing-lib" in report["condensed"] and "BUILD FAILED" in report["raw"]
    assert "of the log skipped here" in report["raw"]  # the view says that the middle is left out


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(FLOODS))
def test_pathological_output_is_bounded(kind: str, scratch: Path):
    project = flood_project(scratch / "project", FLOODS[kind], 100, tail=JAVAC_ERROR)
    report, peak_mb = build_in_child(project, scratch / "state")
    assert_bounded(report, peak_mb, 100)
    root = report["root"]
    if kind == "dense_errors":  # the first of 600,000 compiler errors, as on a small log
        assert (root["file"], root["line"]) == ("src/demo/F0.java", 1)
    else:  # the compiler error printed after the flood
        assert (root["file"], root["line"]) == ("/work/app/src/main/java/demo/App.java", 5)


# Lines on which a regex of the analyzer backtracked (quadratic or worse in the line's length)
# before it was rewritten; 2,000 of them make a log of 8 MB. Before, each log took from a minute
# (the last ones) to half an hour (the first ones) to analyze; now about a second.
SLOW_LINES = {
    "progress_bar_without_percentage": "\u2501" * 4000,
    "dots_without_percentage": "." * 4000 + "x",
    "aapt_path_without_colon": "AAPT: error: " + "/" * 4000,
    "manifest_path_without_colon": "Error: " + "a" * 4000 + "AndroidManifest.xml",
    "javac_path_without_blank": "/p/A.java:x error: " + "a," * 2000,
    "maven_help_after_blanks": "[ERROR] " + " " * 4000 + "x",
    "ksp_repeated": "[ksp] " * 666,
    "npm_lifecycle_at_signs": "npm error " + "@" * 4000,
    "non_ascii_compiler_error": "/p/A.java:1: error: " + "\u00e9" * 4000,
    "test_suites_phrase_repeated": "/p/A.java:1: error: " + "Test Suites: " * 307,
    "failed_phrase_repeated": "/p/A.java:1: error: :: " + "FAILED " * 570,
}
ANALYSIS_BOUND_S = 10


@pytest.mark.parametrize("attack", sorted(SLOW_LINES))
def test_lines_that_made_regexes_backtrack(attack: str):
    log = "> Task :app:build\n" + "\n".join([SLOW_LINES[attack]] * 2000) + "\n"
    start = time.perf_counter()
    analysis = analyze_text(log)
    elapsed = time.perf_counter() - start
    assert elapsed < ANALYSIS_BOUND_S, f"{elapsed:.1f} s"
    assert analysis.lines  # analyzed, not refused


# `buildfixer analyze FILE` of a huge saved log: read through its windows, whatever its encoding.
ANALYZE_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    from buildfixer.logs.analyze import analyze_file
    start = time.monotonic()
    analysis = analyze_file(sys.argv[1])
    root = analysis.root
    print(json.dumps({"seconds": time.monotonic() - start, "message": root and root.message,
                      "own_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    """
)


@pytest.mark.parametrize(("encoding", "megabytes"), [("utf-8", 100), ("utf-16", 200)])
def test_analyze_a_huge_log_file(encoding: str, megabytes: int, scratch: Path):
    chunk = "".join(f"[worker-{n % 8}] ERROR request {n} failed: upstream timeout\n" for n in range(20_000))
    log = scratch / "huge.log"
    with open(log, "w", encoding=encoding) as out:  # utf-16 writes a byte-order mark first
        out.write(JAVAC_ERROR)
        while out.tell() < megabytes * MB:
            out.write(chunk)
        out.write(GRADLE_FAILURE)
    report, peak_mb = run_measured(ANALYZE_CHILD, str(log))
    assert peak_mb < MEMORY_BOUND_MB, f"peak RSS {peak_mb:.0f} MB"
    assert report["seconds"] < OVERHEAD_BOUND_S
    assert "cannot find symbol" in report["message"]  # the first lines' error, before the flood
