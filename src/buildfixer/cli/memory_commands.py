"""Bodies of the `buildfixer memory` commands."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import typer

from buildfixer.buildsys.project import SYSTEMS
from buildfixer.cli.patches import read_patch
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.core.terminal import visible
from buildfixer.judge.diff import parse_patch
from buildfixer.memory.select import rank_hits, relevant
from buildfixer.memory.sources import read_entries
from buildfixer.memory.store import USER, Entry, FixMemory, default_path


def default_db() -> Path:
    """The memory's database in the cache directory."""
    return default_path(cache_root())


def _open(db: Path | None, create: bool = True) -> FixMemory:
    """The memory at `db` (default: the cache's); a command that only reads never creates one."""
    path = db or default_db()
    if path.is_dir():
        raise BuildfixerError(f"--db {path} is a directory, not a database file")
    if not create and not path.exists():
        return FixMemory(Path(":memory:"))  # nothing remembered yet: empty, and nothing written
    return FixMemory(path)


def add_command(error: str, patch: Path | None, note: str | None, category: str | None, system: str | None,
        db: Path | None) -> None:  # fmt: skip
    """`memory add`."""
    if (patch is None) == (note is None):
        raise BuildfixerError("give exactly one of --patch (a fix) or --note (advice)")
    if system is not None and system not in SYSTEMS:
        raise BuildfixerError(f"unknown build system {system!r} (known: {', '.join(SYSTEMS)})")
    if not error.strip():
        raise BuildfixerError("--error is empty")
    if patch is not None:
        text = read_patch(patch)
        files = [change.path for change in parse_patch(text)]
        entry = Entry("repair", error, category, system, files, text, origin=USER)
    else:
        entry = Entry("note", error, category, system, [], note or "", origin=USER)
    with _open(db) as memory:
        added = memory.add(entry)
    typer.echo(f"added entry {added}" if added else "already remembered")


def import_command(source: Path, db: Path | None) -> None:
    """`memory import`: test and validation splits are never imported (they would leak into benchmarks).

    What is imported is the user's (origin `user`, whatever origin an export recorded): the user
    asked for this file, so its patches may be replayed in any of their projects.
    """
    if not source.exists():
        raise BuildfixerError(f"no such file or directory: {source}")
    entries = read_entries(source)
    kept = [replace(e, origin=USER) for e in entries if e.split in (None, "train")]
    with _open(db) as memory:
        added = memory.add_many(kept)
    skipped = len(entries) - len(kept)
    note = f"; {skipped} of a test or validation split left out" if skipped else ""
    typer.echo(f"imported {added} new entries of {len(entries)} read{note}")


def search_command(error: str, limit: int, system: str | None, db: Path | None, as_json: bool) -> None:
    """`memory search`."""
    if not error.strip():
        raise BuildfixerError("the error to search for is empty")
    if system is not None and system not in SYSTEMS:
        raise BuildfixerError(f"unknown build system {system!r} (known: {', '.join(SYSTEMS)})")
    with _open(db, create=False) as memory:
        # what the agents are offered: BM25 finds whatever shares a word, `relevant` keeps the same kind
        hits = rank_hits(relevant(memory.search(error, limit=limit * 3, build_system=system), error))[:limit]
    if as_json:
        typer.echo(json.dumps([hit.to_dict() for hit in hits], indent=2))
        return
    if not hits:
        typer.echo("no remembered fix matches")
    for hit in hits:
        first = hit.error.splitlines()[0][:100]
        record = f"used {hit.uses}, worked {hit.successes}"
        # Remembered errors and file names come from builds, models and imported files.
        where = f"{hit.build_system or '-'}/{hit.category or '-'}"
        typer.echo(visible(f"#{hit.id} {hit.kind} [{where}] {record}: {first}"))
        if hit.files:
            typer.echo(visible(f"    files: {', '.join(hit.files[:5])}"))
        typer.echo(visible(f"    origin: {hit.origin or 'unknown (an older entry)'}"))


def stats_command(db: Path | None, as_json: bool) -> None:
    """`memory stats`."""
    with _open(db, create=False) as memory:
        numbers = memory.stats()
    if as_json:
        typer.echo(json.dumps(numbers, indent=2))
        return
    typer.echo(
        f"{numbers['entries']} entries, offered {numbers['uses']} times, {numbers['successes']} worked"
    )
    for key in ("by_kind", "by_build_system", "by_category", "by_origin"):
        parts = ", ".join(f"{name} {count}" for name, count in numbers[key].items())
        # Categories and origins (a repository's remote URL) come from builds and projects.
        typer.echo(visible(f"  {key.removeprefix('by_').replace('_', ' ')}: {parts or '-'}"))


def export_command(out: Path, db: Path | None) -> None:
    """`memory export`: written whole or not at all."""
    if out.is_dir():
        raise BuildfixerError(f"--out {out} is a directory")
    with _open(db, create=False) as memory:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
        count = 0
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                for entry in memory.entries():
                    data = entry.to_dict()
                    data.pop("score", None)
                    file.write(json.dumps(data) + "\n")
                    count += 1
            os.replace(name, out)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
    typer.echo(f"wrote {count} entries to {out}")
