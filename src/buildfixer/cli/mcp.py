"""`buildfixer mcp`: buildfixer's build tools served to any agent over the Model Context Protocol.

`cli.main` registers `mcp_command`. This module imports typer and the shared option types only;
the server and the `mcp` SDK under it (starlette, uvicorn, pydantic) load when the command runs.
Bad input (no build, an unknown toolset, a JDK that is not here, a port in use) is one line on
stderr and exit 2, before anything is served; in stdio mode stdout carries the protocol alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buildfixer.cli.settings import MaskOpt, MemoryTrustOpt, NoSandboxOpt


def mcp_command(
    path: Annotated[Path, typer.Argument(help="Project directory, worked on in place.")] = Path("."),
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            metavar="PORT",
            help="Serve streamable HTTP on 127.0.0.1:PORT (0: a free port) instead of stdio; the URL "
            "goes to stderr.",
        ),
    ] = None,
    toolset: Annotated[
        str, typer.Option(help="Tool preset (see `buildfixer toolsets`); `judge` is always served too.")
    ] = "mcp",
    mask: MaskOpt = "none",
    jdk: Annotated[int | None, typer.Option(help="Start from this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Limit of each build, in seconds.")] = 1800.0,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    memory_trust: MemoryTrustOpt = "same",
    no_sandbox: NoSandboxOpt = False,
) -> None:
    """Serve buildfixer's build tools to an agent (Claude Code, Cursor, ...) over MCP, in place on PATH."""
    from buildfixer.cli import mcp_commands  # lazy: the server and the SDK are not needed for --help

    code = mcp_commands.serve_command(
        path, http, toolset, mask, jdk, timeout, offline, memory_trust, no_sandbox
    )
    raise typer.Exit(code)
