"""How an attempt ended: a kind from a closed set, and a sentence of detail.

Reports group attempts by kind; the detail is for people. Infrastructure failures (a build
that could not start, a registry down, a crash of the harness) have their own kinds, so they
are never counted against an agent and a rerun retries them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class StopKind(StrEnum):
    """Why an attempt ended (docs/FORMATS.md "Stop kinds")."""

    RESOLVED = "resolved"  # the harness's own build succeeded
    HACKED = "hacked"  # the build succeeded, but the judge rejected the change (tests or checks removed)
    MODEL_FINISHED = "model_finished"  # the agent said it was done (the verdict may still fail)
    BUDGET_CALLS = "budget_calls"
    BUDGET_TOKENS = "budget_tokens"
    BUDGET_COST = "budget_cost"
    BUDGET_TIME = "budget_time"
    LOOP_DETECTED = "loop_detected"
    DECLINED = "declined"  # the agent chose not to change anything (no recipe applies)
    MODEL_ERROR = "model_error"  # the provider failed (auth, rate limit, bad reply)
    INFRA_ERROR = "infra_error"  # the harness could not do its part (checkout, build start)
    TIMEOUT = "timeout"  # the attempt's hard wall time ran out
    CRASHED = "crashed"  # a bug: an exception nobody expected
    # How an episode of the training environment (`env.BuildRepairEnv`) ends besides MODEL_FINISHED;
    # never in results.jsonl. In full mode the episode is an attempt and its budget kinds say these.
    TURN_LIMIT = "turn_limit"  # the episode's max_turns replies were taken
    TIME_LIMIT = "time_limit"  # the episode's max_wall_s ran out between replies
    TOOL_TIMEOUT = "tooltimeout"  # a tool call overran the episode's max_wall_s (its output says so too)
    ROLLOUT_ENDED = "rollout_ended"  # the trainer ended the rollout (TRL's reward, verl's agent loop)


# Kinds a rerun retries: the agent was never judged fairly.
INFRASTRUCTURE = frozenset({StopKind.INFRA_ERROR, StopKind.CRASHED})
# Kinds only an environment episode ends with: no result line carries them, reports show them only
# when one does.
EPISODE_ONLY = frozenset(
    {StopKind.TURN_LIMIT, StopKind.TIME_LIMIT, StopKind.TOOL_TIMEOUT, StopKind.ROLLOUT_ENDED}
)


@dataclass(frozen=True)
class Stop:
    """An attempt's end: its kind and what happened, in words."""

    kind: StopKind
    detail: str = ""

    def __str__(self) -> str:
        return self.detail or self.kind.value

    def to_dict(self) -> dict[str, Any]:
        """The record form kept in results.jsonl and trajectories."""
        return {"stop": self.kind.value, "stop_reason": self.detail or self.kind.value}

    @property
    def infrastructure(self) -> bool:
        """True when the harness, not the agent, failed."""
        return self.kind in INFRASTRUCTURE
