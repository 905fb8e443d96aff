"""The tools' context (`ToolContext`) as tests build it, and tools looked up by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

from buildfixer.buildsys.options import BuildOptions
from buildfixer.tools.base import Tool
from buildfixer.tools.context import ToolContext

_OPTION_FIELDS = {f.name for f in fields(BuildOptions)}
Family = Callable[[ToolContext], Iterable[Tool]]


def tool_context(root: Path, system: str = "gradle", **settings: Any) -> ToolContext:
    """A context on root for a build system.

    `settings` are `BuildOptions` fields (cache_dir, offline, timeout_s...) or `ToolContext` ones
    (installed_jdks, search, knowledge...); `options=` gives whole options instead. Without any
    option the context has the default options, as `ToolContext(root, system)`.
    """
    given = {k: settings.pop(k) for k in list(settings) if k in _OPTION_FIELDS}
    if given:
        if "options" in settings:
            raise TypeError("give options= or BuildOptions fields, not both")
        settings["options"] = BuildOptions(**given)
    return ToolContext(root, system, **settings)


def tools_by_name(context: ToolContext, *families: Family) -> dict[str, Tool]:
    """The tools of these families (`file_tools`, `dependency_tools`...) on context, by name."""
    return {tool.name: tool for family in families for tool in family(context)}
