"""`buildfixer triage`: what a failing build is before anyone repairs it (docs/TRIAGE.md).

`cli.main` registers `triage_command`; this module imports typer and the shared option types
only, the build layer loads when the command runs (`cli.triage_commands`). Exit codes: 0 the
build passes (nothing to triage), 1 it fails (whatever its class: the output says which), 2 bad
input (one line on stderr, before any build).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buildfixer.cli.settings import NoSandboxOpt


def triage_command(
    path: Annotated[Path, typer.Argument(help="Project directory, built in place.")] = Path("."),
    base: Annotated[
        str | None,
        typer.Option(
            help="Compare with this branch, tag or commit (default: GITHUB_BASE_REF, the upstream's "
            "default branch, main, master; only when it differs from HEAD).",
            show_default=False,
        ),
    ] = None,
    max_builds: Annotated[
        int, typer.Option(help="Builds besides the first: a rerun, the base commit (0: from the log alone).")
    ] = 2,
    jdk: Annotated[int | None, typer.Option(help="Build with this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 1800.0,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    no_sandbox: NoSandboxOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict record as JSON.")] = False,
) -> None:
    """Build the project and say what its failure is: flaky, infra, pre_existing or real."""
    from buildfixer.cli import triage_commands  # lazy: the build layer is not needed for --help

    code = triage_commands.run_triage(path, base, max_builds, jdk, timeout, offline, no_sandbox, as_json)
    raise typer.Exit(code)
