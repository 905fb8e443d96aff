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
from buildfixer.buildsys.project import detect_build_system, stop_daemons
from buildfixer.cli.build_render import print_build_result
from buildfixer.cli.patches import read_patch
from buildfixer.cli.settings import NO_SANDBOX_NOTE, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.checks import check_jdk, check_seconds
from buildfixer.workspace.workspace import Workspace


def print_json(data: object) -> None:
    """Machine-readable output on stdout."""
    typer.echo(json.dumps(data, indent=2))




def build_command(
    path: Path, jdk: int | None, timeout: float, task: list[str] | None, offline: bool, cold: bool,
    system: str | None, no_sandbox: bool, patch: Path | None, as_json: bool,
) -> int:  # fmt: skip
    """`buildfixer build`: 0 built, 1 failed, 2 could not run."""
    check_seconds("--timeout", timeout)
    check_jdk(jdk)
    if task is not None and not all(t.strip() for t in task):
        raise BuildfixerError("--task must name a task, goal or script (got an empty one)")
    detect_build_system(path, system)  # no build there (of `system`): one line, exit 2, before anything
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
    if not result.ok and result.status != "error":
        from buildfixer.cli.build_hints import build_hints

        if hints := build_hints(result, path, options, system):
            result.environment["hint"] = "; ".join(hints)
    if as_json:
        print_json({**result.to_dict(), "sandbox": options.sandbox})
    else:
        print_build_result(result)
        if no_sandbox:
            typer.echo(NO_SANDBOX_NOTE)
    if result.status == "error":
        return 2
    return 0 if result.ok else 1


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
