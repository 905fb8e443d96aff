"""What the top-level commands do, once their options are parsed (cli.main declares them).

Kept apart from the declarations so `buildfixer --help` imports none of this. Each function
returns the exit code, or raises BuildfixerError (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.project import SYSTEMS, detect_build_system, stop_daemons
from buildfixer.buildsys.python import detect_requirements_only
from buildfixer.cli.build_render import print_analysis, print_build_result
from buildfixer.cli.fix_render import ProgressPrinter, print_outcome
from buildfixer.cli.patches import read_patch
from buildfixer.cli.settings import NO_SANDBOX_NOTE, FixSettings, check_flag, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.delivery.fix import fix_project
from buildfixer.harness.checks import check_jdk, check_number, check_seconds
from buildfixer.logs.analyze import analyze_file
from buildfixer.logs.condense import condense
from buildfixer.tools.presets import CONDITIONS, PRESETS, tool_names
from buildfixer.workspace.workspace import Workspace


def print_json(data: object) -> None:
    """Machine-readable output on stdout."""
    typer.echo(json.dumps(data, indent=2))


MAX_CONDENSED_BUDGET = 1_000_000  # tokens of a condensed log: far above any model's window


def check_project(path: Path, system: str | None) -> None:
    """PATH must hold a build (of `system` when given), before any snapshot or build.

    Raises:
        BuildfixerError: Not a directory, no recognisable build, an unknown or absent system.
    """
    if system is None:
        detect_build_system(path)
        return
    if system not in SYSTEMS:
        raise BuildfixerError(f"unknown build system {system!r} (known: {', '.join(SYSTEMS)})")
    if not path.is_dir():
        raise BuildfixerError(f"not a directory: {path}")
    if not SYSTEMS[system].detect(path) and not (system == "python" and detect_requirements_only(path)):
        raise BuildfixerError(f"--system {system}: no {system} build in {path}")


def build_command(
    path: Path, jdk: int | None, timeout: float, task: list[str] | None, offline: bool, cold: bool,
    system: str | None, no_sandbox: bool, patch: Path | None, as_json: bool,
) -> int:  # fmt: skip
    """`buildfixer build`: 0 built, 1 failed, 2 could not run."""
    check_seconds("--timeout", timeout)
    check_jdk(jdk)
    if task is not None and not all(t.strip() for t in task):
        raise BuildfixerError("--task must name a task, goal or script (got an empty one)")
    check_project(path, system)
    patch_text = read_patch(patch) if patch is not None else None
    workspace = None
    if patch_text is not None:
        workspace = Workspace.from_directory(path)
        try:
            workspace.apply_patch(patch_text)
        except BuildfixerError:
            workspace.remove()
            raise
        path = workspace.root
    options = BuildOptions(
        jdk=jdk, timeout_s=timeout, offline=offline, tasks=task or None, warm=not cold,
        trust_domain=project_domain(path),
    )  # fmt: skip
    with_sandbox(options, no_sandbox)
    try:
        result, _ = build_and_analyze(path, options, system)
    finally:
        if workspace is not None:  # the snapshot was ours: leave nothing running or on disk
            stop_daemons(path, options)
            workspace.remove()
    if as_json:
        print_json({**result.to_dict(), "sandbox": options.sandbox})
    else:
        print_build_result(result)
        if no_sandbox:
            typer.echo(NO_SANDBOX_NOTE)
    if result.status == "error":
        return 2
    return 0 if result.ok else 1


def analyze_command(logfile: Path, condensed: bool, budget: int | None, as_json: bool) -> None:
    """`buildfixer analyze`."""
    if budget is not None and not condensed:
        raise BuildfixerError("--budget is the size of the condensed view: give it with --condensed")
    if budget is None:
        budget = 2000
    check_number("--budget", budget, whole=True, low=1, high=MAX_CONDENSED_BUDGET)
    analysis = analyze_file(logfile)
    if as_json:
        data = analysis.to_dict()
        if condensed:
            data["condensed"] = condense(analysis, budget_tokens=budget)
        print_json(data)
    elif condensed:
        typer.echo(visible(condense(analysis, budget_tokens=budget)))
    else:
        print_analysis(analysis)


def jdks_command(as_json: bool) -> None:
    """`buildfixer jdks`."""
    found = discover_jdks()
    if as_json:
        print_json([j.to_dict() for j in found])
        return
    if not found:
        searched = "JAVA_HOME, /usr/lib/jvm, SDKMAN, ~/.jdks, BUILDFIXER_JDK_PATHS"
        raise BuildfixerError(f"no JDK found (searched {searched})")
    default = default_jdk()
    for j in found:
        mark = "  (default)" if default and default.path == j.path else ""
        typer.echo(f"{j.version:>3}  {j.path}{mark}")


def fix_command(
    path: Path, settings: FixSettings, trajectory: Path | None, dry_run: bool, as_json: bool,
    pr: bool = False,
) -> int:  # fmt: skip
    """`buildfixer fix` with its settings (flags over a config file): 0 resolved, 1 not (or not kept)."""
    check_flag("offline", settings.offline)
    check_flag("no_triage", settings.no_triage)
    options = BuildOptions(
        jdk=settings.jdk,
        timeout_s=settings.timeout,
        offline=settings.offline,
        trust_domain=project_domain(path),
    )
    with_sandbox(options, settings.no_sandbox)
    # Triage first (docs/TRIAGE.md): at most one more build, and only when the first result is
    # ambiguous (a failing test: built again; a base commit that differs from HEAD: built).
    triaged = {"triage": "off"} if settings.no_triage else {"triage": "full", "triage_base": settings.base}
    config = settings.attempt_config(options=options, trajectory_path=trajectory, **triaged)
    outcome = fix_project(path, config, dry_run=dry_run, progress=ProgressPrinter(), pr=pr)
    attempt = outcome.attempt
    if as_json:
        print_json({
            "resolved": attempt.resolved, "patch": outcome.patch, "llm_calls": attempt.llm_calls,
            "trajectory": str(outcome.trajectory_path), "applied": outcome.applied, "jdk": attempt.jdk,
            "stop": attempt.stop.kind.value, "stop_reason": attempt.stop_reason, "refused": outcome.refused,
            "conflict": outcome.conflict or None, "sandbox": options.sandbox, "judge": attempt.judge,
            "triage": attempt.triage.to_dict() if attempt.triage else None,
            **({"pr": outcome.pull_request.to_dict() if outcome.pull_request else None} if pr else {}),
        })  # fmt: skip
    else:
        print_outcome(outcome, dry_run)
        if settings.no_sandbox:
            typer.echo(NO_SANDBOX_NOTE)
    # A repair that could not be written (the project changed meanwhile) leaves the build broken.
    return 0 if attempt.resolved and not outcome.conflict else 1


def toolsets_command(system: str, as_json: bool) -> None:
    """`buildfixer toolsets`."""
    if system not in SYSTEMS:
        raise BuildfixerError(f"unknown build system {system!r} (known: {', '.join(SYSTEMS)})")
    table = {name: tool_names(name, system) for name in PRESETS}
    if as_json:
        print_json(table)
        return
    for name, names in table.items():
        typer.echo(f"{name:<26} {', '.join(names)}")
    typer.echo("\nOffered only where they apply:")
    for tool, where in CONDITIONS.items():
        typer.echo(f"  {tool:<24} {where}")
