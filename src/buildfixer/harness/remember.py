"""The fix memory in the harness: what an attempt may read (`knowledge_for`) and what it leaves (`remember`).

Every judged attempt that changed something is remembered, resolved or not (the selector learns
from both); in a benchmark it carries its instance's id and split, so that no run of that
instance, and no run on a test split, ever reads it back.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.memory.knowledge import Horizon, MemoryKnowledgeBase
from buildfixer.memory.sources import error_summary
from buildfixer.memory.store import Entry, FixMemory, default_path


def knowledge_for(
    cache_dir: Path, build_system: str | None, instance: dict[str, Any] | None
) -> MemoryKnowledgeBase | None:
    """`ask_for_help` from the memory, bounded by the instance's horizon; None when there is no memory."""
    path = default_path(cache_dir)
    if not path.is_file():
        return None
    horizon = Horizon(instance.get("created_at"), instance.get("instance_id")) if instance else Horizon()
    return MemoryKnowledgeBase(path, build_system, horizon)


def remember(
    initial: BuildResult, resolved: bool, edited: list[str] | None, patch: str, cache_dir: Path,
    instance: dict[str, Any] | None = None,
) -> str | None:  # fmt: skip
    """Store a judged attempt's repair of `initial`; why not when the memory cannot (never raises)."""
    if not patch.strip() or initial.status == "success" or not initial.errors:
        return None
    entry = Entry(
        kind="repair", error=error_summary(initial.errors), category=initial.category,
        build_system=initial.build_system or None, files=list(edited or []), patch=patch,
        resolved=resolved, repo=(instance or {}).get("repo"), instance_id=(instance or {}).get("instance_id"),
        split=(instance or {}).get("split"),
    )  # fmt: skip
    try:
        with FixMemory(default_path(cache_dir)) as memory:
            memory.add(entry)
    except (BuildfixerError, sqlite3.Error, OSError) as exc:
        return f"the fix memory could not store this repair: {exc}"
    return None
