"""Where buildfixer keeps its own files (shared by every layer, so it sits at the bottom)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """Shared dependency caches, mirrors, workspaces and per-project state.

    `BUILDFIXER_CACHE_DIR` overrides; otherwise `$XDG_CACHE_HOME/buildfixer` or `~/.cache/buildfixer`.
    """
    if os.environ.get("BUILDFIXER_CACHE_DIR"):
        return Path(os.environ["BUILDFIXER_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "buildfixer"
