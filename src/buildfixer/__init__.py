"""buildfixer: repair broken builds with LLM agents, measure them, and train them.

Importing the package must stay cheap: the Python API (`buildfixer.build`, `buildfixer.fix`,
...; see `buildfixer.api`) is loaded on first use, and heavy dependencies (litellm, rich,
pydantic) only by the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_API = frozenset({
    "build", "analyze", "fix", "load_dataset", "run_benchmark_on", "read_run", "report", "AttemptConfig",
    "RunConfig", "BuildOptions", "Budget", "Instance",
})  # fmt: skip


def __getattr__(name: str) -> Any:
    """`buildfixer.fix` and the rest of the API, imported when first asked for."""
    if name in _API:
        return getattr(importlib.import_module("buildfixer.api"), name)
    raise AttributeError(f"module 'buildfixer' has no attribute {name!r}")
