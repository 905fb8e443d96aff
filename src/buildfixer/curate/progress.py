"""Terminal view of `buildfixer curate`: a progress bar per stage, a line per kept or rejected candidate.

The counts on the bar are the run's Summary as it grows, so they end as the printed summary does;
a candidate kept and then found to duplicate an earlier instance gets a second line, rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from buildfixer.curate.filters import Outcome
from buildfixer.curate.summary import Summary

_STAGES = {"build": "building branch commits", "filter": "filtering candidates"}


def status(summary: Summary) -> str:
    """The counts on the progress line: the run's summary so far, in the words of the final one."""
    rejected = sum(summary.rejected.values())
    duplicates = summary.rejected.get("duplicate", 0)
    return (
        f"kept {summary.accepted}, rejected {rejected} ({duplicates} duplicate) · states "
        f"{summary.states_built} built ({summary.states_failed} failed), {summary.states_cached} from cache"
    )


def curate_with_progress(
    curate: Callable[..., Summary], mode: str, repo: str, out: Path, kwargs: dict[str, Any]
) -> Summary:
    """Run `curate(mode, repo, out, **kwargs)` showing its progress on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int, outcome: Outcome | None, summary: Summary) -> None:
            if stage not in tasks:
                name = f"{mode}: {_STAGES.get(stage, stage)}"
                tasks[stage] = progress.add_task(name, total=total, status="")
            if outcome is not None:
                mark = "[green]✓[/]" if outcome.accepted else f"[dim]✗ {outcome.filter}:[/]"
                detail = "" if outcome.accepted else f" [dim]{outcome.reason[:100]}[/]"
                progress.console.print(f"{mark} {outcome.key}{detail}", highlight=False)
            progress.update(tasks[stage], completed=done, total=total, status=status(summary))

        return curate(mode, repo, out, progress=on_progress, **kwargs)
