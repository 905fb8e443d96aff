import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project, run_in_sandbox, stop_daemons
from buildfixer.examples import materialize_base

PROBE = r"""
import pathlib, socket, sys
here = pathlib.Path.cwd()
(here / "inside.txt").write_text("ok")
try:
    pathlib.Path(sys.argv[1]).write_text("escaped")
    print("WROTE-OUTSIDE")
except OSError:
    print("outside-readonly")
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    print("NETWORK")
except OSError:
    print("no-network")
"""


def test_sandbox_allows_only_the_project_and_no_network(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    log = tmp_path / "log.txt"
    options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
    result = run_in_sandbox(
        project, options, [sys.executable, "-c", PROBE, str(outside)], env=dict(os.environ), log_path=log,
        timeout_s=60, owner="t-sb",
    )  # fmt: skip
    text = log.read_text()
    assert result.exit_code == 0, text
    assert (project / "inside.txt").read_text() == "ok"
    assert "outside-readonly" in text and not outside.exists()
    assert "no-network" in text


@pytest.mark.slow
def test_gradle_builds_on_one_cache_do_not_wait_on_each_other(tmp_path: Path) -> None:
    """Gradle processes on one Gradle home ask each other for its locks by UDP on loopback.

    A warm unsandboxed daemon and two concurrent sandboxed builds (online and offline) on one
    cache directory: each build succeeds without waiting out Gradle's one-minute lock timeout
    (the unsandboxed one has a Gradle home of its own; the sandboxes of a kind share a loopback).
    """
    cache = Path.cwd() / ".cache" / "test"
    projects = [materialize_base("gradle-app", tmp_path / f"p{i}") for i in range(3)]
    host = BuildOptions(cache_dir=cache, sandbox="none", tasks=["compileJava"])
    sandboxed = BuildOptions(cache_dir=cache, tasks=["compileJava"])
    try:
        assert build_project(projects[0], host).ok  # its daemon stays up, holding the host home's locks
        with ThreadPoolExecutor(2) as pool:
            started = time.monotonic()
            results = list(pool.map(lambda p: build_project(p, sandboxed), projects[1:]))
        elapsed = time.monotonic() - started
        assert all(r.ok for r in results), [Path(r.log_path).read_text()[-1500:] for r in results]
        assert elapsed < 55, elapsed  # a lock timeout alone takes 60 s
    finally:
        for project in projects:
            stop_daemons(project, host)
            stop_daemons(project, sandboxed)
