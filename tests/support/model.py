"""Scripted model replies (`buildfixer.llm.scripted`): the script file, and its steps.

A script is a JSON list of steps, one per model call; a model spec `scripted:<file>` replays it
(`scripted:<folder>` gives each instance its `<instance>.json`, else `default.json`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def scripted(path: Path, steps: list[dict[str, Any]]) -> str:
    """Write the steps to path (a JSON file) and return the model spec that replays them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(steps))
    return f"scripted:{path}"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A step that calls one tool."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def write_file(path: str, content: str) -> dict[str, Any]:
    """A step that writes a whole file (`write_file`)."""
    return call("write_file", path=path, content=content)


def replace(file_path: str, old_string: str, new_string: str) -> dict[str, Any]:
    """A step that replaces text in a file (`replace`)."""
    return call("replace", file_path=file_path, old_string=old_string, new_string=new_string)
