"""Temporary directories that name the process owning them, so a later run can remove a dead one's.

A process killed with -9 runs no cleanup: its workspace, snapshot and half-made mirror clone stay
in the cache. Each such directory is therefore created as `<prefix><pid>-<random>`, the pid being
its creator's; before creating a new one, buildfixer removes those whose process is gone. A live
process's directories are never touched (several bench workers share one cache), and a name
without a pid (a directory made by hand, or by an older version) is left alone. A pooled
workspace's lock file (`take_lock`) holds its owner's pid the same way.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

# `-<pid>-` then tempfile's random part (8 of a-z, 0-9, _), at the end of the name.
_OWNED = re.compile(r"(?:^|-)(\d+)-[a-z0-9_]{8}$")


def owned_temp_dir(parent: Path, prefix: str) -> Path:
    """Create `parent/<prefix><pid>-<random>`, first removing the dead processes' directories there."""
    parent.mkdir(parents=True, exist_ok=True)
    sweep_dead(parent)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


def owner_pid(name: str) -> int | None:
    """The pid in an owned directory's name (None for a name that carries none)."""
    found = _OWNED.search(name)
    return int(found.group(1)) if found else None


def owner_is_dead(name: str) -> bool:
    """True when the name carries a pid and that process no longer exists."""
    pid = owner_pid(name)
    return pid is not None and not pid_alive(pid)


def sweep_dead(parent: Path) -> list[Path]:
    """Remove the directories in `parent` whose owner is dead; returns those removed."""
    removed: list[Path] = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if owner_is_dead(entry.name) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def take_lock(lock: Path) -> bool:
    """Create the lock file holding our pid; a lock whose process is gone is taken over.

    The file appears with its pid already in it (written aside, then hard-linked into place):
    a lock read between its creation and the write would look abandoned and be taken twice.
    """
    pending = lock.with_name(f".{lock.name}.{os.getpid()}.{threading.get_ident()}")
    pending.write_text(str(os.getpid()))
    try:
        for _ in range(2):
            try:
                os.link(pending, lock)
                return True
            except FileExistsError:
                try:
                    holder = int(lock.read_text().strip() or "0")
                except (OSError, ValueError):
                    holder = 0
                if holder and pid_alive(holder):
                    return False
                lock.unlink(missing_ok=True)
        return False
    finally:
        pending.unlink(missing_ok=True)


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists (one of another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
