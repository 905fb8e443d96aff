"""A control group per sandbox: how many tasks it runs, how much memory it takes, its CPU weight.

cgroup v2 is used where its controllers are available (buildfixer then makes `buildfixer/` under
the hierarchy's root and enables pids, memory and cpu below it); otherwise each v1 hierarchy
(`pids`, `memory`, `cpu`) gets a group under the one buildfixer runs in. Both need write access,
which root has; without it (or with neither hierarchy) `create` returns None and the sandbox's
rlimits are what bound it (buildsys.sandbox.limits).

The sandbox's first process joins its group before it starts bubblewrap (`join_prefix`), so
nothing it starts is ever outside. The sandboxed user cannot leave: the group files are root's.
A group is removed when its sandbox ends; groups of buildfixer processes that died are swept.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from buildfixer.buildsys.sandbox.limits import Limits

_CONTROLLERS = ("pids", "memory", "cpu")
_counter = itertools.count()


@dataclass
class SandboxCgroup:
    """The groups of one sandbox: one directory per hierarchy it was made in."""

    dirs: dict[str, Path]  # controller -> its group directory (one directory for all on v2)
    v2: bool
    _seen: dict[str, int] = field(default_factory=dict)

    def join_prefix(self) -> list[str]:
        """A command prefix that moves itself into the groups, then runs what follows."""
        procs = ":".join(sorted({str(d / "cgroup.procs") for d in self.dirs.values()}))
        script = 'IFS=:; for p in $0; do echo $$ > "$p" || exit 125; done; exec "$@"'
        return ["/bin/sh", "-c", script, procs]

    def hits(self) -> list[str]:
        """The limits reached since the last call: "processes", "memory" (as Limits fields)."""
        found = []
        for name, controller, file, key in (
            ("processes", "pids", "pids.events", "max"),
            ("memory", "memory", "memory.events" if self.v2 else "memory.oom_control", "oom_kill"),
        ):
            directory = self.dirs.get(controller)
            count = _event(directory / file, key) if directory else 0
            if count > self._seen.get(name, 0):
                found.append(name)
            self._seen[name] = count
        return found

    def remove(self) -> None:
        """Kill what is left inside and remove the groups (a few tries: dying tasks take a moment)."""
        for directory in set(self.dirs.values()):
            for _ in range(400):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    _kill_members(directory)
                    time.sleep(0.005)


def create(limits: Limits) -> SandboxCgroup | None:
    """New groups with `limits` for one sandbox; None where no writable cgroup hierarchy exists."""
    name = f"{os.getpid()}-{next(_counter)}"
    v2 = _v2_base()
    if v2 is not None:
        directory = v2 / name
        with contextlib.suppress(OSError):
            directory.mkdir()
            _write(directory / "pids.max", limits.processes)
            _write(directory / "memory.max", limits.memory)
            with contextlib.suppress(OSError):  # absent without swap accounting
                _write(directory / "memory.swap.max", 0)
            with contextlib.suppress(OSError):
                _write(directory / "cpu.weight", 50)  # half the host's default: the machine stays usable
            return SandboxCgroup({c: directory for c in _CONTROLLERS}, v2=True)
        _remove_quietly(directory)
    dirs: dict[str, Path] = {}
    for controller, base in _v1_bases().items():
        directory = base / f"buildfixer-{name}"
        try:
            directory.mkdir()
            dirs[controller] = directory
            if controller == "pids":
                _write(directory / "pids.max", limits.processes)
            elif controller == "memory":
                _write(directory / "memory.limit_in_bytes", limits.memory)
                with contextlib.suppress(OSError):  # swap too, where it is accounted
                    _write(directory / "memory.memsw.limit_in_bytes", limits.memory)
            else:
                _write(directory / "cpu.shares", 512)
        except OSError:
            _remove_quietly(directory)
            dirs.pop(controller, None)
    return SandboxCgroup(dirs, v2=False) if dirs else None


def memory_available() -> bool:
    """Whether sandboxes get a memory-limited control group here (else rlimits bound each process)."""
    return _v2_base() is not None or "memory" in _v1_bases()


@cache
def _v2_base() -> Path | None:
    """`buildfixer/` under the v2 root with pids, memory and cpu enabled for its children; or None."""
    mount = next((m for fstype, m, _ in _mounts() if fstype == "cgroup2"), None)
    if mount is None:
        return None
    try:
        available = (mount / "cgroup.controllers").read_text().split()
        if not all(c in available for c in _CONTROLLERS):
            return None
        base = mount / "buildfixer"
        base.mkdir(exist_ok=True)
        enable = " ".join(f"+{c}" for c in _CONTROLLERS)
        _write(mount / "cgroup.subtree_control", enable)
        _write(base / "cgroup.subtree_control", enable)
    except OSError:
        return None
    _sweep(base, "")
    return base


@cache
def _v1_bases() -> dict[str, Path]:
    """Controller -> the v1 group buildfixer runs in, for the hierarchies mounted and writable."""
    ours: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                ours[controller] = path
    bases = {}
    for fstype, mount, options in _mounts():
        for controller in _CONTROLLERS:
            if fstype == "cgroup" and controller in options and controller in ours:
                base = mount / ours[controller].lstrip("/")
                if base.is_dir() and os.access(base, os.W_OK):
                    bases[controller] = base
                    _sweep(base, "buildfixer-")
    return bases


def _mounts() -> list[tuple[str, Path, set[str]]]:
    """(fstype, mount point, super options) of the cgroup mounts, from /proc/self/mountinfo."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            tail = fields[fields.index("-") + 1 :]
            # A container may mount only its own part of a hierarchy; buildfixer uses a root mount.
            if tail and tail[0] in ("cgroup", "cgroup2") and fields[3] == "/":
                found.append((tail[0], Path(fields[4]), set(tail[2].split(","))))
    return found


def _sweep(base: Path, prefix: str) -> None:
    """Remove groups left by buildfixer processes that died (their names start with the pid)."""
    for entry in base.glob(f"{prefix}*-*"):
        pid = entry.name.removeprefix(prefix).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _kill_members(entry)
            _remove_quietly(entry)


def _kill_members(directory: Path) -> None:
    with contextlib.suppress(OSError):
        for pid in (directory / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def _event(path: Path, key: str) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def _write(path: Path, value: object) -> None:
    path.write_text(f"{value}\n")


def _remove_quietly(directory: Path) -> None:
    with contextlib.suppress(OSError):
        directory.rmdir()
