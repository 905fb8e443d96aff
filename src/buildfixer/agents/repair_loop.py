"""The industrial repair loop (the second study's pipeline): one error at a time, fixes from memory, judged.

1. The top error of the current build is selected; the fix memory's selector ranks past fixes
   of similar errors.
2. A try: a remembered patch that applies to the workspace as it is is replayed first (a memory
   hit costs one build and no model call); otherwise, or when the replay does not fix the error,
   the policy repairs with the candidate in hand: a model with the `industrial` toolset and a
   fresh context, or the recipes when the model is "recipes". Only entries of the trust domains
   the attempt allows are candidates (by default this repository's and the user's: memory.trust).
3. The workspace is built and, when it passes, judged. Passed and approved: done. A *distinct*
   error: the state is kept as the new starting point and the new error is handled with fresh
   candidates and a fresh context. The *same* error, a rejected change, or a *regression* (the
   try broke a file it changed: a build file that no longer parses, an error at a line it wrote):
   the try's changes are discarded and the next candidate is tried, at most `MAX_TRIES` per
   error; then the next error of the build that was not given up yet. `outcome` decides.
4. Every try (its candidate, what the policy did, why it ended) is kept in the trajectory's
   `pipeline` record; the budget (calls, tokens, cost, wall time) bounds the whole loop.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.damage import regression_since
from buildfixer.agents.prompts import PIPELINE_SYSTEM, pipeline_message
from buildfixer.agents.recipes import RECIPES
from buildfixer.agents.recipes.agent import RecipesAgent
from buildfixer.agents.tool_loop import ToolLoop
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import Stop, StopKind
from buildfixer.judge.judge import judge_patch
from buildfixer.logs.rank import similar
from buildfixer.memory.store import Entry
from buildfixer.workspace.workspace import apply_patch

MAX_TRIES = 3  # per error (the study's limit)
MAX_ERRORS = 6  # distinct errors one loop takes on before it gives up
_PATCH_CHARS = 6_000
_BUDGET_KINDS = {StopKind.BUDGET_CALLS, StopKind.BUDGET_TOKENS, StopKind.BUDGET_COST, StopKind.BUDGET_TIME}


@dataclass
class Try:
    """One try at an error: the candidate offered, what ran, how it ended."""

    number: int
    candidate: int | None = None
    replayed: bool = False
    policy: str = ""
    policy_stop: str = ""
    outcome: str = ""  # resolved, distinct, similar, regression, rejected, budget
    detail: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The record form."""
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass
class ErrorRecord:
    """One selected error, its candidates and tries."""

    error: BuildError
    candidates: list[Entry] = field(default_factory=list)
    tries: list[Try] = field(default_factory=list)
    ended: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The record form."""
        return {
            "error": self.error.headline(), "category": self.error.category,
            "candidates": [c.id for c in self.candidates], "tries": [t.to_dict() for t in self.tries],
            "ended": self.ended,
        }  # fmt: skip


class PipelineAgent:
    """The repair loop: top error, memory candidates, a policy, build, judge, retry rules."""

    name = "pipeline"
    uses_model = True
    builds_first = True
    accepts_recipes = True  # "--model recipes" makes the recipes the loop's policy, not the agent

    def run(self, context: AttemptContext) -> Stop:
        """Run the loop from the attempt's failure."""
        return _Loop(context).run()


class _Loop:
    def __init__(self, context: AttemptContext) -> None:
        self.context = context
        self.ledger = context.ctx.ledger
        self.records: list[ErrorRecord] = []
        self.started = time.monotonic()
        self.model = None if context.settings.model == RECIPES else context.model()
        self.checkpoint: str | None = None  # the state each try of the current error starts from

    # ---- the loop ---------------------------------------------------------------------------

    def run(self) -> Stop:
        current = self.context.initial
        given_up: list[BuildError] = []
        self._checkpoint()
        while len(self.records) < MAX_ERRORS:
            error = next((e for e in current.errors if not any(similar(e, g) for g in given_up)), None)
            if error is None:
                why = (
                    "every error of the build was tried without a fix" if given_up else "no error in the log"
                )
                return self._end(Stop(StopKind.DECLINED, why))
            record = ErrorRecord(error, self._candidates(error, current))
            self.records.append(record)
            ending = self._work_on(record, current)
            self._save()
            if isinstance(ending, Stop):
                return self._end(ending)
            if ending is None:
                given_up.append(error)
            else:
                current = ending
        return self._end(Stop(StopKind.DECLINED, f"{MAX_ERRORS} errors handled without a passing build"))

    def _work_on(self, record: ErrorRecord, current: BuildResult) -> Stop | BuildResult | None:
        """Up to MAX_TRIES tries at one error.

        Returns:
            A Stop when the build passes (approved) or the budget ran out; the next build when a
            distinct error followed (its state kept); None when the error is given up.
        """
        for number in range(1, MAX_TRIES + 1):
            if number > 1 and self.model is None and number > len(record.candidates):
                # The recipes are deterministic: without another remembered fix to replay, a
                # further try would repeat the last one.
                record.ended = f"not fixed in {number - 1} tries (nothing new to try): the next error"
                return None
            attempt = Try(number)
            record.tries.append(attempt)
            began = time.monotonic()
            after, stop = self._try(record, attempt, current)
            attempt.seconds = time.monotonic() - began
            if stop is not None:  # out of budget: the harness's verdict tells what came of it
                attempt.outcome, record.ended = "budget", stop.detail
                return stop
            if after.status == "success":
                rejected = self._judge()
                if rejected is None:
                    attempt.outcome = record.ended = "resolved"
                    self._used(attempt, True)
                    where = f"try {number} of error {len(self.records)}"
                    return Stop(StopKind.MODEL_FINISHED, f"the build passes after {where}")
                attempt.outcome, attempt.detail = "rejected", rejected
            else:
                attempt.outcome, attempt.detail = self._outcome(record, current, after)
                if attempt.outcome == "distinct":
                    record.ended = "a distinct error followed: kept, and taken as the next failure"
                    self._used(attempt, True)
                    self._checkpoint()
                    return after
            self._used(attempt, False)
            self._restore()  # discard the try; the next one takes the next candidate
            self._save()
        record.ended = f"not fixed in {MAX_TRIES} tries: the next error"
        return None

    def _try(
        self, record: ErrorRecord, attempt: Try, current: BuildResult
    ) -> tuple[BuildResult, Stop | None]:
        """Replay or repair once; the build after it, or a budget stop."""
        index = attempt.number - 1
        candidate = record.candidates[index] if index < len(record.candidates) else None
        attempt.candidate = candidate.id if candidate else None
        self.context.emit(
            "pipeline", {"error": len(self.records), "try": attempt.number, "candidate": attempt.candidate}
        )
        replayable = candidate is not None and candidate.kind != "note" and self._may_replay(candidate)
        if candidate is not None and replayable and self._replay(candidate):
            attempt.replayed = True
            after = self._build()
            if after.status == "success" or self._outcome(record, current, after)[0] == "distinct":
                attempt.policy = "replay"
                return after, None
            self._restore()  # the replay did not fix it: the policy tries, with the candidate in hand
        if (stop := self.context.settings.budget.exceeded(self.context.trajectory, self.started)) is not None:
            return current, stop
        stop = self._policy(record, attempt, current, candidate)
        if stop is not None and stop.kind in _BUDGET_KINDS:
            return current, stop
        return self._build(), None

    def _policy(
        self, record: ErrorRecord, attempt: Try, current: BuildResult, candidate: Entry | None
    ) -> Stop | None:
        """The model (fresh context) or the recipes repair the error; how they stopped."""
        context = self.context
        if self.model is None:
            attempt.policy = RECIPES
            stop = RecipesAgent().run(replace(context, initial=current))
        else:
            attempt.policy = "model"
            context.trajectory.messages.clear()  # a fresh context per try; the steps keep the record
            budget = context.settings.budget
            if budget.max_wall_s is not None:
                left = max(budget.max_wall_s - (time.monotonic() - self.started), 0.001)
                budget = replace(budget, max_wall_s=left)
            loop = ToolLoop(self.model, context.toolset(), budget, progress=context.progress)
            first = pipeline_message(
                self._repo(), record.error.headline(), context.error_view(current),
                offer(candidate, context.memory.domain if context.memory is not None else None),
            )  # fmt: skip
            stop = loop.run(context.trajectory, PIPELINE_SYSTEM, first).stop
        attempt.policy_stop = stop.detail
        return stop

    # ---- what a try came to -------------------------------------------------------------------

    def _outcome(self, record: ErrorRecord, before: BuildResult, after: BuildResult) -> tuple[str, str]:
        """A failed build after a try, against the error the try was for: the outcome and its detail.

        "distinct" (progress: kept) when its errors are new and the try broke nothing it changed;
        "regression" (why, discarded) when the try broke a file it changed (`damage.regression`);
        "similar" (discarded) when the error is still there.
        """
        why = regression_since(self.ledger, self.checkpoint, before, after)
        if why is not None:
            return "regression", why[:300]
        if after.errors and not any(similar(record.error, e) for e in after.errors[:5]):
            return "distinct", after.errors[0].headline()[:300]
        return "similar", after.errors[0].headline()[:300] if after.errors else after.status

    # ---- parts --------------------------------------------------------------------------------

    def _candidates(self, error: BuildError, result: BuildResult) -> list[Entry]:
        memory = self.context.memory
        if memory is None:
            return []
        others = "\n".join(e.headline() for e in result.errors[:3] if e is not error)
        try:
            return memory.candidates(error.headline(), error.category, limit=MAX_TRIES, context=others)
        except BuildfixerError:  # an unreadable memory is no reason to stop repairing
            return []

    def _used(self, attempt: Try, succeeded: bool) -> None:
        if self.context.memory is not None and attempt.candidate is not None:
            with contextlib.suppress(BuildfixerError):  # a count lost is no reason to stop
                self.context.memory.record_use(attempt.candidate, succeeded)

    def _may_replay(self, candidate: Entry) -> bool:
        """Whether the candidate's trust domain is one the attempt takes code from (memory.trust)."""
        return self.context.memory is not None and self.context.memory.allows(candidate)

    def _replay(self, candidate: Entry) -> bool:
        """Apply a remembered patch when it applies as it is; False (nothing changed) otherwise."""
        try:
            return bool(apply_patch(self.context.ctx.root, candidate.patch))
        except BuildfixerError:
            return False

    def _build(self) -> BuildResult:
        """The workspace's build now; the last one when nothing changed since (the recipes just built)."""
        ledger = self.ledger
        reused = ledger.reusable_result(repr(self.context.ctx.options)) if ledger is not None else None
        if reused is not None and (reused.status == "success" or reused.errors):
            return reused
        return self.context.build()

    def _judge(self) -> str | None:
        """Why the judge rejects the repair so far, or None when it approves (or cannot tell)."""
        if self.ledger is None:
            return None
        verdict = judge_patch(self.ledger.patch(), self.context.ctx.root, applied=True)
        if verdict.approved:
            return None
        return "; ".join(f"{f.rule} in {f.file}" if f.file else f.rule for f in verdict.findings[:3])

    def _checkpoint(self) -> None:
        """Keep the workspace as it is now as the start of every try to come."""
        self.checkpoint = self.ledger.checkpoint() if self.ledger is not None else None

    def _restore(self) -> None:
        """Discard what happened since the checkpoint."""
        if self.ledger is not None and self.checkpoint is not None:
            self.ledger.restore(self.checkpoint)

    def _repo(self) -> str:
        instance, meta = self.context.instance or {}, self.context.trajectory.meta
        source = instance.get("repo") or meta.get("source") or str(self.context.ctx.root)
        name = Path(str(source).rstrip("/")).name
        return re.sub(r"\.(bundle|git)$", "", name) or "the project"

    def _save(self) -> None:
        self.context.trajectory.meta["pipeline"] = {
            "errors": [r.to_dict() for r in self.records],
            "tries": sum(len(r.tries) for r in self.records),
            "seconds": round(time.monotonic() - self.started, 3),
        }
        self.context.trajectory.save()

    def _end(self, stop: Stop) -> Stop:
        self._save()
        self.context.trajectory.meta["pipeline"]["ended"] = stop.detail
        self.context.trajectory.save()
        return stop


def offer(candidate: Entry | None, domain: str | None = None) -> str | None:
    """A remembered fix as the loop's prompt shows it, its origin seen from `domain` (None: no candidate)."""
    return candidate.render(_PATCH_CHARS, domain) if candidate is not None else None
