"""The `buildfixer` command line (typer). Exit codes: 0 success, 1 build failed, 2 bad usage/setup."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from buildfixer.cli.bench import bench_app
from buildfixer.cli.curate import curate_app
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
    ModelOpt,
    SeedOpt,
    TemperatureOpt,
    ToolsetOpt,
    attempt_config,
    merged,
)
from buildfixer.core.errors import BuildfixerError

app = typer.Typer(
    name="buildfixer",
    help="Run, read and repair broken software builds (Gradle, Maven, Python, npm).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=2))


@app.command()
def build(
    path: Annotated[Path, typer.Argument(help="Project directory.")] = Path("."),
    jdk: Annotated[int | None, typer.Option(help="Build with this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Kill the build after this many seconds.")] = 1800.0,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task/goal/script to run instead of the default.")
    ] = None,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    cold: Annotated[bool, typer.Option(help="No daemon or reused environments; clean first.")] = False,
    system: Annotated[str | None, typer.Option(help="Force gradle, maven, python or npm.")] = None,
    sandbox: Annotated[bool, typer.Option(help="Run under bubblewrap: host read-only.")] = False,
    patch: Annotated[
        Path | None, typer.Option(help="Build a snapshot of PATH with this patch applied (PATH untouched).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Detect and run the project's build; show the root error when it fails."""
    from buildfixer.buildsys.analyzed import build_and_analyze
    from buildfixer.buildsys.options import BuildOptions

    if patch is not None:
        from buildfixer.workspace.workspace import Workspace

        try:
            patch_text = patch.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise BuildfixerError(
                f"cannot read patch {patch}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        workspace = Workspace.from_directory(path)
        try:
            workspace.apply_patch(patch_text)
        except BuildfixerError:
            workspace.remove()
            raise
        path = workspace.root

    options = BuildOptions(
        jdk=jdk, timeout_s=timeout, offline=offline, tasks=task or None, warm=not cold,
        sandbox="bubblewrap" if sandbox else "none",
    )
    try:
        result, _ = build_and_analyze(path, options, system)
    finally:
        if patch is not None:  # the snapshot was ours: leave nothing running or on disk
            from buildfixer.buildsys.project import stop_daemons

            stop_daemons(path, options)
            workspace.remove()
    if as_json:
        _print_json(result.to_dict())
    else:
        from buildfixer.cli.build_render import print_build_result

        print_build_result(result)
    if result.status == "error":
        raise typer.Exit(2)
    raise typer.Exit(0 if result.ok else 1)


@app.command()
def analyze(
    logfile: Annotated[Path, typer.Argument(help="A saved build log.")],
    condensed: Annotated[bool, typer.Option(help="Print the prompt-ready condensed view.")] = False,
    budget: Annotated[int, typer.Option(help="Token budget of the condensed view.")] = 2000,
    as_json: JsonFlag = False,
) -> None:
    """Parse a saved build log into structured errors, root error first."""
    from buildfixer.logs.analyze import analyze_file

    analysis = analyze_file(logfile)
    if as_json:
        data = analysis.to_dict()
        if condensed:
            from buildfixer.logs.condense import condense

            data["condensed"] = condense(analysis, budget_tokens=budget)
        _print_json(data)
    elif condensed:
        from buildfixer.logs.condense import condense

        typer.echo(condense(analysis, budget_tokens=budget))
    else:
        from buildfixer.cli.build_render import print_analysis

        print_analysis(analysis)


@app.command()
def jdks(as_json: JsonFlag = False) -> None:
    """List the installed JDKs buildfixer can switch between."""
    from buildfixer.buildsys.jdk import default_jdk, discover_jdks

    found = discover_jdks()
    if as_json:
        _print_json([j.to_dict() for j in found])
        return
    if not found:
        raise BuildfixerError(
            "no JDK found (searched JAVA_HOME, /usr/lib/jvm, SDKMAN, ~/.jdks, BUILDFIXER_JDK_PATHS)"
        )
    default = default_jdk()
    for j in found:
        mark = "  (default)" if default and default.path == j.path else ""
        typer.echo(f"{j.version:>3}  {j.path}{mark}")


@app.command()
def examples(
    only: Annotated[list[str] | None, typer.Option("--only", help="Run just these examples (name).")] = None,
    keep: Annotated[Path | None, typer.Option(help="Materialize the examples here and keep them.")] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the examples without building.")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Repair each example with `buildfixer fix`.")] = False,
    model: Annotated[str, typer.Option(help="Model for --fix (default: the offline recipes).")] = "recipes",
    as_json: JsonFlag = False,
) -> None:
    """Build every bundled broken example and show its failure; with --fix, repair each one."""
    from buildfixer.cli.examples import run_examples

    code = run_examples(
        only=only or [], keep=keep, list_only=list_only, as_json=as_json, fix_model=model if fix else None
    )
    raise typer.Exit(code)


@app.command()
def fix(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Project directory.")] = Path("."),
    model: ModelOpt = "recipes",
    toolset: ToolsetOpt = "gradlefixer",
    agent: AgentOpt = "tool",
    max_calls: MaxCallsOpt = 30,
    max_tokens: MaxTokensOpt = None,
    max_cost: MaxCostOpt = None,
    max_time: MaxTimeOpt = None,
    mask: MaskOpt = "none",
    guidance: GuidanceOpt = False,
    temperature: TemperatureOpt = None,
    max_output_tokens: MaxOutputOpt = None,
    seed: SeedOpt = None,
    jdk: Annotated[int | None, typer.Option(help="Start from this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 1800.0,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    trajectory: Annotated[Path | None, typer.Option(help="Write the trajectory JSON here.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Only print the patch; never change PATH.")] = False,
    config_file: ConfigOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Repair a failing build; the project changes only when the final build succeeds."""
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.cli.fix_render import ProgressPrinter, print_outcome
    from buildfixer.harness.fix import fix_project  # lazy: the harness imports pydantic

    flags = {name: value for name, value in locals().items() if name in ATTEMPT_OPTIONS}
    values = merged(ctx, config_file, {**flags, "jdk": jdk, "timeout": timeout, "offline": offline})
    if not isinstance(values["timeout"], int | float) or values["timeout"] <= 0:
        raise BuildfixerError(f"timeout: expected a positive number of seconds, got {values['timeout']!r}")
    options = BuildOptions(jdk=values["jdk"], timeout_s=values["timeout"], offline=bool(values["offline"]))
    config = attempt_config(values, options=options, trajectory_path=trajectory)
    outcome = fix_project(path, config, dry_run=dry_run, progress=ProgressPrinter())
    if as_json:
        _print_json(
            {
                "resolved": outcome.attempt.resolved,
                "patch": outcome.patch,
                "llm_calls": outcome.attempt.llm_calls,
                "trajectory": str(outcome.trajectory_path),
                "applied": outcome.applied,
                "jdk": outcome.attempt.jdk,
                "stop": outcome.attempt.stop.kind.value,
                "stop_reason": outcome.attempt.stop_reason,
                "refused": outcome.refused,
                "conflict": outcome.conflict or None,
            }
        )
    else:
        print_outcome(outcome, dry_run)
    # A repair that could not be written (the project changed meanwhile) leaves the build broken.
    raise typer.Exit(0 if outcome.attempt.resolved and not outcome.conflict else 1)


@app.command()
def toolsets(
    system: Annotated[str, typer.Option(help="Build system the tools are for.")] = "gradle",
    as_json: JsonFlag = False,
) -> None:
    """List the tool presets and the tools each offers."""
    from buildfixer.tools.presets import PRESETS, tool_names

    table = {name: tool_names(name, system) for name in PRESETS}
    if as_json:
        _print_json(table)
        return
    for name, names in table.items():
        typer.echo(f"{name:<26} {', '.join(names)}")


app.add_typer(bench_app, name="bench")
app.add_typer(curate_app, name="curate")


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (kill, timeout, CI): unwind like Ctrl-C, so builds are stopped and workspaces removed."""
    signal.signal(signum, signal.SIG_DFL)  # a second one kills at once
    raise SystemExit(128 + signum)


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit code 2."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except BuildfixerError as exc:
        typer.echo(f"buildfixer: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("buildfixer: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
