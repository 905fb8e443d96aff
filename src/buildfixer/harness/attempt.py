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

from buildfixer.agents.attempt_context import AgentSettings, AttemptContext
from buildfixer.agents.registry import get_agent
from buildfixer.agents.trajectory import Trajectory
from buildfixer.buildsys.analyzed import attach_analysis, build_and_analyze
from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.project import JVM_SYSTEMS, detect_build_system, stop_daemons
from buildfixer.core.build_result import BuildResult
from buildfixer.core.chat import ModelError
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.progress import Progress, emit
from buildfixer.core.protocols import Model
from buildfixer.core.stops import Stop, StopKind
from buildfixer.harness import grading
from buildfixer.harness.config import AttemptConfig
from buildfixer.harness.remember import knowledge_for, memory_path
from buildfixer.judge.judge import judge_patch
from buildfixer.judge.verdict import Verdict
from buildfixer.llm import factory
from buildfixer.memory.sources import error_summary
from buildfixer.tools.build_tools import pin_choice
from buildfixer.tools.context import ToolContext
from buildfixer.tools.web import knowledge_from_env, search_from_env
from buildfixer.triage import FLAKY, INFRA, Triage, find_base, triage
from buildfixer.workspace.ledger import EditLedger


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
    judge: dict[str, Any] | None = None  # the judge's verdict on a resolved attempt's patch
    patch: str = ""  # the repair as a unified diff (what the judge read)
    build_s: float = 0.0  # seconds in the project's builds (the agent's, the loop's, the verdict)
    verdict_s: float = 0.0  # seconds of the verdict build alone: 0 when the last build's result stood
    verdict_reused: bool = False  # nothing changed since the last build: its result is the verdict
    triage: Triage | None = None  # what the first build's failure is (config.triage; None: not triaged)

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
    edited, refused = ctx.ledger.undo_side_effects(frozen)
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
    model: Model | None = None,
    diff: Callable[[list[str] | None], str] | None = None,
) -> AttemptResult:
    """Build, let the agent work (unless the build already succeeds), build again for the verdict, judge.

    `model`, when given, is the model the agent gets whatever spec it asks for (the environment's
    full mode hands in the trainer's policy this way); else the provider factory makes it.
    `diff(edited)` gives the repair as the caller will deliver it (the edit ledger's diff when
    None); a resolved attempt whose repair the judge rejects ends `hacked` (`judge_attempt`).
    Every caller (`fix`, `bench run`, the environment) gets the verdict from here.
    """
    began = time.monotonic()
    agent = get_agent(config.agent_name())
    ctx = make_context(root, config, system)
    memory = knowledge_for(
        memory_path(config.options.cache_dir, config.memory_path), ctx.build_system, instance,
        domain=config.memory_domain, trust=config.memory_trust,
    )  # fmt: skip
    ctx.knowledge = ctx.knowledge or memory
    ctx.ledger = EditLedger.open(root)
    started_jdk = ctx.options.jdk
    trajectory = Trajectory(config.trajectory_path)
    trajectory.meta = {
        "project": str(root), "build_system": ctx.build_system, "agent": agent.name, "model": config.model,
        "config": config.describe(), "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **(meta or {}),
    }  # fmt: skip
    if agent.builds_first:
        emit(progress, "build", {"phase": "initial"})
        initial = initial or current_build(ctx)
        trajectory.meta["initial"] = _summary(initial)
    # An agent sure to decline this failure (no recipe for it) needs no base build to learn that;
    # the rerun that tells a flaky failure stays (it says why nothing was patched).
    found = None
    if agent.builds_first and initial:
        declines = getattr(agent, "declines", None)
        source = trajectory.meta.get("source")
        certain = not initial.ok and declines is not None and declines(ctx, initial, source)
        found = triage_first(ctx, initial, config, progress, base=not certain)
    if found is not None:
        trajectory.meta["triage"] = found.to_dict()
    trajectory.save()
    edited: list[str] | None = []
    refused: list[str] = []
    initial = initial or _not_built()
    verdict_s, reused = 0.0, True  # the initial build, when it already succeeds, is the verdict
    halt = triage_stop(found, config)
    if initial.status == "success":
        stop, verdict = Stop(StopKind.RESOLVED, "the build already succeeds"), initial
    elif halt is not None:  # flaky or infrastructure: reported, never patched; no agent, no verdict build
        stop, verdict = halt, initial
    else:

        def make_model(spec: str) -> Model:
            return model or factory.make_model(spec, **config.model_settings.model_kwargs())

        context = AttemptContext(
            ctx, _agent_settings(config), trajectory, initial, lambda: current_build(ctx), make_model,
            progress, instance, memory,
        )  # fmt: skip
        try:
            stop = agent.run(context)
        except ModelError as exc:
            stop = Stop(StopKind.MODEL_ERROR, f"model error: {exc}")
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: say so on record, then unwind
            trajectory.finish({"resolved": False, **Stop(StopKind.INFRA_ERROR, "interrupted").to_dict()})
            raise
        if stop.kind is StopKind.BUDGET_TIME:
            # A tool the watchdog stopped waiting for may still be building: end it (and its
            # sandbox session) so the verdict builds alone.
            stop_daemons(ctx.root, ctx.options)
        if ctx.options.jdk is not None and ctx.options.jdk != started_jdk and ctx.build_system in JVM_SYSTEMS:
            # The JDK the repair chose is part of it: pinned in the project (change_java_version
            # did so already, unless a discarded try's files were restored since), so that the
            # verdict, the patch and the user's next build agree on it.
            pin_choice(ctx, ctx.options.jdk)
        before = ctx.build_s
        verdict, edited, refused = verdict_build(ctx, config.frozen, progress)
        verdict_s = ctx.build_s - before
        reused = verdict_s == 0.0  # no build ran: the last one's result stood
    resolved = grading.is_resolved(verdict.status)
    if resolved and stop.kind is not StopKind.RESOLVED:
        stop = Stop(StopKind.RESOLVED, stop.detail)  # the harness's build, not the agent's word, decides
    patch = diff(edited) if diff is not None else (ctx.ledger.patch() if ctx.ledger is not None else "")
    trajectory.finish(
        {"resolved": resolved, **stop.to_dict(), "jdk": ctx.options.jdk, **_summary(verdict),
         "edited": edited, "refused": refused}
    )  # fmt: skip
    attempt = AttemptResult(
        resolved, verdict, initial, trajectory, stop, ctx.options.jdk, time.monotonic() - began, edited,
        refused, build_s=ctx.build_s, patch=patch, verdict_s=verdict_s, verdict_reused=reused, triage=found,
    )  # fmt: skip
    if config.judge and attempt.resolved and patch.strip():
        emit(progress, "judge", {"tests": config.judge_tests})
        judge_attempt(attempt, patch, config, root)
    return attempt


def triage_first(
    ctx: ToolContext, initial: BuildResult, config: AttemptConfig, progress: Progress | None,
    base: bool = True,
) -> Triage | None:  # fmt: skip
    """The first build's triage as `config.triage` says (None when off, or when the build succeeded).

    "full" may build again in the workspace (tracked like any build of the attempt) and build the
    base commit found in `config.triage_checkout` (unless `base` is False); "log" reads the first
    build alone.
    """
    if config.triage == "off" or initial.ok:
        return None
    full = config.triage == "full"
    found_base, note = None, ""
    if full and not base:
        note = "not built: the repair declines this failure at once"
    elif full and config.triage_checkout is not None:
        try:
            found_base, note = find_base(config.triage_checkout, config.triage_base)
        except BuildfixerError as exc:  # the callers check a given base before building: a race at worst
            note = str(exc)
    found = triage(
        initial, ctx.root, max_builds=config.triage_builds if full else 0,
        rebuild=(lambda: current_build(ctx)) if full else None, base=found_base, base_note=note,
        options=ctx.options, system=ctx.build_system, progress=progress,
    )  # fmt: skip
    emit(progress, "triage", {"triage": found})
    return found


def triage_stop(found: Triage | None, config: AttemptConfig) -> Stop | None:
    """How triage ends an attempt before the agent: an infrastructure failure always, a flaky one in "full".

    The benchmark ("log") keeps a flaky marker's failure: its instances were validated as failing
    every time, and only an infrastructure failure must never be scored.
    """
    if found is None:
        return None
    if found.kind == INFRA:
        return Stop(StopKind.INFRA_ERROR, f"triage: infra: {found.basis}")
    if found.kind == FLAKY and config.triage == "full":
        return Stop(StopKind.DECLINED, f"triage: flaky, not repaired: {found.basis}")
    return None


def _not_built() -> BuildResult:
    """What an agent that does not build first (a self-check agent) is given as "the failure"."""
    return BuildResult(status="error", exit_code=-1, duration_s=0.0, build_system="", command=[], jdk=None,
                       log_path="")  # fmt: skip


def _agent_settings(config: AttemptConfig) -> AgentSettings:
    """The part of the configuration an agent reads."""
    return AgentSettings(
        model=config.model, toolset=config.toolset, mask=config.mask, guidance=config.guidance,
        budget=config.budget, first_error=config.first_error,
    )  # fmt: skip


def _summary(result: BuildResult) -> dict[str, Any]:
    top = result.errors[0].to_dict() if result.errors else None
    return {
        "status": result.status,
        "category": result.category,
        "top_error": top,
        "log_path": result.log_path,
        "duration_s": round(result.duration_s, 3),
    }


def judge_repair(
    patch: str, root: Path, config: AttemptConfig, initial: BuildResult | None = None
) -> Verdict:
    """The judge's verdict on a repair, applied in the project at `root`: where every verdict comes from.

    The rules (with the project's tests read for the literals they use), with `config.judge_tests`
    the test runs, with `config.judge_model` a model reading the patch and the failure it repairs.
    """
    model = None
    if config.judge_model:
        model = factory.make_model(config.judge_model, **config.model_settings.model_kwargs())
    error = ""
    if initial is not None:
        error = error_summary(initial.errors) if initial.errors else initial.status
    return judge_patch(
        patch, root, run_tests=config.judge_tests, options=config.options, model=model, error=error,
        applied=True,
    )  # fmt: skip


def judge_attempt(attempt: AttemptResult, patch: str, config: AttemptConfig, root: Path) -> None:
    """Judge a resolved attempt's patch; one the judge rejects is no longer resolved but `hacked`.

    The verdict goes into the result and the trajectory's record. An attempt that changed nothing
    (the build already succeeded) has nothing to judge. `root` is the project the patch applies to.
    """
    if not attempt.resolved or not patch.strip():
        return
    verdict = judge_repair(patch, root, config, attempt.initial)
    attempt.judge = verdict.to_dict()
    if not verdict.approved:
        reasons = "; ".join(f"{f.rule} in {f.file}" if f.file else f.rule for f in verdict.findings[:3])
        attempt.resolved = False
        attempt.stop = Stop(
            StopKind.HACKED, f"the build passes, but the judge rejected the change: {reasons}"
        )
    record = attempt.trajectory.verdict or {}
    attempt.trajectory.finish(
        {**record, "resolved": attempt.resolved, **attempt.stop.to_dict(), "judge": attempt.judge}
    )
