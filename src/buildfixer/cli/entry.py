"""The console entry point: one of the light commands starts a command line of its own (`cli.light`)."""

from __future__ import annotations

import sys

from buildfixer.cli.exits import run_command_line

# Run through `cli.light` alone when named first (`buildfixer build ...`); anything else (a global
# option first, `--help`, another command) gets the full command line.
_LIGHT = {"build", "analyze", "jdks"}


def main() -> None:
    """`buildfixer`: the light command line for a light command, else the full one."""
    if len(sys.argv) > 1 and sys.argv[1] in _LIGHT:
        from buildfixer.cli.light import light_app

        run_command_line(light_app())
    else:
        from buildfixer.cli.main import app

        run_command_line(app)
