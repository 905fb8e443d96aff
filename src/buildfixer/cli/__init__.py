"""The command line: `buildfixer` and its sub-commands (typer), and their terminal rendering.

Nothing is imported here: `buildfixer build` starts from `cli.entry` and loads only what it runs.
`from buildfixer.cli import app, main` still gives the full command line.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from buildfixer.cli import main as full

        return getattr(full, name)
    raise AttributeError(f"module 'buildfixer.cli' has no attribute {name!r}")
