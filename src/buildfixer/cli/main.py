"""The `buildfixer` command line (typer), every command. Exit codes: 0 success, 1 failed, 2 bad usage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buildfixer.agents.recipes import RECIPES
from buildfixer.cli.bench import bench_app
from buildfixer.cli.curate import curate_app
from buildfixer.cli.env import env_app
from buildfixer.cli.exits import run_command_line
from buildfixer.cli.export import export_app
from buildfixer.cli.light import APP_SETTINGS, LIGHT_COMMANDS, JsonFlag, SystemOpt, options
from buildfixer.cli.mcp import mcp_command
from buildfixer.cli.memory import memory_app
from buildfixer.cli.settings import (
    AgentOpt,
    ConfigOpt,
    FixSettings,
    GuidanceOpt,
    JudgeModelOpt,
    MaskOpt,
    MaxCallsOpt,
    MaxCostOpt,
    MaxOutputOpt,
    MaxTimeOpt,
    MaxTokensOpt,
    MemoryTrustOpt,
    ModelOpt,
    ModelTimeoutOpt,
    NoSandboxOpt,
    SeedOpt,
    TemperatureOpt,
    ToolsetOpt,
    with_config_file,
)
from buildfixer.cli.triage import triage_command
from buildfixer.cli.view import view_app

app = typer.Typer(**APP_SETTINGS)

# The commands that start light (cli.light): declared there so that running one imports nothing else.
app.callback()(options)
for command in LIGHT_COMMANDS:
    app.command()(command)


@app.command()
def examples(
    only: Annotated[list[str] | None, typer.Option("--only", help="Run just these examples (name).")] = None,
    keep: Annotated[Path | None, typer.Option(help="Materialize the examples here and keep them.")] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the examples without building.")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Repair each example with `buildfixer fix`.")] = False,
    model: Annotated[str | None, typer.Option(help="Model for --fix (default: the offline recipes).")] = None,
    no_sandbox: NoSandboxOpt = False,
    as_json: JsonFlag = False,
) -> None:
    """Build every bundled broken example and show its failure; with --fix, repair each one."""
    from buildfixer.cli.examples import run_examples  # lazy: it builds and repairs (pydantic, rich)

    code = run_examples(
        only=only or [], keep=keep, list_only=list_only, as_json=as_json, fix=fix, model=model,
        no_sandbox=no_sandbox,
    )  # fmt: skip
    raise typer.Exit(code)


@app.command()
def fix(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Project directory.")] = Path("."),
    model: ModelOpt = RECIPES,
    toolset: ToolsetOpt = None,
    agent: AgentOpt = "tool",
    max_calls: MaxCallsOpt = 30,
    max_tokens: MaxTokensOpt = None,
    max_cost: MaxCostOpt = None,
    max_time: MaxTimeOpt = None,
    mask: MaskOpt = "none",
    guidance: GuidanceOpt = False,
    temperature: TemperatureOpt = None,
    max_output_tokens: MaxOutputOpt = None,
    model_timeout: ModelTimeoutOpt = None,
    seed: SeedOpt = None,
    judge_model: JudgeModelOpt = None,
    memory_trust: MemoryTrustOpt = "same",
    jdk: Annotated[int | None, typer.Option(help="Start from this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 1800.0,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    no_sandbox: NoSandboxOpt = False,
    trajectory: Annotated[Path | None, typer.Option(help="Write the trajectory JSON here.")] = None,
    no_triage: Annotated[
        bool, typer.Option("--no-triage", help="Repair without triage first (flaky and infra failures too).")
    ] = False,
    base: Annotated[
        str | None,
        typer.Option(help="The base ref triage compares with (default: found).", show_default=False),
    ] = None,
    system: SystemOpt = None,
    dry_run: Annotated[bool, typer.Option(help="Only print the patch; never change PATH.")] = False,
    pr: Annotated[
        bool,
        typer.Option(
            "--pr",
            help="Commit the repair on a new branch (the working tree stays as it is) and open a pull "
            "request when gh is installed and logged in.",
        ),
    ] = False,
    config_file: ConfigOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Repair a failing build; the project changes only when the final build succeeds."""
    from buildfixer.cli import fix_commands  # lazy: the harness imports pydantic and every agent

    given = FixSettings(
        agent=agent, model=model, toolset=toolset, mask=mask, guidance=guidance, max_calls=max_calls,
        max_tokens=max_tokens, max_cost=max_cost, max_time=max_time, temperature=temperature,
        max_output_tokens=max_output_tokens, model_timeout=model_timeout, seed=seed, judge_model=judge_model,
        memory_trust=memory_trust,
        jdk=jdk, timeout=timeout, offline=offline, no_sandbox=no_sandbox, no_triage=no_triage, base=base,
        system=system,
    )  # fmt: skip
    settings = with_config_file(ctx, config_file, given)
    raise typer.Exit(fix_commands.fix_command(path, settings, trajectory, dry_run, as_json, pr))


@app.command()
def toolsets(
    system: Annotated[str, typer.Option(help="Build system the tools are for.")] = "gradle",
    as_json: JsonFlag = False,
) -> None:
    """List the tool presets and the tools each offers."""
    from buildfixer.cli import fix_commands  # lazy: the tools import the build layer

    fix_commands.toolsets_command(system, as_json)


@app.command()
def judge(
    project: Annotated[Path, typer.Argument(help="The project the patch applies to (its failing state).")],
    patch: Annotated[Path, typer.Option(help="The patch to judge (a unified diff).")],
    run_tests: Annotated[
        bool, typer.Option(help="Also run the tests before and after the patch and compare.")
    ] = False,
    no_sandbox: NoSandboxOpt = False,
    judge_model: JudgeModelOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Reject a patch that makes the build pass by removing tests or checks (exit 0 approved, 1 rejected)."""
    from buildfixer.cli.judge import judge_command as run  # lazy: the judge is not needed for --help

    raise typer.Exit(run(project, patch, run_tests, no_sandbox, as_json, judge_model))


app.command(name="mcp")(mcp_command)
app.command(name="triage")(triage_command)
app.add_typer(bench_app, name="bench")
app.add_typer(curate_app, name="curate")
app.add_typer(memory_app, name="memory")
app.add_typer(export_app, name="export")
app.add_typer(env_app, name="env")
app.add_typer(view_app, name="view")


def main() -> None:
    """The full command line (`cli.entry.main` is the console entry point, which starts light)."""
    run_command_line(app)


if __name__ == "__main__":
    main()
