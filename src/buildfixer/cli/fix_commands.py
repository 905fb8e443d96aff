"""What `buildfixer fix` and `buildfixer toolsets` do, once their options are parsed (cli.main declares them).

Apart from the build commands (cli.commands) so that `buildfixer build`, run again and again on a
warm project, imports none of the agents, tools or renderers a repair needs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.project import SYSTEMS
from buildfixer.cli.commands import print_json
from buildfixer.cli.fix_render import ProgressPrinter, print_outcome
from buildfixer.cli.settings import NO_SANDBOX_NOTE, FixSettings, check_flag, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.delivery.fix import fix_project
from buildfixer.tools.presets import CONDITIONS, PRESETS, tool_names


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
    progress = ProgressPrinter()
    outcome = fix_project(path, config, dry_run=dry_run, progress=progress, pr=pr, system=settings.system)
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
