"""The `buildfixer memory` commands: add, import, search, stats and export the fix memory.

Imported at CLI start-up: only typer at module level; the work is in `cli.memory_commands`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

memory_app = typer.Typer(
    name="memory",
    help="The fix memory: past repairs, gold patches and notes, searched by error (SQLite FTS5).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
DbOpt = Annotated[Path | None, typer.Option("--db", help="Memory database (default: in the cache).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@memory_app.command()
def add(
    error: Annotated[str, typer.Option(help="The error the fix or note is about (what a search matches).")],
    patch: Annotated[Path | None, typer.Option(help="The fix, a unified diff.")] = None,
    note: Annotated[str | None, typer.Option(help="Advice in words instead of a patch.")] = None,
    category: Annotated[str | None, typer.Option(help="The error's category.")] = None,
    build_system: Annotated[str | None, typer.Option(help="gradle, maven, python or npm.")] = None,
    db: DbOpt = None,
) -> None:
    """Remember one fix (--patch) or note (--note) for an error, as yours: `fix` may replay it anywhere."""
    from buildfixer.cli import memory_commands

    memory_commands.add_command(error, patch, note, category, build_system, db)


@memory_app.command("import")
def import_(
    source: Annotated[
        Path, typer.Argument(help="A memory export or dataset (JSONL), a note, or a folder of notes.")
    ],
    db: DbOpt = None,
) -> None:
    """Add entries: a dataset's gold patches (train split only), an export, or notes (*.md, *.txt).

    Imported entries count as yours (added on purpose, whatever origin an export recorded): `fix`
    may replay their patches in any of your projects. Import only files you trust.
    """
    from buildfixer.cli import memory_commands

    memory_commands.import_command(source, db)


@memory_app.command()
def search(
    error: Annotated[str, typer.Argument(help="The error to find fixes for.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="At most this many.")] = 5,
    build_system: Annotated[str | None, typer.Option(help="Only this build system's entries.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The remembered fixes for an error, best first (relevance and past success)."""
    from buildfixer.cli import memory_commands

    memory_commands.search_command(error, limit, build_system, db, as_json)


@memory_app.command()
def stats(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """How many entries, of which kinds, build systems and categories; uses and successes."""
    from buildfixer.cli import memory_commands

    memory_commands.stats_command(db, as_json)


@memory_app.command()
def export(
    out: Annotated[Path, typer.Option(help="JSONL file to write (replaced atomically).")], db: DbOpt = None
) -> None:
    """Write every entry as JSON lines (the format `memory import` reads)."""
    from buildfixer.cli import memory_commands

    memory_commands.export_command(out, db)
