"""The command line: `buildfixer` and its sub-commands (typer), and their terminal rendering.

Nothing is imported here: `buildfixer build` starts from `cli.entry` and loads only what it runs;
the full command line is `buildfixer.cli.main.app`.
"""
