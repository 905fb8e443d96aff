"""A step that prints nothing and uses no CPU is stopped as stalled; one that works is not."""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.buildsys.runner import BuildStep, run_steps
from buildfixer.buildsys.sandbox.backends import Bubblewrap, confinement_for
from buildfixer.buildsys.sandbox.session import SandboxSession

ENV = {"PATH": os.environ["PATH"]}
STALL_S = 3.0


def run(tmp_path: Path, script: str, session=None):
    started = time.monotonic()
    result = run_steps(
        [BuildStep([sys.executable, "-c", script])], cwd=tmp_path, env=ENV, log_path=tmp_path / "log",
        timeout_s=120, owner=f"t-stall-{os.getpid()}", session=session, stall_s=STALL_S,
    )  # fmt: skip
    return result, time.monotonic() - started


def test_a_silent_idle_step_is_stopped_as_stalled(tmp_path: Path) -> None:
    result, elapsed = run(tmp_path, "import time; time.sleep(600)")
    assert result.stalled and result.timed_out and result.exit_code != 0
    assert elapsed < 30  # not the 120 s timeout
    assert "stalled: no output and no CPU" in (tmp_path / "log").read_text()


def test_a_silent_busy_step_is_not_a_stall(tmp_path: Path) -> None:
    # Computes for twice the stall window without printing a thing (a long compile does that).
    script = "import time\nend = time.time() + 7\nwhile time.time() < end: pass\n"
    result, _ = run(tmp_path, script)
    assert not result.stalled and result.exit_code == 0


def test_an_idle_step_that_prints_is_not_a_stall(tmp_path: Path) -> None:
    script = "import time\nfor i in range(7):\n    print(i, flush=True); time.sleep(1)\n"
    result, _ = run(tmp_path, script)
    assert not result.stalled and result.exit_code == 0


@pytest.mark.slow
def test_a_stall_in_the_sandbox_ends_the_session(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    prefix = Bubblewrap().wrap([], confinement_for(project, BuildOptions(cache_dir=tmp_path / "cache")))
    session = SandboxSession(prefix)
    try:
        result, elapsed = run(project, "import time; time.sleep(600)", session=session)
        assert result.stalled and result.timed_out and elapsed < 30
        assert not session.alive()
    finally:
        session.close()


@pytest.mark.slow
def test_a_build_that_waits_forever_reads_as_a_stalled_timeout(tmp_path: Path) -> None:
    # An npm script that never ends and never prints, like `npm ci` on a lockfile it cannot reconcile.
    project = tmp_path / "waits"
    project.mkdir()
    script = "node -e \"setTimeout(() => {}, 600000)\""
    manifest = {"name": "waits", "version": "1.0.0", "scripts": {"build": script}}
    (project / "package.json").write_text(json.dumps(manifest))
    options = BuildOptions(cache_dir=tmp_path / "cache", timeout_s=300, stall_s=STALL_S, warm=False)
    started = time.monotonic()
    result = build_project(project, options)
    assert result.status == "timeout"
    assert time.monotonic() - started < 120
    assert "stalled" in Path(result.log_path).read_text()
