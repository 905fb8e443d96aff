"""Entries for the fix memory from what buildfixer has: a build's errors, a dataset row, a note file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from buildfixer.core.build_result import BuildError
from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.analyze import analyze_text
from buildfixer.memory.store import Entry

_NOTE_SUFFIXES = (".md", ".txt")
_MAX_NOTE_CHARS = 20_000


def error_summary(errors: list[BuildError], limit: int = 3) -> str:
    """The first errors as `file:line message` lines: what a memory entry is found by."""
    lines = []
    for error in errors[:limit]:
        where = (
            f"{error.file}:{error.line} "
            if error.file and error.line
            else f"{error.file} "
            if error.file
            else ""
        )
        lines.append(f"{where}{error.message}".strip())
    return "\n".join(lines)


def from_instance(row: dict[str, Any]) -> Entry:
    """A benchmark instance's gold patch, found by the root errors of its log."""
    if not row.get("gold_patch") or not row.get("error_log"):
        raise BuildfixerError(f"instance {row.get('instance_id', '?')} has no gold_patch or error_log")
    analysis = analyze_text(str(row["error_log"]))
    created = row.get("created_at")
    return Entry(
        kind="gold", error=error_summary(analysis.errors) or str(row["error_log"])[-2000:],
        category=row.get("category") or analysis.category, build_system=row.get("build_system"),
        files=patch_files(str(row["gold_patch"])), patch=str(row["gold_patch"]), repo=row.get("repo"),
        instance_id=row.get("instance_id"), split=row.get("split"),
        created_at=str(created) if created else "",
    )  # fmt: skip


def patch_files(patch: str) -> list[str]:
    """The files a unified diff changes (from its `diff --git` or `+++`/`---` headers)."""
    names = re.findall(r"^diff --git a/(\S+) b/", patch, re.M)
    if not names:
        names = [n for n in re.findall(r"^(?:\+\+\+ b/|--- a/)(\S+)", patch, re.M)]
    return list(dict.fromkeys(names))


def from_note(path: Path) -> Entry:
    """A user's note (markdown or text): its first line is the error it is about, the rest the advice."""
    text = path.read_text(encoding="utf-8", errors="replace")[:_MAX_NOTE_CHARS]
    if not text.strip():
        raise BuildfixerError(f"empty note: {path}")
    return Entry(kind="note", error=text.strip().splitlines()[0], patch=text, files=[path.name])


def read_entries(path: Path) -> list[Entry]:
    """Entries from a file: a memory export or dataset (JSONL), or a note; a directory of notes."""
    if path.is_dir():
        return [from_note(p) for p in sorted(path.rglob("*")) if p.is_file() and p.suffix in _NOTE_SUFFIXES]
    if path.suffix in _NOTE_SUFFIXES:
        return [from_note(path)]
    entries = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BuildfixerError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise BuildfixerError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(row, dict):
            raise BuildfixerError(f"{path}:{number}: not a JSON object")
        if "gold_patch" in row:
            entries.append(from_instance(row))
        elif "kind" in row and "error" in row:
            known = {
                k: v for k, v in row.items() if k in Entry.__dataclass_fields__ and k not in ("id", "score")
            }
            entries.append(Entry(**known))
        else:
            raise BuildfixerError(f"{path}:{number}: neither a memory entry nor a dataset instance")
    return entries
