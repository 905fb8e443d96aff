"""The `buildfixer bench` commands: `validate` a dataset (`run`, `report` and `compare` join here).

`buildfixer.cli.main` imports this module at start-up, so only typer is imported at module level;
each command imports what it needs. A new command is one more `@bench_app.command()` function.
Exit codes as everywhere: 0 success, 1 the benchmark check failed, 2 bad usage or input
(a `BuildfixerError`, printed by `buildfixer.cli.main.main`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from buildfixer.cli.settings import (
    ATTEMPT_OPTIONS,
    AgentOpt,
    ConfigOpt,
    GuidanceOpt,
    MaskOpt,
    MaxCallsOpt,
    MaxCostOpt,
    MaxOutputOpt,
    MaxTimeOpt,
    MaxTokensOpt,
    OnlyOpt,
    SeedOpt,
    TemperatureOpt,
    ToolsetOpt,
    WorkersOpt,
    attempt_config,
    merged,
    only_patterns,
)

if TYPE_CHECKING:
    from buildfixer.bench.validate import ValidationResult

bench_app = typer.Typer(
    name="bench",
    help="Benchmark datasets of build failures: validate instances (run, report, compare).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DatasetArg = Annotated[Path, typer.Argument(help="A .jsonl file, or a directory of .jsonl/.json files.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _result_line(result: ValidationResult) -> str:
    """One line per instance: mark, id, time, and why it is invalid."""
    mark = "✓" if result.valid else "✗"
    line = f"{mark} {result.instance_id}  ({result.duration_s:.1f} s)"
    if result.reasons:
        line += "  " + "; ".join(result.reasons)
    return line


@bench_app.command()
def validate(
    dataset: DatasetArg,
    repeats: Annotated[int, typer.Option(help="Builds per stage and instance (catches flaky builds).")] = 2,
    jdk: Annotated[
        int | None, typer.Option(help="JDK for instances that do not name one (default: the machine's).")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 900.0,
    workers: WorkersOpt = None,
    only: OnlyOpt = None,
    log_dir: Annotated[Path | None, typer.Option(help="Keep every build log in this directory.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check every instance: its base build fails with the recorded category, the gold patch fixes it.

    Exit 0 only when all instances are valid.
    """
    from buildfixer.bench.dataset import dataset_dir, load_dataset, select_instances
    from buildfixer.bench.executor import default_workers
    from buildfixer.bench.validate import validate_dataset
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.core.errors import BuildfixerError

    if repeats < 1:
        raise BuildfixerError("--repeats must be at least 1")
    if workers is not None and workers < 1:
        raise BuildfixerError("--workers must be at least 1")
    workers = workers or default_workers()
    instances = load_dataset(dataset)
    chosen = {i["instance_id"] for i in select_instances([{"instance_id": i.instance_id} for i in instances],
                                                         only_patterns(only))}  # fmt: skip
    instances = [i for i in instances if i.instance_id in chosen]

    def progress(event: str, data: dict[str, Any]) -> None:
        if event != "validated" or as_json:
            return
        result: ValidationResult = data["result"]
        typer.echo(f"[{data['done']}/{data['total']}] {_result_line(result)}")
        for warning in result.warnings:
            typer.echo(f"    warning: {warning}")

    started = time.monotonic()
    results = validate_dataset(
        instances,
        dataset_dir(dataset),
        BuildOptions(jdk=jdk, timeout_s=timeout),
        repeats=repeats,
        workers=workers,
        progress=progress,
        log_dir=log_dir,
    )
    valid = sum(r.valid for r in results)
    if as_json:
        data = {"valid": valid, "total": len(results), "instances": [r.to_dict() for r in results]}
        typer.echo(json.dumps(data, indent=2))
    else:
        elapsed = time.monotonic() - started
        typer.echo(f"{valid}/{len(results)} instances valid ({elapsed:.0f} s, {workers} worker(s))")
    raise typer.Exit(0 if valid == len(results) else 1)


@bench_app.command()
def run(
    ctx: typer.Context,
    dataset: DatasetArg,
    out: Annotated[Path, typer.Option(help="Run directory (rerun the same command to resume).")],
    agent: AgentOpt = "tool",
    model: Annotated[str, typer.Option(help="Model spec (ignored by oracle, none and recipes).")] = "none",
    toolset: ToolsetOpt = "gradlefixer",
    mask: MaskOpt = "none",
    guidance: GuidanceOpt = False,
    max_calls: MaxCallsOpt = 30,
    max_tokens: MaxTokensOpt = None,
    max_cost: MaxCostOpt = None,
    max_time: MaxTimeOpt = None,
    temperature: TemperatureOpt = None,
    max_output_tokens: MaxOutputOpt = None,
    seed: SeedOpt = None,
    samples: Annotated[int, typer.Option(help="Attempts per instance (pass@k up to this k).")] = 1,
    workers: WorkersOpt = None,
    attempt_timeout: Annotated[float, typer.Option(help="Hard limit of one attempt, in seconds.")] = 3600.0,
    build_timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 900.0,
    backend: Annotated[str, typer.Option(help="local, or ray (pip install 'buildfixer[ray]').")] = "local",
    only: OnlyOpt = None,
    config_file: ConfigOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Run an agent on every instance (`samples` times), each attempt in a fresh workspace; resumable."""
    from buildfixer.agents.registry import get_agent
    from buildfixer.bench.dataset import dataset_dir, load_dataset, select_instances
    from buildfixer.bench.run import RunConfig  # lazy: pydantic
    from buildfixer.bench.run_view import run_with_progress
    from buildfixer.harness.config import validated
    from buildfixer.llm.factory import check_instance_models

    run_keys = ("samples", "workers", "attempt_timeout", "build_timeout", "backend")
    flags = {name: value for name, value in locals().items() if name in (*ATTEMPT_OPTIONS, *run_keys)}
    values = merged(ctx, config_file, flags)
    if values["agent"] == "recipes":
        values["model"] = "recipes"
    config = validated(RunConfig, {
        "attempt": attempt_config(values), "samples": values["samples"], "workers": values["workers"],
        "attempt_timeout_s": values["attempt_timeout"], "build_timeout_s": values["build_timeout"],
        "backend": values["backend"],
    })  # fmt: skip
    everything = [instance.to_dict() for instance in load_dataset(dataset)]
    instances = select_instances(everything, only_patterns(only))
    if get_agent(config.agent).uses_model:
        check_instance_models(config.attempt.model, [i["instance_id"] for i in instances])
    rows = run_with_progress(instances, dataset_dir(dataset), config, out, config.workers, config.backend)
    resolved = sum(r["resolved"] for r in rows)
    if as_json:
        typer.echo(json.dumps({"out": str(out), "attempts": len(rows), "resolved": resolved}))
    else:
        typer.echo(f"{resolved}/{len(rows)} attempts resolved; report: buildfixer bench report {out}")


@bench_app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A `bench run` output directory.")],
    fmt: Annotated[str, typer.Option("--format", help="md, html or json.")] = "md",
) -> None:
    """pass@k by origin and category, tool usage, change sizes, cost; written into the run directory."""
    from buildfixer.bench.report import report_command

    raise typer.Exit(report_command(run_dir, fmt))


@bench_app.command()
def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Two or more run directories.")],
    fmt: Annotated[str, typer.Option("--format", help="md, html or json.")] = "md",
    out: Annotated[Path | None, typer.Option(help="Also write it to this file or folder.")] = None,
) -> None:
    """Put configurations side by side: pass@k, tool usage and cost per run."""
    from buildfixer.bench.compare import compare_command

    raise typer.Exit(compare_command(run_dirs, fmt, out))
