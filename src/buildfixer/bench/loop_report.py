"""What the repair loop did in a run: errors taken on, tries per error, how each try ended, memory use.

Read from the `pipeline` record the loop leaves in each attempt's trajectory (agents.pipeline);
attempts of other agents have none and are not counted.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

OUTCOMES = ("resolved", "distinct", "similar", "rejected", "budget")


def _records(run_dir: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The loop records of the rows' trajectories (unreadable or loop-less ones skipped)."""
    records = []
    for row in rows:
        path = row.get("trajectory")
        if not path:
            continue
        try:
            meta = json.loads((run_dir / path).read_text()).get("meta") or {}
        except (OSError, ValueError):
            continue
        if isinstance(meta.get("pipeline"), dict):
            records.append(meta["pipeline"])
    return records


def repair_loop(run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The loop's numbers over `rows`, or None when no attempt ran the loop.

    Returns:
        attempts, errors (taken on), tries, tries_per_error ({"1": errors with one try, ...}),
        outcomes ({outcome: tries}), offered (tries with a remembered fix offered), replayed (tries
        that replayed one), replay_resolved (replays that ended the error), resolved_at_try
        ({"n": errors resolved at their n-th try}).
    """
    records = _records(run_dir, rows)
    if not records:
        return None
    errors = [error for record in records for error in record.get("errors", [])]
    tries = [t for error in errors for t in error.get("tries", [])]
    outcomes = Counter(str(t.get("outcome") or "unfinished") for t in tries)
    replayed = [t for t in tries if t.get("replayed")]
    kinds = (*OUTCOMES, *sorted(set(outcomes) - set(OUTCOMES)))
    return {
        "attempts": len(records),
        "errors": len(errors),
        "tries": len(tries),
        "tries_per_error": _counts(len(error.get("tries", [])) for error in errors),
        "outcomes": {kind: outcomes.get(kind, 0) for kind in kinds},
        "offered": sum(1 for t in tries if t.get("candidate") is not None),
        "replayed": len(replayed),
        "replay_resolved": sum(1 for t in replayed if t.get("policy") == "replay"),
        "resolved_at_try": _counts(t["number"] for t in tries if t.get("outcome") == "resolved"),
    }


def _counts(values: Any) -> dict[str, int]:
    counted = Counter(int(v) for v in values)
    return {str(n): counted[n] for n in sorted(counted)}
