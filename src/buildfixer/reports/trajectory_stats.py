"""The second study's behaviour analyses, computed from a run's trajectories.

Per configuration: which tool follows which (its Figure 4), turns per trajectory for successes and
failures with a 95% interval (Figure 7), where the tokens go (system and user prompt, assistant text,
tool-call arguments and tool outputs by tool; Figures 5-6), how long builds and the verdict build
take (Figure 9), and the instances' root errors in the study's keyword taxonomy next to ours (Figure 10).

Tokens are estimated from the text (`core.chat.tokens_by_pieces`), the same way for every
configuration, so shares compare even where a provider reported no counts.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from buildfixer.bench.rundir import Run
from buildfixer.core.chat import tokens_by_pieces
from buildfixer.core.paths import file_within
from buildfixer.core.stops import StopKind
from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.keywords import CATEGORIES, keyword_category

START, END = "(start)", "(end)"
# Tools whose call runs the project's build (the study's build step).
BUILD_TOOLS = frozenset({
    "run_build", "run_gradle_command", "run_maven_command", "run_python_command", "run_npm_command",
    "validate_and_build",
})  # fmt: skip
OUTCOMES = ("success", "failure", "all")
# Attempts that ended before any verdict: no verdict build, built or reused.
_NO_VERDICT = frozenset({StopKind.TIMEOUT.value, StopKind.CRASHED.value, StopKind.INFRA_ERROR.value})


def load_trajectory(run: Run, row: dict[str, Any]) -> dict[str, Any] | None:
    """The trajectory JSON of a result line, or None when it is absent or unreadable.

    Only a regular file of the run directory is read (`file_within`): the result line is data.
    """
    name = row.get("trajectory")
    path = file_within(run.path, name) if isinstance(name, str) and name else None
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def tool_sequence(trajectory: dict[str, Any]) -> list[str]:
    """The names of the tools called, in order."""
    return [call["name"] for call in _calls(trajectory)]


def _calls(trajectory: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for step in trajectory.get("steps") or []:
        for result in step.get("tool_results") or []:
            if isinstance(result, dict) and isinstance(result.get("name"), str):
                yield result


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in value if isinstance(part, dict))
    return ""


def token_kinds(trajectory: dict[str, Any]) -> Counter[str]:
    """Estimated tokens of a trajectory by kind.

    The kinds: system_prompt, user_prompt, assistant_text, thinking, `tool_call:<tool>` (the arguments
    the model wrote) and `<tool>_response` (what the tool returned).
    """
    kinds: Counter[str] = Counter()
    for message in trajectory.get("messages") or []:
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("system", "user"):
            kinds[f"{role}_prompt"] += tokens_by_pieces(_text(message.get("content")))
    for step in trajectory.get("steps") or []:
        reply = step.get("reply") or {}
        kinds["assistant_text"] += tokens_by_pieces(_text(reply.get("content")))
        kinds["thinking"] += tokens_by_pieces(_text(reply.get("reasoning_content")))
        for call in step.get("tool_results") or []:
            name = str(call.get("name"))
            kinds[f"tool_call:{name}"] += tokens_by_pieces(str(call.get("arguments") or ""))
            kinds[f"{name}_response"] += tokens_by_pieces(str(call.get("output") or ""))
    return Counter({kind: n for kind, n in kinds.items() if n})


def _interval(values: list[float]) -> dict[str, Any]:
    """n, mean, a normal-approximation 95% interval of the mean, median and max."""
    if not values:
        return {"n": 0, "mean": None, "ci95": None, "median": None, "max": None}
    mean = math.fsum(values) / len(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
    ci = [mean - half, mean + half] if half is not None else None
    return {
        "n": len(values),
        "mean": mean,
        "ci95": ci,
        "median": statistics.median(values),
        "max": max(values),
    }


def _quantiles(values: list[float]) -> dict[str, Any]:
    """n, min, quartiles, p90, max and mean of durations (seconds)."""
    if not values:
        return {"n": 0, "min": None, "p25": None, "median": None, "p75": None, "p90": None, "max": None,
                "mean": None}  # fmt: skip
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    mean = math.fsum(ordered) / len(ordered)
    return {"n": len(ordered), "min": ordered[0], "p25": at(0.25), "median": statistics.median(ordered),
            "p75": at(0.75), "p90": at(0.9), "max": ordered[-1], "mean": mean}  # fmt: skip


def _transitions(sequences: Iterable[list[str]]) -> dict[str, Any]:
    """Next-tool shares: {tool: {next: share of that tool's successors}}, and each tool's share of calls."""
    pairs: Counter[tuple[str, str]] = Counter()
    used: Counter[str] = Counter()
    for sequence in sequences:
        used.update(sequence)
        path = [START, *sequence, END]
        pairs.update(zip(path, path[1:], strict=False))
    rows: dict[str, dict[str, float]] = {}
    for tool in [START, *sorted(used, key=lambda t: (-used[t], t))]:
        after = {b: n for (a, b), n in pairs.items() if a == tool}
        total = sum(after.values())
        if total:
            rows[tool] = {
                b: n / total for b, n in sorted(after.items(), key=lambda item: (-item[1], item[0]))
            }
    calls = sum(used.values())
    return {"next": rows, "usage_share": {tool: n / calls for tool, n in used.most_common()} if calls else {}}


def configuration_stats(run: Run, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every analysis for the attempts of one configuration.

    Returns:
        {trajectories (read), transitions, turns {success, failure}, tokens {outcome: {kind: share}},
        token_totals {outcome: tokens}, build_s, validation_s (duration quantiles), verdicts_reused
        (attempts whose verdict is a build the attempt had made already: no verdict build ran)}.

    A verdict build counts when its result line records one (`validation_s` over 0 and no
    `verdict_reused`); any other attempt that reached a verdict reused a build.
    """
    sequences: list[list[str]] = []
    turns: dict[str, list[float]] = {"success": [], "failure": []}
    tokens: dict[str, Counter[str]] = {outcome: Counter() for outcome in OUTCOMES}
    builds: list[float] = []
    validations: list[float] = []
    read = reused = 0
    for row in rows:
        outcome = "success" if row.get("resolved") else "failure"
        value = row.get("validation_s")
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 and (
            not row.get("verdict_reused")
        ):  # fmt: skip
            validations.append(float(value))
        elif row.get("stop") not in _NO_VERDICT:
            reused += 1
        trajectory = load_trajectory(run, row)
        if trajectory is None:
            continue
        read += 1
        sequences.append(tool_sequence(trajectory))
        turns[outcome].append(float(len(trajectory.get("steps") or [])))
        kinds = token_kinds(trajectory)
        tokens[outcome].update(kinds)
        tokens["all"].update(kinds)
        builds += [
            float(call.get("seconds") or 0.0) for call in _calls(trajectory) if call["name"] in BUILD_TOOLS
        ]
    shares = {}
    for outcome, counts in tokens.items():
        total = sum(counts.values())
        shares[outcome] = {kind: n / total for kind, n in counts.most_common()} if total else {}
    return {
        "trajectories": read,
        "transitions": _transitions(sequences),
        "turns": {outcome: _interval(values) for outcome, values in turns.items()},
        "tokens": shares,
        "token_totals": {outcome: sum(counts.values()) for outcome, counts in tokens.items()},
        "build_s": _quantiles(builds),
        "validation_s": _quantiles(validations),
        "verdicts_reused": reused,
    }


def keyword_taxonomy(run: Run, instance_ids: Iterable[str]) -> dict[str, Any]:
    """The instances' root errors by our category and by the study's keyword category.

    The keyword rules read the root error's message as the analyzer finds it in the instance's
    error log (the whole first error line when the analyzer finds none).

    Returns:
        {"categories": the study's categories in order, "counts": {our category: {theirs: n}},
        "totals": {theirs: n}}.
    """
    counts: dict[str, Counter[str]] = {}
    totals: Counter[str] = Counter()
    for iid in instance_ids:
        instance = run.instances.get(iid, {})
        log = str(instance.get("error_log") or "")
        ours = str(instance.get("category") or "unknown")
        errors = analyze_text(log).errors if log else []
        message = (
            errors[0].message
            if errors
            else next((ln for ln in log.splitlines() if "error" in ln.lower()), "")
        )
        theirs = keyword_category(message)
        counts.setdefault(ours, Counter())[theirs] += 1
        totals[theirs] += 1
    return {
        "categories": list(CATEGORIES),
        "counts": {ours: dict(c) for ours, c in sorted(counts.items())},
        "totals": {name: totals[name] for name in CATEGORIES if totals[name]},
    }
