"""Terminal view of `bench run`: a progress bar with resolved-so-far and cost, then a summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.bench.run import RESULTS, RunConfig, is_settled, read_results, run_benchmark
from buildfixer.bench.runlock import RunLock


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    wanted = {(i["instance_id"], sample) for i in instances for sample in range(config.samples)}
    previous = [
        r for r in read_results(out / RESULTS) if (r["instance_id"], r["sample"]) in wanted and is_settled(r)
    ]
    state = {"resolved": sum(r["resolved"] for r in previous), "cost": sum(_cost(r) for r in previous)}
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
            state["cost"] += _cost(row)
            mark = "[green]✓[/]" if row["resolved"] else "[red]✗[/]"
            progress.console.print(f"{mark} {row['instance_id']} #{row['sample']} ({row['status']})")
            progress.update(task, completed=finished, **_fields(state))

        def on_warning(text: str) -> None:
            line = f"buildfixer: warning: {text}"
            progress.console.print(line, highlight=False, markup=False, soft_wrap=True)

        return run_benchmark(instances, dataset_dir, config, out, workers, on_result, backend, on_warning)


def _cost(row: dict[str, Any]) -> float:
    return float(row.get("cost_usd") or 0.0)


def _fields(state: dict[str, Any]) -> dict[str, Any]:
    return {"resolved": state["resolved"], "cost": state["cost"]}
