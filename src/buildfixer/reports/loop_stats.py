"""What the repair loop did in a run: errors taken on, tries per error, how each try ended, memory use.

Read from the `pipeline` record the loop leaves in each attempt's trajectory (agents.repair_loop);
attempts of other agents have none and are not counted.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buildfixer.core.paths import file_within
from buildfixer.reports.table import Column, Table

OUTCOMES = ("resolved", "distinct", "similar", "rejected", "budget")


def _records(run_dir: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The loop records of the rows' trajectories (unreadable or loop-less ones skipped).

    Only regular files of the run directory are read (`file_within`): the result lines are data.
    """
    records = []
    for row in rows:
        name = row.get("trajectory")
        path = file_within(run_dir, name) if isinstance(name, str) and name else None
        if path is None:
            continue
        try:
            meta = json.loads(path.read_text()).get("meta") or {}
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


def loop_table(columns: Sequence[Column]) -> Table | None:
    """The repair loop's tries per error and how they ended (configurations that ran it)."""
    loops = [
        (label if len(per) == 1 else f"{label}: {name}", loop)
        for label, report in columns
        if (per := report.get("repair_loop"))
        for name, loop in per.items()
    ]
    if not loops:
        return None

    def row(name: str, value: Any) -> list[str]:
        return [name] + [str(value(loop)) for _, loop in loops]

    def keys(section: str) -> list[str]:
        found = dict.fromkeys(k for _, loop in loops for k in loop[section])
        return sorted(found, key=int) if section != "outcomes" else list(found)

    rows = [
        row("Attempts", lambda loop: loop["attempts"]),
        row("Errors taken on", lambda loop: loop["errors"]),
        row("Tries", lambda loop: loop["tries"]),
        *(row(f"Errors tried {n} time(s)", lambda loop, n=n: loop["tries_per_error"].get(n, 0))
          for n in keys("tries_per_error")),
        *(row(f"Tries ended {k}", lambda loop, k=k: loop["outcomes"].get(k, 0)) for k in keys("outcomes")),
        *(row(f"Errors resolved at try {n}", lambda loop, n=n: loop["resolved_at_try"].get(n, 0))
          for n in keys("resolved_at_try")),
        row("Tries offered a remembered fix", lambda loop: loop["offered"]),
        row("Remembered fixes replayed", lambda loop: loop["replayed"]),
        row("Replays that ended the error", lambda loop: loop["replay_resolved"]),
    ]  # fmt: skip
    return Table(
        title="Repair loop: tries per error",
        headers=["Item"] + [label for label, _ in loops],
        rows=rows,
        note="Each error the loop took on gets up to three tries. distinct: a new error followed (kept); "
        "similar: the same error remained (discarded); rejected: the build passed but the judge "
        "refused the change (discarded).",
    )
