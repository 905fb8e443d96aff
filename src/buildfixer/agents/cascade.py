"""The cascade: the tool agent with the cheapest model first, the next one only when the build still fails."""

from __future__ import annotations

from dataclasses import replace

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.tool_agent import run_tool_loop
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import Stop, StopKind
from buildfixer.workspace.git import git


class CascadeAgent:
    """Models comma-separated in the model setting, cheapest first; each starts from the original failure."""

    name = "cascade"
    uses_model = True
    builds_first = True

    def run(self, context: AttemptContext) -> Stop:
        """Try each model in turn until the workspace builds."""
        models = [m.strip() for m in context.settings.model.split(",") if m.strip()]
        stop = Stop(StopKind.MODEL_FINISHED, "no model given")
        initial_jdk = context.ctx.options.jdk
        budget = context.settings.budget
        for index, spec in enumerate(models):
            if index:
                _reset(context)  # each model starts from the original failure
                context.ctx.options.jdk = initial_jdk
                context.trajectory.messages.clear()
            # Each model gets the call budget on top of what the ones before it used.
            own = replace(budget, max_calls=budget.max_calls * (index + 1))
            context.trajectory.meta.setdefault("cascade", []).append(spec)
            stop = run_tool_loop(context, context.model(spec), own)
            if index < len(models) - 1 and context.build().status == "success":
                return Stop(stop.kind, f"{stop.detail} (solved by {spec})")
        return stop


def _reset(context: AttemptContext) -> None:
    """Undo every change in the workspace (a git working tree at its base commit).

    Through the git directory recorded before any model ran: the previous model may have
    rewritten `.git` to make git run its commands.
    """
    root, ledger = context.ctx.root, context.ctx.ledger
    if ledger is None:  # not a git worktree of ours: its `.git` may name any repository on the host
        raise BuildfixerError(
            "the workspace has no git directory recorded by buildfixer: cannot undo its changes"
        )
    git("reset", "--quiet", "--hard", ledger.base, git_dir=ledger.git_dir, work_tree=root)
    git("clean", "-qffdx", git_dir=ledger.git_dir, work_tree=root)
