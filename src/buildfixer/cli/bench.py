"""The `buildfixer bench` commands: `validate` a dataset (`run`, `report` and `compare` join here).

`buildfixer.cli.main` imports this module at start-up, so only typer is imported at module level;
the work of validate and run is `cli.bench_commands`. A new command is one more
`@bench_app.command()` function.
Exit codes as everywhere: 0 success, 1 the benchmark check failed, 2 bad usage or input
(a `BuildfixerError`, printed by `buildfixer.cli.main.main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buildfixer.bench.data import NAMED_DATASETS, NAMED_SCRIPTS, resolve_dataset
from buildfixer.cli.settings import (
    AgentOpt,
    ConfigOpt,
    GuidanceOpt,
    JudgeModelOpt,
    MaskOpt,
    MaxCallsOpt,
    MaxCostOpt,
    MaxOutputOpt,
    MaxTimeOpt,
    MaxTokensOpt,
    MemoryTrustOpt,
    ModelTimeoutOpt,
    NoSandboxOpt,
    OnlyOpt,
    RunSettings,
    SeedOpt,
    TemperatureOpt,
    ToolsetOpt,
    WorkersOpt,
    with_config_file,
)

bench_app = typer.Typer(
    name="bench",
    help="Benchmark datasets of build failures: validate instances (run, report, compare).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DatasetArg = Annotated[
    Path,
    typer.Argument(
        help="A .jsonl file, a directory of .jsonl/.json files, or `bundled` (see `bench datasets`).",
        callback=resolve_dataset,
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


@bench_app.command()
def datasets(
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Where the named datasets live (`bundled`: the example benchmark shipped with buildfixer)."""
    import json

    rows = [
        {"name": name, "path": str(path), "instances": _count_lines(path)}
        for name, path in NAMED_DATASETS.items()
    ]
    rows += [{"name": name, "path": str(path), "scripts": len(list(path.glob("*.json")))}
             for name, path in NAMED_SCRIPTS.items()]  # fmt: skip
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        what = (
            f"{row['instances']} instances"
            if "instances" in row
            else f"{row['scripts']} replay scripts (--model)"
        )
        typer.echo(f"{row['name']:<18} {what:<34} {row['path']}")


def _count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for line in fh if line.strip())


@bench_app.command()
def validate(
    dataset: DatasetArg,
    repeats: Annotated[int, typer.Option(help="Builds per stage and instance (catches flaky builds).")] = 2,
    jdk: Annotated[
        int | None, typer.Option(help="JDK for instances that do not name one (default: the machine's).")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 900.0,
    workers: Annotated[
        int | None, typer.Option(help="Instances at once (default: one per core, as memory allows).")
    ] = None,
    only: OnlyOpt = None,
    log_dir: Annotated[Path | None, typer.Option(help="Keep every build log in this directory.")] = None,
    no_sandbox: NoSandboxOpt = False,
    as_json: JsonFlag = False,
) -> None:
    """Check every instance: its base build fails with the recorded category, the gold patch fixes it.

    Says first how long it should take (from this machine's earlier validations, else typical
    times), then each instance's verdict and the time left. Exit 0 only when all are valid.
    """
    from buildfixer.cli import bench_commands  # lazy: validation imports pydantic and the build layer

    code = bench_commands.validate_command(
        dataset, repeats, jdk, timeout, workers, only, log_dir, no_sandbox, as_json
    )  # fmt: skip
    raise typer.Exit(code)


@bench_app.command()
def run(
    ctx: typer.Context,
    dataset: DatasetArg,
    out: Annotated[Path, typer.Option(help="Run directory (rerun the same command to resume).")],
    agent: AgentOpt = "tool",
    model: Annotated[str, typer.Option(help="Model spec (ignored by oracle, none and recipes).")] = "none",
    toolset: ToolsetOpt = None,
    mask: MaskOpt = "none",
    guidance: GuidanceOpt = False,
    max_calls: MaxCallsOpt = 30,
    max_tokens: MaxTokensOpt = None,
    max_cost: MaxCostOpt = None,
    max_time: MaxTimeOpt = None,
    temperature: TemperatureOpt = None,
    max_output_tokens: MaxOutputOpt = None,
    model_timeout: ModelTimeoutOpt = None,
    seed: SeedOpt = None,
    judge_model: JudgeModelOpt = None,
    memory_trust: MemoryTrustOpt = "same",
    memory: Annotated[
        Path | None,
        typer.Option(
            help="The fix memory the run reads and writes (default: memory.sqlite3 in the run "
            "directory; the memory `fix` uses is written only when named here).",
            show_default=False,
        ),
    ] = None,
    samples: Annotated[int, typer.Option(help="Attempts per instance (pass@k up to this k).")] = 1,
    workers: WorkersOpt = None,
    attempt_timeout: Annotated[float, typer.Option(help="Hard limit of one attempt, in seconds.")] = 3600.0,
    build_timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 900.0,
    backend: Annotated[str, typer.Option(help="local, or ray (pip install 'buildfixer[ray]').")] = "local",
    no_sandbox: NoSandboxOpt = False,
    only: OnlyOpt = None,
    config_file: ConfigOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Run an agent on every instance (`samples` times), each attempt in a fresh workspace; resumable."""
    from buildfixer.cli import bench_commands  # lazy: the runner imports pydantic and every agent

    given = RunSettings(
        agent=agent, model=model, toolset=toolset, mask=mask, guidance=guidance, max_calls=max_calls,
        max_tokens=max_tokens, max_cost=max_cost, max_time=max_time, temperature=temperature,
        max_output_tokens=max_output_tokens, model_timeout=model_timeout, seed=seed, judge_model=judge_model,
        memory_trust=memory_trust,
        memory=memory, samples=samples, workers=workers, attempt_timeout=attempt_timeout,
        build_timeout=build_timeout, backend=backend, no_sandbox=no_sandbox,
    )  # fmt: skip
    bench_commands.run_command(dataset, out, with_config_file(ctx, config_file, given), only, as_json)


@bench_app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A `bench run` output directory.")],
    fmt: Annotated[
        str, typer.Option("--format", help="md, html, json, csv (a folder of tables) or latex.")
    ] = "md",
    label: Annotated[
        str | None, typer.Option(help="What tables call this run (default: agent/toolset/model).")
    ] = None,
) -> None:
    """pass@k with intervals, per-instance results, tools, cost, behaviour; written into the run directory."""
    from buildfixer.reports.run_report import report_command  # lazy: reports read runs with pydantic

    raise typer.Exit(report_command(run_dir, fmt, label))


@bench_app.command()
def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Two or more run directories.")],
    fmt: Annotated[str, typer.Option("--format", help="md, html, json, csv or latex.")] = "md",
    out: Annotated[
        Path | None, typer.Option(help="Write it to this file or folder (needed but for md, json).")
    ] = None,
    label: Annotated[
        list[str] | None, typer.Option(help="A name per run, in order (repeat the option).")
    ] = None,
) -> None:
    """Put configurations side by side: pass@k, tool usage and cost per run."""
    from buildfixer.reports.compare import compare_command  # lazy: reports read runs with pydantic

    raise typer.Exit(compare_command(run_dirs, fmt, out, label or []))


@bench_app.command("export-hf")
def bench_export_hf(
    dataset: DatasetArg,
    out: Annotated[Path, typer.Option(help="The folder to write (replaced as a whole).")],
    as_json: JsonFlag = False,
) -> None:
    """Write the dataset as a Hugging Face dataset folder: data/<split>.jsonl, repos/, README.md card."""
    import json

    from buildfixer.export.hf import export_hf  # lazy: pydantic, PyYAML

    summary = export_hf(dataset, out)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    splits = ", ".join(f"{name} {n}" for name, n in summary["splits"].items())
    typer.echo(f"{sum(summary['splits'].values())} instance(s) ({splits}) -> {out}")
    for name in summary["files"]:
        typer.echo(f"  {name}")
