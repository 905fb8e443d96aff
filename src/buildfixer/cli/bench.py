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
from typing import TYPE_CHECKING, Annotated

import typer

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
    workers: Annotated[int, typer.Option(help="Instances validated in parallel.")] = 1,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Validate just these instance ids (repeatable).")
    ] = None,
    log_dir: Annotated[Path | None, typer.Option(help="Keep every build log in this directory.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check every instance: its base build fails with the recorded category, the gold patch fixes it.

    Exit 0 only when all instances are valid.
    """
    from buildfixer.bench.dataset import dataset_dir, load_dataset
    from buildfixer.bench.validate import validate_dataset
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.core.errors import BuildfixerError

    if repeats < 1:
        raise BuildfixerError("--repeats must be at least 1")
    if workers < 1:
        raise BuildfixerError("--workers must be at least 1")
    instances = load_dataset(dataset)
    if only:
        known = {i.instance_id for i in instances}
        if unknown := [name for name in only if name not in known]:
            raise BuildfixerError(f"no instance {', '.join(map(repr, unknown))} in {dataset}")
        instances = [i for i in instances if i.instance_id in only]

    def progress(result: ValidationResult, done: int, total: int) -> None:
        if not as_json:
            typer.echo(f"[{done}/{total}] {_result_line(result)}")
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
    dataset: DatasetArg,
    agent: Annotated[
        str, typer.Option(help="tool, recipes, coding-assistant, hierarchical, cascade, oracle or none.")
    ],
    out: Annotated[Path, typer.Option(help="Run directory (rerun the same command to resume).")],
    model: Annotated[str, typer.Option(help="Model spec (ignored by oracle, none and recipes).")] = "none",
    toolset: Annotated[str, typer.Option(help="Tool preset of the tool agent.")] = "gradlefixer",
    samples: Annotated[int, typer.Option(help="Attempts per instance (pass@k up to this k).")] = 1,
    workers: Annotated[int | None, typer.Option(help="Attempts at once (default: one per 2 cores).")] = None,
    max_calls: Annotated[int, typer.Option(help="LLM call budget per attempt.")] = 30,
    mask: Annotated[str, typer.Option(help="Mask tool names, descriptions, both, or none.")] = "none",
    attempt_timeout: Annotated[float, typer.Option(help="Hard limit of one attempt, in seconds.")] = 3600.0,
    backend: Annotated[str, typer.Option(help="local, or ray (pip install 'buildfixer[ray]').")] = "local",
    only: Annotated[
        str | None, typer.Option(help="Only these instances: comma-separated ids or globs ('cart-*').")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run an agent on every instance (`samples` times), each attempt in a fresh workspace; resumable."""
    from buildfixer.agents.registry import get_agent
    from buildfixer.bench.dataset import dataset_dir, load_dataset, select_instances
    from buildfixer.bench.run import RunConfig
    from buildfixer.bench.run_view import run_with_progress
    from buildfixer.core.errors import BuildfixerError
    from buildfixer.llm.factory import check_instance_models

    uses_model = get_agent(agent).uses_model
    if samples < 1 or (workers is not None and workers < 1):
        raise BuildfixerError("--samples and --workers must be at least 1")
    instances = select_instances([instance.to_dict() for instance in load_dataset(dataset)], only)
    if uses_model:
        check_instance_models(model, [i["instance_id"] for i in instances])
    config = RunConfig(
        agent=agent, model="recipes" if agent == "recipes" else model, toolset=toolset, samples=samples,
        max_calls=max_calls, mask=mask, attempt_timeout_s=attempt_timeout,
    )  # fmt: skip
    rows = run_with_progress(instances, dataset_dir(dataset), config, out, workers, backend)
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
