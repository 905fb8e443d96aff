"""Toolsets: the tool configurations of the studies' tables, and masking of names and descriptions.

A preset is a list of tool *slots*. Most slots are tools by name; the slot "command" is the build
system's own command tool: `run_gradle_command` on Gradle projects, `run_maven_command`,
`run_npm_command` or `run_python_command` elsewhere (tool bridging beyond Gradle).

A preset is the set of tools offered *where they apply*: a tool that cannot help on this project
is left out rather than offered to a model that would call it (a small model does). So
`change_java_version` is offered on JVM projects only (Gradle, Maven), `upgrade_gradle` on Gradle
projects only, `search_google` only when a search backend is configured (`BUILDFIXER_SEARCH_CMD`).
`ask_for_help` stays: its knowledge base is the fix memory, which a run fills as it goes (an empty
one answers so), and the repair loop's prompt counts on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from buildfixer.buildsys.project import JVM_SYSTEMS
from buildfixer.core.errors import BuildfixerError
from buildfixer.tools.base import Tool
from buildfixer.tools.build_tools import build_tools
from buildfixer.tools.context import ToolContext
from buildfixer.tools.dependency import dependency_tools
from buildfixer.tools.files import file_tools
from buildfixer.tools.shell import shell_tools
from buildfixer.tools.web import SEARCH_COMMAND_VARIABLE, web_tools

# Gemini-CLI's file tools and its web search, common to every configuration of the first study.
_FILES = ["list_directory", "glob", "search_file_content", "read_file", "replace", "search_google"]

PRESETS: dict[str, list[str]] = {
    # GradleFixer: file tools + build + build-system command + JDK switch, no shell.
    "gradlefixer": [*_FILES, "run_build", "command", "change_java_version"],
    # Gemini-CLI with its shell (the "Read/Write and Shell" agent; also "Only shell" of Table 5).
    "shell": [*_FILES, "run_shell"],
    "only-shell": [*_FILES, "run_shell"],
    # Gemini-CLI without shell ("Read/Write Only", the "No shell" baseline).
    "noshell": list(_FILES),
    "only-gradle": [*_FILES, "command"],
    "only-build": [*_FILES, "run_build"],
    "build+gradle": [*_FILES, "run_build", "command"],
    "build+java": [*_FILES, "run_build", "change_java_version"],
    "shell+build+gradle+java": [*_FILES, "run_shell", "run_build", "command", "change_java_version"],
    # What `buildfixer mcp` serves other agents by default (it adds its own `judge`): the domain
    # tools, no shell (the client agent has its own).
    "mcp": [
        *_FILES, "write_file", "run_build", "command", "change_java_version", "upgrade_gradle",
        "dependency_upgrade", "remove_dependency", "ask_for_help",
    ],
    # The industrial repair loop's ten tools.
    "industrial": [
        "ask_for_help", "dependency_upgrade", "find_files", "find_files_with_text", "remove_dependency",
        "run_sh", "upgrade_gradle", "validate_and_build", "read_file", "write_file",
    ],
}  # fmt: skip

COMMAND_TOOLS = {
    "gradle": "run_gradle_command",
    "maven": "run_maven_command",
    "npm": "run_npm_command",
    "python": "run_python_command",
}

MASK_MODES = ("none", "names", "descriptions", "both")

# Tools that only apply to some build systems.
ONLY_ON: dict[str, tuple[str, ...]] = {
    "change_java_version": JVM_SYSTEMS,
    "upgrade_gradle": ("gradle",),
}
# Tools that need a backend, by the backend's name ("search": ToolContext.search).
NEEDS: dict[str, str] = {"search_google": "search"}
BACKENDS = ("search",)
# When each conditional tool is offered, in words (for listings such as `buildfixer toolsets`).
CONDITIONS: dict[str, str] = {
    "change_java_version": "Gradle and Maven projects",
    "upgrade_gradle": "Gradle projects",
    "search_google": "when a search command is configured (BUILDFIXER_SEARCH_CMD)",
}

# Words that give a tool's purpose away; masked in descriptions for the semantics ablation.
_KEYWORDS = re.compile(
    r"\b(gradle\w*|gradlew|maven|mvn\w*|npm|pip|pytest|python|java\w*|jdk|jvm|kotlin|android|build\w*|"
    r"compil\w*|shell|bash|command\w*|dependenc\w*|google|search\w*|web|wrapper|version\w*|"
    r"tasks?|assemble\w*|replace\w*|file\w*|director\w*|folder\w*|glob|grep|regex\w*|read\w*|"
    r"write\w*|edit\w*|list\w*)\b",
    re.IGNORECASE,
)


def all_tools(ctx: ToolContext) -> dict[str, Tool]:
    """Every tool available for this context, by name."""
    factories: list[Callable[[ToolContext], list[Tool]]] = [
        file_tools,
        build_tools,
        shell_tools,
        web_tools,
        dependency_tools,
    ]
    return {tool.name: tool for factory in factories for tool in factory(ctx)}


def configured_backends() -> set[str]:
    """The backends the environment configures (what `harness.attempt.make_context` gives a context)."""
    return {"search"} if os.environ.get(SEARCH_COMMAND_VARIABLE, "").strip() else set()


def context_backends(ctx: ToolContext) -> set[str]:
    """The backends a context has."""
    return {name for name in BACKENDS if getattr(ctx, name) is not None}


def applies(name: str, build_system: str, backends: Collection[str]) -> bool:
    """Whether a tool is offered on this build system with these backends."""
    if name in ONLY_ON and build_system not in ONLY_ON[name]:
        return False
    return name not in NEEDS or NEEDS[name] in backends


def tool_names(preset: str, build_system: str, backends: Collection[str] | None = None) -> list[str]:
    """Names of a preset's tools where they apply (BuildfixerError for an unknown preset).

    `backends`: the backends configured ("search"); None: those the environment configures
    (`configured_backends`).
    """
    if preset not in PRESETS:
        raise BuildfixerError(f"unknown toolset {preset!r} (known: {', '.join(PRESETS)})")
    if backends is None:
        backends = configured_backends()
    names = []
    for slot in PRESETS[preset]:
        name = COMMAND_TOOLS.get(build_system, "run_gradle_command") if slot == "command" else slot
        if applies(name, build_system, backends):
            names.append(name)
    return names


def preset_schemas(
    preset: str, build_systems: list[str], mask: str = "none", backends: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The OpenAI schemas of a preset's tools for the build systems given, each tool once.

    No workspace is needed: schemas do not depend on one. The command slot differs by build
    system (`run_gradle_command`, `run_maven_command`, ...), so several systems give several, and
    so do the tools that apply to some systems only. `backends` as for `tool_names`.
    """
    chosen = configured_backends() if backends is None else set(backends)
    schemas: dict[str, dict[str, Any]] = {}
    for system in build_systems:
        probe = ToolContext(root=Path("/"), build_system=system)  # schemas only: nothing runs
        for tool in _toolset(probe, preset, mask, chosen):
            schemas.setdefault(tool.name, tool.schema())
    return list(schemas.values())


def make_toolset(ctx: ToolContext, preset: str, mask: str = "none") -> list[Tool]:
    """The preset's tools that apply to the context's project and backends, in preset order, masked."""
    return _toolset(ctx, preset, mask, context_backends(ctx))


def _toolset(ctx: ToolContext, preset: str, mask: str, backends: Collection[str]) -> list[Tool]:
    if mask not in MASK_MODES:
        raise BuildfixerError(f"unknown mask mode {mask!r} (known: {', '.join(MASK_MODES)})")
    available = all_tools(ctx)
    names = tool_names(preset, ctx.build_system, backends)
    missing = [n for n in names if n not in available]
    if missing:
        raise BuildfixerError(f"toolset {preset} needs tools not available here: {', '.join(missing)}")
    return mask_tools([available[n] for n in names], mask)


def mask_tools(tools: list[Tool], mask: str) -> list[Tool]:
    """The tools masked as a whole toolset (`names` labels them tool_A, tool_B, ... in this order).

    For a toolset with tools of its own beside a preset's (`buildfixer mcp` adds `judge`).
    """
    if mask not in MASK_MODES:
        raise BuildfixerError(f"unknown mask mode {mask!r} (known: {', '.join(MASK_MODES)})")
    if mask in ("descriptions", "both"):
        tools = [_mask_description(tool) for tool in tools]
    if mask in ("names", "both"):
        # Descriptions mention tool and parameter names ("read_file before replace", "old_string"):
        # those mentions are renamed too, or the masked names would be spelled out beside them.
        labels = {tool.name: _label(index) for index, tool in enumerate(tools)}
        tools = [_mask_name(tool, labels) for tool in tools]
    return tools


def _label(index: int) -> str:
    """tool_A, tool_B, ..., tool_Z, tool_AA, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"tool_{letters}"


def _rename(text: str, names: dict[str, str]) -> str:
    """Replace whole-word mentions of the given names (longest first: `read_file` before `read`)."""
    for old in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", names[old], text)
    return text


def _mask_name(tool: Tool, labels: dict[str, str]) -> Tool:
    """The tool under a generic name, its parameters renamed arg_1.. (names like gradle_command tell)."""
    props = tool.parameters.get("properties", {})
    renamed = {old: f"arg_{i}" for i, old in enumerate(props, start=1)}
    names = {**labels, **renamed}
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            renamed[k]: {**v, "description": _rename(v.get("description", ""), names)}
            for k, v in props.items()
        },
        "required": [renamed[k] for k in tool.parameters.get("required", [])],
    }
    back = {new: old for old, new in renamed.items()}
    original = tool.fn

    def call(**kwargs: Any) -> str:
        return original(**{back[k]: v for k, v in kwargs.items()})

    description, more = _rename(tool.description, names), _rename(tool.more, names)
    return Tool(labels[tool.name], description, parameters, call, tool.output_limit, more)


def _mask_text(text: str) -> str:
    return _KEYWORDS.sub("[MASKED]", text)


def _mask_description(tool: Tool) -> Tool:
    """The tool with domain keywords masked in its own and its parameters' descriptions."""
    props = {
        name: {**schema, "description": _mask_text(schema.get("description", ""))}
        for name, schema in tool.parameters.get("properties", {}).items()
    }
    parameters = {**tool.parameters, "properties": props}
    description, more = _mask_text(tool.description), _mask_text(tool.more)
    return Tool(tool.name, description, parameters, tool.fn, tool.output_limit, more)
