"""Terminal view of `bench run`: a progress bar with resolved-so-far and cost, then a summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.bench.run import RunConfig, read_results, run_benchmark


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    previous = read_results(out / "results.jsonl") if (out / "results.jsonl").exists() else []
    state = {"resolved": sum(r["resolved"] for r in previous), "cost": sum(r["cost_usd"] for r in previous)}
    total = len(instances) * config.samples
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("resolved {task.fields[resolved]} · ${task.fields[cost]:.4f}"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task(
            f"{config.agent}/{config.attempt.model}", total=total, completed=len(previous), **_fields(state)
        )

        def on_result(row: dict[str, Any], finished: int, _total: int) -> None:
            state["resolved"] += row["resolved"]
            state["cost"] += row["cost_usd"]
            mark = "[green]✓[/]" if row["resolved"] else "[red]✗[/]"
            progress.console.print(f"{mark} {row['instance_id']} #{row['sample']} ({row['status']})")
            progress.update(task, completed=finished, **_fields(state))

        return run_benchmark(instances, dataset_dir, config, out, workers, on_result, backend)


def _fields(state: dict[str, Any]) -> dict[str, Any]:
    return {"resolved": state["resolved"], "cost": state["cost"]}
