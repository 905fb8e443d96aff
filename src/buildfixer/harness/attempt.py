"""One repair attempt in a workspace: the current failure, an agent, then the harness's own verdict build.

Shared by `buildfixer fix` (a snapshot of the user's project) and the benchmark (a workspace at
a failing commit). The agent's word never counts: only the final build the harness runs here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.agents.loop import Budget, Progress
from buildfixer.agents.trajectory import Trajectory
from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.records import BuildResult
from buildfixer.llm.base import ModelError
from buildfixer.tools.context import ToolContext
from buildfixer.workspace.ledger import EditLedger

AGENTS = ("tool", "recipes", "coding-assistant", "hierarchical", "cascade")


@dataclass
class AttemptConfig:
    """Everything that defines an attempt.

    Attributes:
        agent: tool (the Gemini-CLI-like loop), recipes, coding-assistant, hierarchical or cascade.
        model: A litellm model string, "scripted:FILE", or "recipes" (which selects the recipes
            agent). For cascade: models separated by commas, cheapest first.
        toolset: Preset name (see tools.presets.PRESETS).
        mask: Masking of tool names/descriptions: none, names, descriptions, both.
        guidance: Add the tool usage guidance to the system prompt (the shell-agent variant).
        budget: Limits of the loop.
        build_output: What build tools return: "raw" (the study's choice) or "condensed".
        first_error: How the first message shows the current error: "condensed" or "raw".
        options: Build options (JDK, timeout, offline, cache).
        trajectory_path: Where the trajectory is saved after every step (None: not saved).
        frozen: Paths a repair may not change (a user's git-ignored files): their edits are
            undone before the verdict build.
    """

    agent: str = "tool"
    model: str = "recipes"
    toolset: str = "gradlefixer"
    mask: str = "none"
    guidance: bool = False
    budget: Budget = field(default_factory=Budget)
    build_output: str = "raw"
    first_error: str = "condensed"
    options: BuildOptions = field(default_factory=BuildOptions)
    trajectory_path: Path | None = None
    frozen: set[str] = field(default_factory=set)

    def agent_name(self) -> str:
        """The agent actually run: the model "recipes" means the recipes policy."""
        return "recipes" if self.model == "recipes" else self.agent


@dataclass
class AttemptResult:
    """What an attempt did and what the verdict build said."""

    resolved: bool
    verdict: BuildResult
    initial: BuildResult
    trajectory: Trajectory
    stop_reason: str
    jdk: int | None
    duration_s: float
    edited: list[str] | None = None
    refused: list[str] = field(default_factory=list)

    @property
    def llm_calls(self) -> int:
        """Model calls made by the agent."""
        return self.trajectory.llm_calls()


def make_context(root: Path, config: AttemptConfig, system: str | None = None) -> ToolContext:
    """The tools' shared state for a workspace, with backends taken from the environment."""
    from buildfixer.tools.web import knowledge_from_env, search_from_env

    return ToolContext(
        root=root,
        build_system=system or detect_build_system(root),
        options=config.options,
        installed_jdks=sorted({jdk.version for jdk in discover_jdks()}),
        build_output=config.build_output,
        search=search_from_env(),
        knowledge=knowledge_from_env(),
    )


def current_build(ctx: ToolContext) -> BuildResult:
    """Build the workspace as it is now, with the failure read into errors."""
    from buildfixer.buildsys.analyzed import build_and_analyze

    return ctx.tracked(lambda: build_and_analyze(ctx.root, ctx.options, ctx.build_system)[0])


def verdict_build(
    ctx: ToolContext, frozen: set[str], progress: Progress | None = None
) -> tuple[BuildResult, list[str] | None, list[str]]:
    """The harness's own build of the repair alone; returns it with the edited and the refused paths.

    Build side effects (a rewritten lockfile) and edits of frozen paths are undone first, so the
    verdict judges exactly the patch that will be reported and applied. When the last build ran on
    that same tree with the same options, its result stands and nothing is built again.
    """
    from buildfixer.buildsys.analyzed import attach_analysis

    if ctx.ledger is None:
        _emit(progress, "build", {"phase": "verdict"})
        return current_build(ctx), None, []
    edited, refused = ctx.ledger.settle(frozen)
    reused = ctx.ledger.reusable_result(repr(ctx.options))
    _emit(progress, "build", {"phase": "verdict" if reused is None else "verdict-reused"})
    if reused is None:
        return current_build(ctx), edited, refused
    if reused.status != "success" and not reused.errors:
        attach_analysis(reused, ctx.root)
    return reused, edited, refused


def run_attempt(
    root: Path,
    config: AttemptConfig,
    progress: Progress | None = None,
    initial: BuildResult | None = None,
    meta: dict[str, Any] | None = None,
) -> AttemptResult:
    """Build, let the agent work (unless the build already succeeds), then build again for the verdict."""
    began = time.monotonic()
    agent = config.agent_name()
    if agent not in AGENTS:
        raise BuildfixerError(f"unknown agent {config.agent!r} (known: {', '.join(AGENTS)})")
    ctx = make_context(root, config)
    ctx.ledger = EditLedger.open(root)
    trajectory = Trajectory(config.trajectory_path)
    trajectory.meta = {
        "project": str(root), "build_system": ctx.build_system, "agent": agent, "model": config.model,
        "toolset": config.toolset, "mask": config.mask, "guidance": config.guidance,
        "max_calls": config.budget.max_calls, **(meta or {}),
    }  # fmt: skip
    _emit(progress, "build", {"phase": "initial"})
    initial = initial or current_build(ctx)
    trajectory.meta["initial"] = _summary(initial)
    trajectory.save()
    edited: list[str] | None = []
    refused: list[str] = []
    if initial.status == "success":
        stop = "the build already succeeds"
        verdict = initial
    else:
        try:
            stop = _run_agent(agent, ctx, config, trajectory, initial, progress)
        except ModelError as exc:
            stop = f"model error: {exc}"
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: say so on record, then unwind
            trajectory.finish({"resolved": False, "stop_reason": "interrupted"})
            raise
        verdict, edited, refused = verdict_build(ctx, config.frozen, progress)
    resolved = verdict.status == "success"
    trajectory.finish(
        {"resolved": resolved, "stop_reason": stop, "jdk": ctx.options.jdk, **_summary(verdict),
         "edited": edited, "refused": refused}
    )  # fmt: skip
    return AttemptResult(
        resolved, verdict, initial, trajectory, stop, ctx.options.jdk, time.monotonic() - began,
        edited, refused,
    )  # fmt: skip


def _run_agent(
    agent: str,
    ctx: ToolContext,
    config: AttemptConfig,
    trajectory: Trajectory,
    initial: BuildResult,
    progress: Progress | None,
) -> str:
    """Dispatch to the agent; returns why it stopped."""
    from buildfixer.agents import baselines
    from buildfixer.agents.recipes import agent as recipes_agent

    runners: dict[str, Callable[..., str]] = {
        "tool": baselines.run_tool_agent,
        "recipes": recipes_agent.run_recipes,
        "coding-assistant": baselines.run_coding_assistant,
        "hierarchical": baselines.run_hierarchical,
        "cascade": baselines.run_cascade,
    }
    return runners[agent](ctx, config, trajectory, initial, progress)


def _summary(result: BuildResult) -> dict[str, Any]:
    top = result.errors[0].to_dict() if result.errors else None
    return {
        "status": result.status,
        "category": result.category,
        "top_error": top,
        "log_path": result.log_path,
    }


def _emit(progress: Progress | None, event: str, data: dict[str, Any]) -> None:
    if progress is not None:
        progress(event, data)
