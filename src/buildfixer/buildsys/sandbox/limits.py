"""What one sandbox may consume: processes, memory, CPU time, file sizes, /tmp and free disk.

A fork bomb or a memory bomb in a build script must stop within seconds, not when the build's
wall-clock timeout ends long after the machine went down. Each sandbox gets a control group of
its own where the kernel offers one (cgroup v2, or the v1 `pids`/`memory`/`cpu` hierarchies,
writable when buildfixer runs as root): a task count, a memory limit (swap included) and a lower
CPU weight than the host's own processes. Everywhere, the sandbox's first process sets rlimits
(processes per uid, data size, CPU seconds, file size) before it runs anything, its /tmp is a
tmpfs of bounded size, and the runner stops a build when a writable filesystem runs low.

Every value has a default a user can raise with a variable (`BUILDFIXER_SANDBOX_MEMORY=16G`);
a bad value is refused in one line before any build (`sandbox_limits`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache

from buildfixer.core.errors import BuildfixerError

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Limits:
    """The bounds of one sandbox.

    Attributes:
        processes: Tasks (processes and threads) in the sandbox at once: its cgroup's `pids.max`;
            without a cgroup, RLIMIT_NPROC of the sandbox's user.
        memory: Bytes of memory (swap included) of the whole sandbox in its cgroup, /tmp's files
            too; without a cgroup, the data size of each process (RLIMIT_DATA).
        cpu_s: CPU seconds of each process (RLIMIT_CPU); the build's wall-clock timeout bounds the rest.
        file_size: Bytes of any one file a sandboxed process writes (RLIMIT_FSIZE).
        tmp_size: Bytes of the sandbox's own /tmp (a tmpfs: it lives in memory).
        disk_free: Free bytes below which a writable filesystem (workspace, caches) stops the build.
    """

    processes: int
    memory: int
    cpu_s: int
    file_size: int
    tmp_size: int
    disk_free: int

    def describe(self, name: str) -> str:
        """The limit `name` in words, with the variable that raises it."""
        value = getattr(self, name)
        shown = f"{value} s" if name == "cpu_s" else str(value) if name == "processes" else _size(value)
        return f"{_WORDS[name]} {shown} (raise it with {VARIABLES[name]})"


VARIABLES = {
    "processes": "BUILDFIXER_SANDBOX_PROCESSES",
    "memory": "BUILDFIXER_SANDBOX_MEMORY",
    "cpu_s": "BUILDFIXER_SANDBOX_CPU_SECONDS",
    "file_size": "BUILDFIXER_SANDBOX_FILE_SIZE",
    "tmp_size": "BUILDFIXER_SANDBOX_TMP_SIZE",
    "disk_free": "BUILDFIXER_SANDBOX_DISK_FREE",
}
_WORDS = {
    "processes": "processes and threads at once:",
    "memory": "memory:",
    "cpu_s": "CPU time per process:",
    "file_size": "size of one file:",
    "tmp_size": "size of /tmp:",
    "disk_free": "free disk space kept:",
}


def default_limits() -> Limits:
    """Generous for a real Gradle or npm build, small enough that a bomb never takes the machine."""
    memory = _physical_memory()
    return Limits(
        processes=2048,
        memory=max(2 << 30, memory // 2),  # half the machine: builds, their daemons and tests
        cpu_s=3600,
        file_size=8 << 30,
        tmp_size=2 << 30,
        disk_free=1 << 30,
    )


@cache
def sandbox_limits() -> Limits:
    """The limits in force: the defaults, each overridden by its variable.

    Raises:
        BuildfixerError: A variable that is not a positive whole number (sizes may end in K, M,
            G or T), in one line naming it.
    """
    values = vars(default_limits()).copy()
    for name, variable in VARIABLES.items():
        raw = os.environ.get(variable, "").strip()
        if raw:
            values[name] = _parse(variable, raw, sized=name not in ("processes", "cpu_s"))
    return Limits(**values)


def _parse(variable: str, raw: str, sized: bool) -> int:
    pattern = r"(\d{1,15})([KMGT]?)(?:i?B)?" if sized else r"(\d{1,9})()"
    found = re.fullmatch(pattern, raw, re.IGNORECASE)
    value = int(found.group(1)) * _UNITS[found.group(2).upper()] if found else 0
    if value <= 0:
        example = "a size such as 8G or 512M" if sized else "a positive whole number"
        raise BuildfixerError(f"{variable} must be {example}, got {raw!r}")
    return value


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 8 << 30


def _size(value: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if value >= _UNITS[unit] and value % _UNITS[unit] == 0:
            return f"{value // _UNITS[unit]} {unit}iB"
    return f"{value} bytes"
