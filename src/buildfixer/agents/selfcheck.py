"""Agents that check the harness, not a policy: `oracle` applies the gold patch, `none` changes nothing.

A benchmark where `oracle` does not resolve every instance, or `none` resolves any, has a broken
instance or a broken harness. Neither calls a model.
"""

from __future__ import annotations

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import Stop, StopKind
from buildfixer.workspace.workspace import apply_patch


class OracleAgent:
    """Applies the instance's gold patch."""

    name = "oracle"
    uses_model = False
    builds_first = False  # its patch does not depend on the failure

    def run(self, context: AttemptContext) -> Stop:
        """Apply the gold patch in the workspace."""
        patch = (context.instance or {}).get("gold_patch")
        if not patch:
            raise BuildfixerError("the oracle agent needs a benchmark instance with a gold_patch")
        try:
            apply_patch(context.ctx.root, patch)
        except BuildfixerError as exc:  # the instance is broken, not the harness or an agent
            return Stop(StopKind.INFRA_ERROR, f"the gold patch does not apply: {exc}")
        return Stop(StopKind.MODEL_FINISHED, "oracle agent")


class NoneAgent:
    """Changes nothing: the verdict shows whether the instance really fails."""

    name = "none"
    uses_model = False
    builds_first = False  # the verdict build is the only one needed

    def run(self, context: AttemptContext) -> Stop:
        """Do nothing."""
        return Stop(StopKind.DECLINED, "none agent")
