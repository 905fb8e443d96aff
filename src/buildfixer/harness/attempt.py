"""One repair attempt in a workspace: the current failure, an agent, then the harness's own verdict build.

Shared by `buildfixer fix` (a snapshot of the user's project) and the benchmark (a workspace at
a failing commit). The agent's word never counts: only the final build the harness runs here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.agents.env import AgentSettings, AttemptEnv
from buildfixer.agents.loop import Budget
from buildfixer.agents.registry import get_agent
from buildfixer.agents.trajectory import Trajectory
from buildfixer.buildsys.analyzed import attach_analysis, build_and_analyze
from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system
from buildfixer.core.progress import Progress, emit
from buildfixer.core.records import BuildResult
from buildfixer.core.stops import Stop, StopKind
from buildfixer.llm import factory
from buildfixer.llm.base import ModelError
from buildfixer.tools.context import ToolContext
from buildfixer.tools.web import knowledge_from_env, search_from_env
from buildfixer.workspace.ledger import EditLedger


@dataclass
class AttemptConfig:
    """Everything that defines an attempt.

    Attributes:
        agent: A registered agent (agents.registry): tool, recipes, coding-assistant, hierarchical,
            cascade, oracle, none.
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
        model_options: Model settings passed to the provider (temperature, max_output_tokens, seed).
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
    model_options: dict[str, Any] = field(default_factory=dict)

    def agent_name(self) -> str:
        """The agent actually run: the model "recipes" means the recipes policy."""
        return "recipes" if self.model == "recipes" else self.agent

    def settings(self) -> AgentSettings:
        """The part an agent reads."""
        return AgentSettings(
            model=self.model, toolset=self.toolset, mask=self.mask, guidance=self.guidance,
            budget=self.budget, first_error=self.first_error, model_options=dict(self.model_options),
        )  # fmt: skip

    def describe(self) -> dict[str, Any]:
        """The effective configuration as recorded next to results and in trajectories."""
        return {
            "agent": self.agent_name(), "model": self.model, "toolset": self.toolset, "mask": self.mask,
            "guidance": self.guidance, "build_output": self.build_output, "first_error": self.first_error,
            "budget": dict(self.budget.__dict__), "model_options": dict(self.model_options),
            "build": describe_options(self.options),
        }  # fmt: skip


@dataclass
class AttemptResult:
    """What an attempt did and what the verdict build said."""

    resolved: bool
    verdict: BuildResult
    initial: BuildResult
    trajectory: Trajectory
    stop: Stop
    jdk: int | None
    duration_s: float
    edited: list[str] | None = None
    refused: list[str] = field(default_factory=list)

    @property
    def stop_reason(self) -> str:
        """How the attempt ended, in words."""
        return self.stop.detail

    @property
    def llm_calls(self) -> int:
        """Model calls made by the agent."""
        return self.trajectory.llm_calls()


def make_context(root: Path, config: AttemptConfig, system: str | None = None) -> ToolContext:
    """The tools' shared state for a workspace, with backends taken from the environment."""
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
    return ctx.tracked(lambda: build_and_analyze(ctx.root, ctx.options, ctx.build_system)[0])


def verdict_build(
    ctx: ToolContext, frozen: set[str], progress: Progress | None = None
) -> tuple[BuildResult, list[str] | None, list[str]]:
    """The harness's own build of the repair alone; returns it with the edited and the refused paths.

    Build side effects (a rewritten lockfile) and edits of frozen paths are undone first, so the
    verdict judges exactly the patch that will be reported and applied. When the last build ran on
    that same tree with the same options, its result stands and nothing is built again.
    """
    if ctx.ledger is None:
        emit(progress, "build", {"phase": "verdict"})
        return current_build(ctx), None, []
    edited, refused = ctx.ledger.settle(frozen)
    reused = ctx.ledger.reusable_result(repr(ctx.options))
    emit(progress, "build", {"phase": "verdict" if reused is None else "verdict-reused"})
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
    instance: dict[str, Any] | None = None,
    system: str | None = None,
) -> AttemptResult:
    """Build, let the agent work (unless the build already succeeds), then build again for the verdict."""
    began = time.monotonic()
    agent = get_agent(config.agent_name())
    ctx = make_context(root, config, system)
    ctx.ledger = EditLedger.open(root)
    trajectory = Trajectory(config.trajectory_path)
    trajectory.meta = {
        "project": str(root), "build_system": ctx.build_system, "agent": agent.name, "model": config.model,
        "toolset": config.toolset, "mask": config.mask, "guidance": config.guidance,
        "max_calls": config.budget.max_calls, "config": config.describe(), **(meta or {}),
    }  # fmt: skip
    if agent.builds_first:
        emit(progress, "build", {"phase": "initial"})
        initial = initial or current_build(ctx)
        trajectory.meta["initial"] = _summary(initial)
    trajectory.save()
    edited: list[str] | None = []
    refused: list[str] = []
    initial = initial or _not_built()
    if initial.status == "success":
        stop, verdict = Stop(StopKind.RESOLVED, "the build already succeeds"), initial
    else:
        env = AttemptEnv(
            ctx, config.settings(), trajectory, initial, lambda: current_build(ctx),
            lambda spec: factory.make_model(spec, **config.model_options), progress, instance,
        )  # fmt: skip
        try:
            stop = agent.run(env)
        except ModelError as exc:
            stop = Stop(StopKind.MODEL_ERROR, f"model error: {exc}")
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: say so on record, then unwind
            trajectory.finish({"resolved": False, **Stop(StopKind.INFRA_ERROR, "interrupted").to_dict()})
            raise
        verdict, edited, refused = verdict_build(ctx, config.frozen, progress)
    resolved = verdict.status == "success"
    if resolved and stop.kind is not StopKind.RESOLVED:
        stop = Stop(StopKind.RESOLVED, stop.detail)  # the harness's build, not the agent's word, decides
    trajectory.finish(
        {"resolved": resolved, **stop.to_dict(), "jdk": ctx.options.jdk, **_summary(verdict),
         "edited": edited, "refused": refused}
    )  # fmt: skip
    return AttemptResult(
        resolved, verdict, initial, trajectory, stop, ctx.options.jdk, time.monotonic() - began, edited,
        refused,
    )  # fmt: skip


def _not_built() -> BuildResult:
    """What an agent that does not build first (a self-check agent) is given as "the failure"."""
    return BuildResult(status="error", exit_code=-1, duration_s=0.0, build_system="", command=[], jdk=None,
                       log_path="")  # fmt: skip


def describe_options(options: BuildOptions) -> dict[str, Any]:
    """The build options that change a result (not where caches or logs live)."""
    return {
        "jdk": options.jdk, "timeout_s": options.timeout_s, "offline": options.offline,
        "tasks": options.tasks, "warm": options.warm, "sandbox": options.sandbox, "as_of": options.as_of,
    }  # fmt: skip


def _summary(result: BuildResult) -> dict[str, Any]:
    top = result.errors[0].to_dict() if result.errors else None
    return {
        "status": result.status,
        "category": result.category,
        "top_error": top,
        "log_path": result.log_path,
    }
