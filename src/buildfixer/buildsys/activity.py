"""What a build's processes are doing: which they are, how much CPU they use, whether they stalled.

Every process a build starts carries `BUILDFIXER_OWNER=<token>` in its environment (buildsys.runner
sets it; Gradle daemons and anything else that leaves the process group inherit it), so the
build's processes are found by that tag, inside a sandbox too (its processes are visible here).

A build that waits forever (npm 11's `npm ci` on a lockfile out of sync, a prompt nobody answers,
a lock a dead process holds, a read from a peer that never replies) used to cost the whole
timeout, thirty minutes by default, in `build` and again in every `fix` attempt. A build that
works prints or computes: `StallWatch` says a step stalled when its log has not grown and its
processes used almost no CPU for a while (`BuildOptions.stall_s`).
"""

from __future__ import annotations

import os
import time

OWNER_VAR = "BUILDFIXER_OWNER"
# CPU a stalled build may still use: a JVM or node idling, a polling loop, a keep-alive.
_IDLE_SHARE = 0.02
_CHECK_S = 5.0  # how often a watch looks (a /proc walk costs a few milliseconds)
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def owned_pids(owner: str) -> list[int]:
    """PIDs of live processes whose environment carries this owner token (Linux /proc)."""
    marker = f"{OWNER_VAR}={owner}".encode()
    found = []
    me = os.getpid()
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else []:
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def cpu_seconds(pids: list[int]) -> float:
    """CPU time the processes used so far, with that of their children that ended (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return total / _TICKS


class StallWatch:
    """Whether a step has stalled: no output to its log and almost no CPU for `stall_s`."""

    def __init__(self, log_fd: int, owner: str, stall_s: float) -> None:
        self._log_fd, self._owner, self._stall_s = log_fd, owner, stall_s
        self._checked = time.monotonic()
        self._quiet_since = self._checked
        self._size = self._log_size()
        self._cpu = cpu_seconds(owned_pids(owner))

    def _log_size(self) -> int:
        try:
            return os.fstat(self._log_fd).st_size
        except OSError:
            return 0

    def stalled(self) -> bool:
        """True once the step has been quiet for `stall_s`; cheap to call often (looks every few seconds)."""
        now = time.monotonic()
        if now - self._checked < min(_CHECK_S, self._stall_s / 2):
            return False
        size, cpu = self._log_size(), cpu_seconds(owned_pids(self._owner))
        busy = size != self._size or cpu - self._cpu > _IDLE_SHARE * (now - self._checked)
        self._checked, self._size, self._cpu = now, size, cpu
        if busy:
            self._quiet_since = now
        return now - self._quiet_since >= self._stall_s
