"""What the top-level commands do, once their options are parsed (cli.main declares them).

Kept apart from the declarations so `buildfixer --help` imports none of this. Each function
returns the exit code, or raises BuildfixerError (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.cli.build_render import print_analysis, print_build_result
from buildfixer.cli.fix_render import ProgressPrinter, print_outcome
from buildfixer.cli.settings import attempt_config
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.fix import fix_project
from buildfixer.logs.analyze import analyze_file
from buildfixer.logs.condense import condense
from buildfixer.tools.presets import PRESETS, tool_names
from buildfixer.workspace.workspace import Workspace


def print_json(data: object) -> None:
    """Machine-readable output on stdout."""
    typer.echo(json.dumps(data, indent=2))


def build(
    path: Path, jdk: int | None, timeout: float, task: list[str] | None, offline: bool, cold: bool,
    system: str | None, sandbox: bool, patch: Path | None, as_json: bool,
) -> int:  # fmt: skip
    """`buildfixer build`: 0 built, 1 failed, 2 could not run."""
    workspace = None
    if patch is not None:
        try:
            patch_text = patch.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise BuildfixerError(f"cannot read patch {patch}: {why}") from None
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
    )  # fmt: skip
    try:
        result, _ = build_and_analyze(path, options, system)
    finally:
        if workspace is not None:  # the snapshot was ours: leave nothing running or on disk
            stop_daemons(path, options)
            workspace.remove()
    if as_json:
        print_json(result.to_dict())
    else:
        print_build_result(result)
    if result.status == "error":
        return 2
    return 0 if result.ok else 1


def analyze(logfile: Path, condensed: bool, budget: int, as_json: bool) -> None:
    """`buildfixer analyze`."""
    analysis = analyze_file(logfile)
    if as_json:
        data = analysis.to_dict()
        if condensed:
            data["condensed"] = condense(analysis, budget_tokens=budget)
        print_json(data)
    elif condensed:
        typer.echo(condense(analysis, budget_tokens=budget))
    else:
        print_analysis(analysis)


def jdks(as_json: bool) -> None:
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


def fix(path: Path, values: dict[str, Any], trajectory: Path | None, dry_run: bool, as_json: bool) -> int:
    """`buildfixer fix` with its merged option values: 0 resolved, 1 not (or not written back)."""
    options = BuildOptions(jdk=values["jdk"], timeout_s=values["timeout"], offline=bool(values["offline"]))
    config = attempt_config(values, options=options, trajectory_path=trajectory)
    outcome = fix_project(path, config, dry_run=dry_run, progress=ProgressPrinter())
    attempt = outcome.attempt
    if as_json:
        print_json({
            "resolved": attempt.resolved, "patch": outcome.patch, "llm_calls": attempt.llm_calls,
            "trajectory": str(outcome.trajectory_path), "applied": outcome.applied, "jdk": attempt.jdk,
            "stop": attempt.stop.kind.value, "stop_reason": attempt.stop_reason, "refused": outcome.refused,
            "conflict": outcome.conflict or None,
        })  # fmt: skip
    else:
        print_outcome(outcome, dry_run)
    # A repair that could not be written (the project changed meanwhile) leaves the build broken.
    return 0 if attempt.resolved and not outcome.conflict else 1


def toolsets(system: str, as_json: bool) -> None:
    """`buildfixer toolsets`."""
    table = {name: tool_names(name, system) for name in PRESETS}
    if as_json:
        print_json(table)
        return
    for name, names in table.items():
        typer.echo(f"{name:<26} {', '.join(names)}")
