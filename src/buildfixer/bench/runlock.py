"""One `bench run` per run directory at a time: an exclusive lock held for the whole run.

Two runs on one `--out` would both see the same attempts missing and run each of them twice.
The lock is `flock` on `DIR/run.lock`: the kernel drops it when its holder dies, even by kill -9,
so a dead run never blocks the next one (its lock is simply taken over). The file also records
who holds it (pid, host, start time), which is what a refused second run prints.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from buildfixer.core.errors import BuildfixerError

LOCK_FILE = "run.lock"
# Locks this process holds, by path, with how many times each was taken: taking one again is
# free (the CLI takes it before drawing its progress bar, `run_benchmark` inside takes it again).
_HELD: dict[Path, int] = {}


class RunLock:
    """The exclusive lock of one run directory; use as a context manager around the run."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (creating the run directory), or refuse at once if a live run holds it.

        Raises:
            BuildfixerError: Another run holds it: one line naming its pid and start time.
        """
        self.run_dir.mkdir(parents=True, exist_ok=True)
        key = self.path.resolve()
        if key in _HELD:
            _HELD[key] += 1
            self._fd = -1  # held by an outer RunLock of this process
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BuildfixerError(
                f"{self.run_dir} is in use by another `bench run` ({self.holder()}); "
                "wait for it to finish, or use another --out"
            ) from None
        # Ours now: record who we are (a previous holder's record, if any, is replaced).
        started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        record = {"pid": os.getpid(), "host": socket.gethostname(), "started": started}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        self._fd = fd
        _HELD[key] = 1

    def holder(self) -> str:
        """Who holds the lock, in words, from its record (the record may be a moment late)."""
        for _ in range(20):  # the holder writes its record just after taking the lock
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                record = json.loads(self.path.read_text(encoding="utf-8"))
                return f"pid {record['pid']} on {record['host']}, started {record['started']}"
            time.sleep(0.05)
        return "holder unknown"

    def release(self) -> None:
        """Let go of the lock (the record stays, naming the last holder)."""
        if self._fd is None:
            return
        key = self.path.resolve()
        _HELD[key] -= 1
        if self._fd >= 0:  # the outermost: the lock goes with the file's descriptor
            del _HELD[key]
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
