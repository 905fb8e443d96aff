"""Terminal view of `buildfixer curate`: a progress bar per stage, a line per kept or rejected candidate.

In a log (no terminal), a line per branch commit built too, failed ones with how.

The counts on the bar are the run's Summary as it grows, so they end as the printed summary does;
a candidate kept and then found to duplicate an earlier instance gets a second line, rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from buildfixer.core.terminal import visible
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.filters import Outcome
from buildfixer.curate.summary import Summary

# The progress bar each event moves (see curate.run for the events and their data).
_BARS = {"build": "build", "filter": "filter", "outcome": "filter"}
_STAGES = {"build": "building branch commits", "filter": "filtering candidates"}


def status(summary: Summary) -> str:
    """The counts on the progress line: the run's summary so far, in the words of the final one."""
    rejected = sum(summary.rejected.values())
    duplicates = summary.rejected.get("duplicate", 0)
    return (
        f"kept {summary.accepted}, rejected {rejected} ({duplicates} duplicate) · states "
        f"{summary.states_built} built ({summary.states_failed} failed), {summary.states_cached} from cache"
    )


def outcome_line(outcome: Outcome) -> str:
    """The line printed for a candidate's standing (rich markup).

    The repository's and the build's words in it are escaped and their controls spelled out.
    """
    from rich.markup import escape  # rich is a UI library, kept out of every import but the view's

    key = escape(visible(outcome.key))
    if outcome.accepted:
        return f"[green]✓[/] {key}"
    return f"[dim]✗ {outcome.filter}:[/] {key} [dim]{escape(visible(outcome.reason[:100]))}[/]"


def built_line(sha: str, ok: bool, why: str) -> str:
    """The line printed for a branch commit built before the filters (rich markup, escaped)."""
    from rich.markup import escape

    if ok:
        return f"[green]built[/] {sha[:12]}"
    return f"[dim]failed[/] {sha[:12]} [dim]{escape(visible(why[:120]))}[/]"


def curate_with_progress(curate: Callable[..., Summary], config: CurateConfig) -> Summary:
    """Run `curate(config, progress)` showing its progress on stderr."""
    # rich is a UI library, kept out of every import but the terminal view's.
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
        # In a log (CI, `2> file`) a bar is one frame cut at 80 columns: whole lines instead.
        disable=not console.is_terminal,
    ) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(event: str, data: dict[str, Any]) -> None:
            bar = _BARS.get(event)
            if bar is None:
                return  # an event this view does not show
            if bar not in tasks:
                name = f"{config.mode}: {_STAGES[bar]}"
                tasks[bar] = progress.add_task(name, total=data["total"], status="")
                if progress.disable:
                    progress.console.print(f"{name} ({data['total']})", highlight=False, soft_wrap=True)
            if event == "build" and progress.disable and data.get("ok") is not None:
                # In a log, a line per built commit: a long build phase is never silent.
                line = built_line(data["sha"], data["ok"], data.get("why", ""))
                line = f"{line} · {data['done']}/{data['total']}"
                progress.console.print(line, highlight=False, soft_wrap=True)
            if event == "outcome":
                line = outcome_line(data["outcome"])
                if progress.disable:  # the counts the bar would show, on the candidate's own line
                    line = f"{line} · {status(data['summary'])}"
                progress.console.print(line, highlight=False, soft_wrap=True)
            progress.update(tasks[bar], completed=data["done"], total=data["total"],
                            status=status(data["summary"]))  # fmt: skip

        return curate(config, on_progress)
