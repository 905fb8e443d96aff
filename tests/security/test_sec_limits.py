"""What a sandbox may consume: bombs stop within seconds, with the limit named, the machine usable.

Before, only the build's wall-clock timeout (600 s for tools, 1,800 s for builds) stopped a fork
bomb or a memory bomb, long after the machine went down. Each test runs one bomb for real in a
sandbox as builds and tools use it, with a small limit set through its variable.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox
from buildfixer.buildsys.runner import RunResult
from buildfixer.buildsys.sandbox import cgroups
from buildfixer.buildsys.sandbox.limits import VARIABLES, sandbox_limits


@pytest.fixture(autouse=True)
def fresh_limits():
    sandbox_limits.cache_clear()
    yield
    sandbox_limits.cache_clear()


def bomb(tmp_path: Path, command: str, timeout_s: float = 120) -> tuple[RunResult, str, float]:
    project = tmp_path / "p"
    project.mkdir(exist_ok=True)
    log = tmp_path / f"log-{uuid.uuid4().hex[:6]}"
    options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
    start = time.monotonic()
    run = run_in_sandbox(
        project, options, ["sh", "-c", command], env={"PATH": "/usr/bin:/bin"}, log_path=log,
        timeout_s=timeout_s, owner="t-limits",
    )  # fmt: skip
    return run, log.read_text(errors="replace"), time.monotonic() - start


def _host_latency() -> float:
    start = time.monotonic()
    subprocess.run(["true"], check=True)
    return time.monotonic() - start


needs_groups = pytest.mark.skipif(not cgroups.memory_available(), reason="no writable control groups here")


@needs_groups
def test_a_fork_bomb_stops_within_seconds_and_the_host_stays_usable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES["processes"], "200")
    latencies: list[float] = []
    done = threading.Event()

    def measure() -> None:
        while not done.is_set():
            latencies.append(_host_latency())
            time.sleep(0.2)

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    try:
        run, log, took = bomb(tmp_path, "b() { b | b & }; b; sleep 100")
    finally:
        done.set()
        thread.join()
    assert run.limit == "processes", log[-500:]
    assert took < 30
    assert "reached its limit of processes and threads at once: 200" in log
    assert "BUILDFIXER_SANDBOX_PROCESSES" in log
    assert max(latencies) < 2.0  # the machine answered all along


@needs_groups
def test_a_memory_bomb_stops_within_seconds(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES["memory"], "256M")
    hog = 'python3 -c "a = []\nwhile True: a.append(bytearray(10 ** 7))"; sleep 100'
    run, log, took = bomb(tmp_path, hog)
    assert run.limit == "memory", log[-500:]
    assert took < 30
    assert "memory: 256 MiB" in log


def test_tmp_is_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES["tmp_size"], "16M")
    run, log, _ = bomb(tmp_path, "head -c 64M /dev/zero > /tmp/fill; echo rc=$?; du -m /tmp/fill | cut -f1")
    size = int(log.strip().splitlines()[-1])
    assert "rc=0" not in log and size <= 16


def test_one_huge_file_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES["file_size"], "8M")
    run, log, _ = bomb(tmp_path, "exec head -c 64M /dev/zero > big")
    assert run.limit == "file_size", log[-300:]
    assert (tmp_path / "p" / "big").stat().st_size <= 8 << 20


@pytest.mark.slow
def test_cpu_time_is_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES["cpu_s"], "2")
    run, log, took = bomb(tmp_path, f"exec {shutil.which('python3') or 'python3'} -c 'while True: pass'")
    assert run.limit == "cpu_s", log[-300:]
    assert took < 30


def test_a_disk_filling_build_stops_before_the_disk_is_full(tmp_path: Path, monkeypatch) -> None:
    free = shutil.disk_usage(tmp_path).free
    if free < 2 << 30:
        pytest.skip("less than 2 GiB free here")
    # Leave all but 64 MiB of what is free now: writing 1 GiB crosses that floor quickly.
    monkeypatch.setenv(VARIABLES["disk_free"], str(free - (64 << 20)))
    run, log, took = bomb(tmp_path, "for i in $(seq 100); do head -c 10M /dev/zero > f$i; sleep 0.05; done")
    assert run.limit == "disk_free", log[-300:]
    assert sum(f.stat().st_size for f in (tmp_path / "p").glob("f*")) < 512 << 20
    assert took < 60


@pytest.mark.parametrize("name,value", [("memory", "lots"), ("processes", "0"), ("tmp_size", "-1G"),
                                        ("cpu_s", "1.5"), ("disk_free", "12Q")])  # fmt: skip
def test_a_bad_limit_is_refused_before_any_build(name: str, value: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '1'\n")
    env = {**os.environ, VARIABLES[name]: value, "BUILDFIXER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "buildfixer", "build", str(project)], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert VARIABLES[name] in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "cache" / "state").exists()  # nothing built, nothing written
