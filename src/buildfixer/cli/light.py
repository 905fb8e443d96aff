"""The commands that start light: `build`, `analyze` and `jdks`, declared apart from the others.

Running one of them (`cli.entry.main` sees its name first) builds a command line of these alone:
none of the other commands' modules is imported and typer converts three commands, not thirty.
A user or an agent runs `buildfixer build` again and again; its start-up is part of every build.
`cli.main` registers the same functions in the full command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from buildfixer import __version__
from buildfixer.cli.settings import NoSandboxOpt

# The build to use when a project has two (pom.xml beside build.gradle); `build` and `fix` take it.
SystemOpt = Annotated[
    str | None, typer.Option(help="The build to use: gradle, maven, python or npm (default: the one found).")
]

JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"buildfixer {__version__}")
        raise typer.Exit()


def options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """The options every command shares (`--version`)."""


def build(
    path: Annotated[Path, typer.Argument(help="Project directory.")] = Path("."),
    jdk: Annotated[int | None, typer.Option(help="Build with this major JDK version.")] = None,
    timeout: Annotated[float, typer.Option(help="Kill the build after this many seconds.")] = 1800.0,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task/goal/script to run instead of the default.")
    ] = None,
    offline: Annotated[bool, typer.Option(help="No network for the build tool.")] = False,
    cold: Annotated[bool, typer.Option(help="No daemon or reused environments; clean first.")] = False,
    system: SystemOpt = None,
    no_sandbox: NoSandboxOpt = False,
    patch: Annotated[
        Path | None, typer.Option(help="Build a snapshot of PATH with this patch applied (PATH untouched).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Detect and run the project's build; show the root error when it fails."""
    from buildfixer.cli import commands  # lazy: the build layer is not needed for --help

    code = commands.build_command(path, jdk, timeout, task, offline, cold, system, no_sandbox, patch, as_json)
    raise typer.Exit(code)


def analyze(
    logfile: Annotated[Path, typer.Argument(help="A saved build log.")],
    condensed: Annotated[bool, typer.Option(help="Print the prompt-ready condensed view.")] = False,
    budget: Annotated[
        int | None, typer.Option(help="Token budget of the condensed view (default: 2000).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Parse a saved build log into structured errors, root error first."""
    from buildfixer.cli import analyze_commands  # lazy: the parsers are not needed for --help

    analyze_commands.analyze_command(logfile, condensed, budget, as_json)


def jdks(as_json: JsonFlag = False) -> None:
    """List the installed JDKs buildfixer can switch between."""
    from buildfixer.cli import commands  # lazy: JDK discovery is not needed for --help

    commands.jdks_command(as_json)


LIGHT_COMMANDS = (build, analyze, jdks)
# The settings of both command lines, the full one's (`cli.main`) and this one's.
APP_SETTINGS: dict[str, Any] = {
    "name": "buildfixer",
    "help": "Run, read and repair broken software builds (Gradle, Maven, Python, npm).",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
}


def light_app() -> typer.Typer:
    """A command line of the light commands alone (the full one's help, options and exit codes)."""
    app = typer.Typer(
        name="buildfixer", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False
    )
    app.callback()(options)
    for command in LIGHT_COMMANDS:
        app.command()(command)
    return app
