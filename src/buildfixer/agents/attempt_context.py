"""What an agent works with during one attempt: the workspace's tools, the failure, the record, its settings.

The harness (harness.attempt) builds this environment, hands it to an agent, and runs the
verdict build afterwards; agents never import the harness.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from buildfixer.agents.recipes import RECIPES
from buildfixer.agents.tool_loop import Budget
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.build_result import BuildResult
from buildfixer.core.chat import CallLimits
from buildfixer.core.progress import Progress, emit
from buildfixer.core.protocols import Model
from buildfixer.memory.knowledge import MemoryKnowledgeBase
from buildfixer.tools.base import Tool
from buildfixer.tools.build_support import format_build_output
from buildfixer.tools.context import ToolContext
from buildfixer.tools.presets import all_tools, make_toolset


@dataclass
class AgentSettings:
    """The part of an attempt's configuration an agent reads.

    Attributes:
        model: A litellm model string or "scripted:FILE"; for cascade, models separated by commas.
        toolset: Tool preset name (tools.presets.PRESETS).
        mask: Masking of tool names/descriptions: none, names, descriptions, both.
        guidance: Add the tool usage guidance to the system prompt (the shell-agent variant).
        budget: Limits of the loop.
        first_error: How the first message shows the failure: "condensed" or "raw".
    """

    model: str = RECIPES
    toolset: str = "gradlefixer"
    mask: str = "none"
    guidance: bool = False
    budget: Budget = field(default_factory=Budget)
    first_error: str = "condensed"


@dataclass
class AttemptContext:
    """One attempt's world, as an agent sees it.

    Attributes:
        ctx: The tools' shared state (workspace root, build system, options, ledger).
        settings: Model, toolset, budget.
        trajectory: Where every step is recorded.
        initial: The failing build the agent starts from.
        build: Builds the workspace as it is now (tracked by the harness's edit ledger).
        make_model: Turns a model spec into a model (the harness injects the provider factory).
        progress: Live events for the terminal, or None.
        instance: The benchmark instance when there is one (the oracle reads its gold patch).
        memory: The fix memory as this attempt may read it (bounded by the instance's horizon),
            or None when there is none.
        started: When the agent's work began (time.monotonic), for the time budget.
    """

    ctx: ToolContext
    settings: AgentSettings
    trajectory: Trajectory
    initial: BuildResult
    build: Callable[[], BuildResult]
    make_model: Callable[[str], Model]
    progress: Progress | None = None
    instance: dict[str, Any] | None = None
    memory: MemoryKnowledgeBase | None = None
    started: float = field(default_factory=time.monotonic)

    def call_limits(self, trajectory: Trajectory | None = None) -> CallLimits:
        """The bounds of a model call made outside a tool loop, from what is left of the budget."""
        return self.settings.budget.call_limits(trajectory or self.trajectory, self.started)

    def model(self, spec: str | None = None) -> Model:
        """The model this attempt runs (or the one named)."""
        return self.make_model(spec or self.settings.model)

    def error_view(self, result: BuildResult | None = None, style: str | None = None) -> str:
        """A failure as a prompt shows it: the condensed analysis or the raw output."""
        return format_build_output(self.ctx, result or self.initial, style or self.settings.first_error)

    def toolset(self) -> list[Tool]:
        """The configured toolset, masked as configured."""
        return make_toolset(self.ctx, self.settings.toolset, self.settings.mask)

    def all_tools(self) -> dict[str, Tool]:
        """Every tool by name (policies that pick their own calls use these)."""
        return all_tools(self.ctx)

    def emit(self, event: str, data: dict[str, Any]) -> None:
        """Report progress, if anyone listens."""
        emit(self.progress, event, data)
