"""The command line: `buildfixer` and its sub-commands (typer), and their terminal rendering."""

from buildfixer.cli.main import app, main

__all__ = ["app", "main"]
