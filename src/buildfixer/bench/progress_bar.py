"""Terminal view of `bench run`: a progress bar with resolved-so-far, cost, attempts in flight and an ETA.

A finished attempt prints one line with how it ended (its stop kind); an interruption says how many
attempts are recorded and that rerunning the same command resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.bench.executor import default_workers
from buildfixer.bench.run import RESULTS, RunConfig, is_settled, read_results, run_benchmark
from buildfixer.bench.rundir import short_label
from buildfixer.bench.runlock import RunLock
from buildfixer.core.terminal import visible


def run_with_progress(
    instances: list[dict[str, Any]],
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    workers: int | None,
    backend: str = "local",
) -> list[dict[str, Any]]:
    """Run the benchmark showing progress on stderr; returns every result line."""
    # rich is a UI library, kept out of every import but the terminal view's.
    from rich.console import Console

    with RunLock(out):  # refused before the progress bar is drawn, so the refusal is one line
        return _run_in_view(instances, dataset_dir, config, out, workers, backend, Console(stderr=True))


def _run_in_view(
    instances: list[dict[str, Any]],
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    workers: int | None,
    backend: str,
    console: Any,
) -> list[dict[str, Any]]:
    # rich is a UI library, kept out of every import but the terminal view's.
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    wanted = {(i["instance_id"], sample) for i in instances for sample in range(config.samples)}
    previous = [
        r for r in read_results(out / RESULTS) if (r["instance_id"], r["sample"]) in wanted and is_settled(r)
    ]
    total = len(instances) * config.samples
    # The local pool keeps `slots` attempts running while that many are left (ray: as many as asked).
    slots = workers or config.workers or default_workers()
    state = {"resolved": sum(r["resolved"] for r in previous), "cost": sum(_cost(r) for r in previous),
             "finished": len(previous)}  # fmt: skip
    label = short_label(
        {"agent": config.agent, "toolset": config.attempt.toolset, "model": config.attempt.model}
    )
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TextColumn(
            "resolved {task.fields[resolved]} · running {task.fields[running]} · ${task.fields[cost]:.4f}"
        ),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        # In a log (CI, `2> file`) a bar is one frame cut at 80 columns: whole lines instead.
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total, completed=len(previous), **_fields(state, slots, total))

        def on_result(row: dict[str, Any], finished: int, _total: int) -> None:
            state["resolved"] += row["resolved"]
            state["cost"] += _cost(row)
            state["finished"] = finished
            line = attempt_line(row)
            if progress.disable:  # the counts the bar would show, on the attempt's own line
                line = f"[{finished}/{total}] {line} · resolved {state['resolved']} · ${state['cost']:.4f}"
            progress.console.print(line, highlight=False, soft_wrap=True)
            progress.update(task, completed=finished, **_fields(state, slots, total))

        def on_warning(text: str) -> None:
            line = f"buildfixer: warning: {visible(text)}"
            progress.console.print(line, highlight=False, markup=False, soft_wrap=True)

        try:
            return run_benchmark(instances, dataset_dir, config, out, workers, on_result, backend, on_warning)
        except KeyboardInterrupt:
            progress.stop()
            console.print(
                f"interrupted: {state['finished']} of {total} attempts are recorded in {out}; "
                "rerun the same command to resume",
                highlight=False, markup=False, soft_wrap=True,
            )  # fmt: skip
            raise


def attempt_line(row: dict[str, Any]) -> str:
    """One finished attempt: mark, instance, sample, status and, when it did not resolve, its stop kind.

    Rich markup; the dataset's and the worker's words in it are escaped and their controls spelled out.
    """
    from rich.markup import escape  # rich is a UI library, kept out of every import but the view's

    mark = "[green]✓[/]" if row["resolved"] else "[red]✗[/]"
    how = str(row.get("status") or "?")
    stop = row.get("stop")
    if stop and stop != "resolved":
        how += f", {stop}"
    said = f"{row['instance_id']} #{row['sample']} ({how})"
    return f"{mark} {escape(visible(said))}"


def _cost(row: dict[str, Any]) -> float:
    return float(row.get("cost_usd") or 0.0)


def _fields(state: dict[str, Any], slots: int, total: int) -> dict[str, Any]:
    running = min(slots, total - state["finished"])
    return {"resolved": state["resolved"], "cost": state["cost"], "running": running}
