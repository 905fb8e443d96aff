"""The fix memory in the harness: what an attempt may read (`knowledge_for`) and what it leaves (`remember`).

Every judged attempt that changed something is remembered, resolved or not (the selector learns
from both), with its trust domain (the repository it was learned on: `memory.trust`); in a
benchmark it carries its instance's id and split, so that no run of that instance, and no run on
a test split, ever reads it back. What an attempt may read is bounded by its trust setting: by
default only its own repository's entries and the user's.
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
from buildfixer.memory.trust import DEFAULT_TRUST


def memory_path(cache_dir: Path, chosen: Path | None = None) -> Path:
    """The memory an attempt reads and writes: `chosen` (a benchmark's own), else the default one."""
    return chosen if chosen is not None else default_path(cache_dir)


def knowledge_for(
    path: Path, build_system: str | None, instance: dict[str, Any] | None, *, domain: str | None = None,
    trust: str = DEFAULT_TRUST,
) -> MemoryKnowledgeBase | None:  # fmt: skip
    """`ask_for_help` from the memory at `path`; None when there is none.

    Bounded by the instance's horizon, and by `trust` seen from `domain` (the repository being
    repaired). With an instance (a benchmark, the environment) nothing is counted into it.
    """
    if not path.is_file():
        return None
    horizon = Horizon(instance.get("created_at"), instance.get("instance_id")) if instance else Horizon()
    return MemoryKnowledgeBase(
        path, build_system, horizon, domain=domain, trust=trust, counts=instance is None
    )  # fmt: skip


def remember(
    initial: BuildResult, resolved: bool, edited: list[str] | None, patch: str, path: Path,
    instance: dict[str, Any] | None = None, origin: str | None = None,
) -> str | None:  # fmt: skip
    """Store a judged attempt's repair of `initial` in the memory at `path`, learned on `origin`.

    Returns why not when the memory cannot (never raises).
    """
    if not patch.strip() or initial.status == "success" or not initial.errors:
        return None
    entry = Entry(
        kind="repair", error=error_summary(initial.errors), category=initial.category,
        build_system=initial.build_system or None, files=list(edited or []), patch=patch,
        resolved=resolved, repo=(instance or {}).get("repo"), instance_id=(instance or {}).get("instance_id"),
        split=(instance or {}).get("split"), origin=origin,
    )  # fmt: skip
    try:
        with FixMemory(path) as memory:
            memory.add(entry)
    except (BuildfixerError, sqlite3.Error, OSError) as exc:
        return f"the fix memory could not store this repair: {exc}"
    return None
