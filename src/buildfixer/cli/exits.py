"""How a command line ends: bad usage or input as one line on stderr and exit code 2, never a traceback.

Shared by both command lines (`cli.entry`'s light one, `cli.main`'s full one).
"""

from __future__ import annotations

import signal
import sys

import click
import typer

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (kill, timeout, CI): unwind like Ctrl-C, so builds are stopped and workspaces removed."""
    signal.signal(signum, signal.SIG_DFL)  # a second one kills at once
    raise SystemExit(128 + signum)


def run_command_line(app: typer.Typer) -> None:
    """Run a command line: bad usage or input is one line on stderr and exit code 2, never a traceback.

    Click's own usage errors (an unknown option, a value of the wrong type, a missing argument)
    are caught here too, instead of click's multi-line usage box.
    """
    signal.signal(signal.SIGTERM, _terminated)
    try:
        code = app(standalone_mode=False)
    except BuildfixerError as exc:
        typer.echo(f"buildfixer: error: {one_line(str(exc))}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # click >= 8.2: the help is already printed
            sys.exit(exc.exit_code)
        ctx = getattr(exc, "ctx", None)  # usage errors know their command
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        typer.echo(f"buildfixer: error: {one_line(exc.format_message())}{hint}", err=True)
        sys.exit(2)
    except (KeyboardInterrupt, click.exceptions.Abort):
        typer.echo("buildfixer: interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def one_line(message: str) -> str:
    """A message on one line: a provider's or a parser's text may hold line breaks (and controls)."""
    return visible(" ".join(message.split())) or "unknown error"
