"""Live progress: one callback shape for every long-running command (agent loop, validation, curation).

A producer calls `progress(event, data)`: an event name and a dict of what happened. Each producer
documents its events and their keys; renderers ignore events they do not know. Texts in the data
(tool names, stop reasons, recipes) may come from a model or a build: a renderer shows them through
`core.terminal.visible`, so their control characters cannot rewrite the progress line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Progress = Callable[[str, dict[str, Any]], None]


def emit(progress: Progress | None, event: str, data: dict[str, Any]) -> None:
    """Call `progress(event, data)` unless there is no callback."""
    if progress is not None:
        progress(event, data)
