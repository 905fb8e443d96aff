"""Terminal view of `buildfixer curate`: a progress bar per stage, a line per kept or rejected candidate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from buildfixer.curate.filters import Outcome
from buildfixer.curate.pipeline import Summary

_STAGES = {"build": "building branch commits", "filter": "filtering candidates"}


def curate_with_progress(
    curate: Callable[..., Summary], mode: str, repo: str, out: Path, kwargs: dict[str, Any]
) -> Summary:
    """Run `curate(mode, repo, out, **kwargs)` showing its progress on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    kept = 0
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("kept {task.fields[kept]}"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int, outcome: Outcome | None) -> None:
            nonlocal kept
            if stage not in tasks:
                tasks[stage] = progress.add_task(
                    f"{mode}: {_STAGES.get(stage, stage)}", total=total, kept=kept
                )
            if outcome is not None:
                kept += outcome.accepted
                mark = "[green]✓[/]" if outcome.accepted else f"[dim]✗ {outcome.filter}:[/]"
                detail = "" if outcome.accepted else f" [dim]{outcome.reason[:100]}[/]"
                progress.console.print(f"{mark} {outcome.key}{detail}", highlight=False)
            progress.update(tasks[stage], completed=done, total=total, kept=kept)

        return curate(mode, repo, out, progress=on_progress, **kwargs)
