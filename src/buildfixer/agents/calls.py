"""Running one tool call the way every agent does: a model's mistake becomes an error text, never a crash."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from buildfixer.agents.trajectory import ToolResult
from buildfixer.tools.base import Tool, ToolError


def execute_call(
    tools: Mapping[str, Tool], call_id: str, name: str, arguments: str | dict[str, Any]
) -> ToolResult:
    """Run `name(arguments)`; an unknown tool or a ToolError comes back as an error result.

    Only ToolError is caught: anything else is a bug of ours and fails the attempt loudly.
    """
    began = time.monotonic()
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(tools) or "none"
        output, failed = f"Error: unknown tool {name!r}. Available tools: {known}", True
    else:
        try:
            output, failed = tool.call(arguments), False
        except ToolError as exc:
            output, failed = f"Error: {exc}", True
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolResult(call_id, name, text, output, failed, time.monotonic() - began)
