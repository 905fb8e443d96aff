import os
import sys
import time
from pathlib import Path

import pytest

from buildfixer.buildsys.runner import BuildStep, kill_owned, owned_pids, read_tail, run_steps

# A "build" that starts a child ignoring SIGTERM and a detached daemon (new session,
# like a Gradle daemon), then hangs: the timeout must leave none of them behind.
HANGING_BUILD = r"""
import os, signal, subprocess, sys, time
STUBBORN = "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
subprocess.Popen([sys.executable, "-c", STUBBORN])
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
print("started", flush=True)
time.sleep(600)
"""


def test_steps_run_in_order_and_log_everything(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    steps = [
        BuildStep([sys.executable, "-c", "print('first')"]),
        BuildStep(
            [sys.executable, "-c", "import sys; print('second'); sys.stderr.write('oops\\n'); sys.exit(3)"]
        ),
        BuildStep([sys.executable, "-c", "print('never')"]),
    ]
    result = run_steps(steps, cwd=tmp_path, env=dict(os.environ), log_path=log, timeout_s=60, owner="t-order")
    text = log.read_text()
    assert result.exit_code == 3
    assert not result.timed_out
    assert result.failed_step == steps[1].argv
    assert "first" in text and "second" in text and "oops" in text
    assert "never" not in text
    assert text.index("first") < text.index("second")


@pytest.mark.slow
def test_timeout_kills_the_whole_tree_including_detached_daemons(tmp_path: Path) -> None:
    owner = f"t-timeout-{os.getpid()}"
    start = time.monotonic()
    result = run_steps(
        [BuildStep([sys.executable, "-c", HANGING_BUILD])],
        cwd=tmp_path,
        env=dict(os.environ),
        log_path=tmp_path / "build.log",
        timeout_s=3,
        owner=owner,
    )
    assert result.timed_out
    assert time.monotonic() - start < 20
    time.sleep(0.2)
    assert owned_pids(owner) == []
    assert "timeout after 3s" in (tmp_path / "build.log").read_text()


def test_missing_program_is_reported_not_raised(tmp_path: Path) -> None:
    result = run_steps(
        [BuildStep(["definitely-not-a-program-xyz"])],
        cwd=tmp_path,
        env=dict(os.environ),
        log_path=tmp_path / "b.log",
        timeout_s=10,
        owner="t-missing",
    )
    assert result.exit_code == 127
    assert "cannot run definitely-not-a-program-xyz" in (tmp_path / "b.log").read_text()


def test_kill_owned_finds_processes_by_environment(tmp_path: Path) -> None:
    import subprocess

    owner = f"t-owned-{os.getpid()}"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        env={**os.environ, "BUILDFIXER_OWNER": owner},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while owned_pids(owner) != [proc.pid] and time.monotonic() < deadline:
            time.sleep(0.05)  # until exec: the child still shows its parent's environment
        assert owned_pids(owner) == [proc.pid]
        assert kill_owned(owner) == 1
        assert proc.wait(timeout=10) != 0
    finally:
        proc.kill()


def test_read_tail_caps_output(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_text("".join(f"line {i}\n" for i in range(100_000)))
    tail = read_tail(log, max_bytes=1000)
    assert len(tail) < 1100
    assert tail.rstrip().endswith("line 99999")
    assert tail.startswith("[... earlier output")


def test_unrecognised_failure_still_yields_a_root_error(tmp_path: Path) -> None:
    from buildfixer.buildsys.analyzed import build_and_analyze
    from buildfixer.buildsys.options import BuildOptions

    package = '{"name": "x", "version": "1.0.0", "scripts": {"build": "node b.js"}}'
    (tmp_path / "package.json").write_text(package)
    (tmp_path / "b.js").write_text("console.log('weird tool says: kaboom'); process.exit(3)\n")
    result, _ = build_and_analyze(tmp_path, BuildOptions(cache_dir=tmp_path / "cache", timeout_s=300))
    assert result.status == "failure"
    assert result.category == "other"
    assert "kaboom" in result.errors[0].message
