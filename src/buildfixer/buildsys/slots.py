"""A cap on concurrent builds on one machine: a semaphore of lock files shared by every process.

Builds are CPU-heavy; a trainer that runs many environments (Ray actors, worker processes) would
otherwise start as many builds at once as it has rollouts waiting on one. Slot `i` is held by an
exclusive `flock` on `<cache>/build-slots/<i>.lock`: the kernel releases it when its holder exits,
even after `kill -9`, so a crashed process never keeps a slot.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_POLL_S = 0.05


@contextmanager
def build_slot(cache_dir: Path, limit: int | None) -> Iterator[None]:
    """Hold one of `limit` build slots while the block runs (no cap when `limit` is None)."""
    if not limit:
        yield
        return
    directory = cache_dir / "build-slots"
    directory.mkdir(parents=True, exist_ok=True)
    while True:
        for index in range(limit):
            fd = os.open(directory / f"{index}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the lock
            return
        time.sleep(_POLL_S)
