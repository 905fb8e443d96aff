"""Where buildfixer keeps its own files (shared by every layer, so it sits at the bottom)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_root() -> Path:
    """Shared dependency caches, mirrors, workspaces and per-project state.

    `BUILDFIXER_CACHE_DIR` overrides; otherwise `$XDG_CACHE_HOME/buildfixer` or `~/.cache/buildfixer`.
    """
    if os.environ.get("BUILDFIXER_CACHE_DIR"):
        return Path(os.environ["BUILDFIXER_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "buildfixer"


def file_within(root: Path, name: str | Path) -> Path | None:
    """The regular file `name` (relative to `root`, or absolute) names inside `root`, resolved; else None.

    For files named by data (a run folder's result lines and trajectories, maybe someone else's):
    None when the name leads out of `root` (`..` is resolved in the name first, so it cannot climb
    out), when a symlink lies anywhere below `root` on the way, and when the file is not a regular
    one (a FIFO would block its reader, a device is no file to read).
    """
    try:
        root = Path(os.path.abspath(root))
        parts = Path(os.path.normpath(root / name)).relative_to(root).parts
        real = root.resolve().joinpath(*parts)
        # A symlink below root makes the resolved path differ from the path as named.
        if parts and real.resolve() == real and stat.S_ISREG(os.lstat(real).st_mode):
            return real
    except (ValueError, OSError, RuntimeError):  # outside root, missing, a symlink loop
        pass
    return None
