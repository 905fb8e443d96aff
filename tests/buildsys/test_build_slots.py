"""The build cap: at most N builds at once across processes, and a dead holder frees its slot."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from buildfixer.buildsys.slots import build_slot

HOLD = """import sys, time
from pathlib import Path
from buildfixer.buildsys.slots import build_slot
with build_slot(Path(sys.argv[1]), 1):
    print("held", flush=True)
    time.sleep(60)
"""


def test_no_more_than_the_limit_run_at_once(tmp_path: Path) -> None:
    running, peak, lock = 0, 0, threading.Lock()

    def build() -> None:
        nonlocal running, peak
        with build_slot(tmp_path, 2):
            with lock:
                running += 1
                peak = max(peak, running)
            time.sleep(0.2)
            with lock:
                running -= 1

    threads = [threading.Thread(target=build) for _ in range(6)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak == 2
    assert time.monotonic() - began >= 0.55  # six builds of 0.2 s, two at a time: three rounds


def test_a_killed_holder_frees_its_slot(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    got = threading.Event()
    waiter = threading.Thread(target=lambda: _take(tmp_path, got))
    waiter.start()
    time.sleep(0.3)
    assert not got.is_set()  # the only slot is held
    holder.kill()
    holder.wait()
    waiter.join(timeout=10)
    assert got.is_set()


def _take(cache: Path, got: threading.Event) -> None:
    with build_slot(cache, 1):
        got.set()


def test_no_cap_takes_no_slot(tmp_path: Path) -> None:
    with build_slot(tmp_path, None):
        assert not (tmp_path / "build-slots").exists()
