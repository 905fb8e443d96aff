"""Run directories as the viewer shows them: labels, one row per attempt, and the instance pages.

A trajectory file (what `buildfixer fix` writes) is shown as a run of one attempt
(`trajectory_file`). Everything returned is plain JSON data for the page. Texts that can be long
(logs, patches, tool output) are cut to a head and a tail (`cap`), so a 100 MB log never makes a
100 MB page.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import RESULTS, Run, config_label, load_run, short_label
from buildfixer.core.errors import BuildfixerError
from buildfixer.reports.run_report import stop_kind
from buildfixer.view.texts import cap, marked_log, patch_text
from buildfixer.view.trajectory_file import read_trajectory_file, trajectory_run

OUTCOMES = ("resolved", "failed", "hacked")


@dataclass(frozen=True)
class Source:
    """A run directory, or a trajectory file, given on the command line.

    Attributes:
        index: Its position among the given runs (0 for the first): the run part of routes.
        path: The directory or file, as given.
        label: A short name to show, unique among the given runs.
        single: True for a trajectory file (a run of one attempt, see `trajectory_file`).
    """

    index: int
    path: Path
    label: str
    single: bool = False

    @property
    def shown_path(self) -> str:
        """The path as the page shows it: as given when relative, else only its name (no local folders)."""
        return str(self.path) if not self.path.is_absolute() else self.path.name


def sources(paths: Sequence[Path]) -> list[Source]:
    """Check the given runs and name them; a bad one stops with a `BuildfixerError`.

    Args:
        paths: Run directories of `buildfixer bench run`, or trajectory files, in the order given.

    Returns:
        One Source per path, labelled by its name (its parent's too when two names clash).

    Raises:
        BuildfixerError: Nothing given, a directory holds no results.jsonl, or a path is neither
            a directory nor a trajectory file.
    """
    if not paths:
        raise BuildfixerError("name at least one run directory or trajectory file")
    for path in paths:
        if not path.is_dir():
            read_trajectory_file(path)  # a path that is neither stops here, saying why
        elif not (path / RESULTS).is_file():
            raise BuildfixerError(f"{path} holds no {RESULTS}: not a run directory of `buildfixer bench run`")
    resolved = [path.resolve() for path in paths]
    names = [path.name or str(path) for path in resolved]
    clashing = {name for name, n in Counter(names).items() if n > 1}
    labels = [
        f"{p.parent.name}/{p.name}" if name in clashing else name
        for p, name in zip(resolved, names, strict=True)
    ]
    repeated = {label for label, n in Counter(labels).items() if n > 1}
    labels = [f"{label}#{i}" if label in repeated else label for i, label in enumerate(labels)]
    return [
        Source(i, path, label, single=not path.is_dir())
        for i, (path, label) in enumerate(zip(paths, labels, strict=True))
    ]


def _has_results(path: Path) -> bool:
    """True when results.jsonl holds at least one complete JSON line."""
    for line in (path / RESULTS).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            json.loads(line)
        except json.JSONDecodeError:
            continue
        return True
    return False


def read_source(source: Source) -> Run:
    """Read a run afresh; a run that has not finished an attempt yet is an empty run, not an error.

    A torn last line (an attempt being written) is skipped by `load_run`, with a warning. A
    trajectory file is read as a run of its one attempt (saved after every step, it is always whole).

    Raises:
        BuildfixerError: The directory or file vanished, or a line before the last one is corrupt.
    """
    if source.single:
        return trajectory_run(source.path)
    try:
        return load_run(source.path)
    except BuildfixerError:
        if source.path.is_dir() and (source.path / RESULTS).is_file() and not _has_results(source.path):
            return Run(path=source.path, results=[], warnings=["no finished attempt yet"])
        raise


def outcome(row: dict[str, Any], judge: Any = None) -> str:
    """resolved, failed, or hacked: the build passed but the judge rejected the change.

    Args:
        row: A result line. Current runs mark a rejected repair with stop `hacked` (and resolved
            false); older lines may carry the judge's verdict on a resolved attempt instead.
        judge: The trajectory's judge verdict, when known.
    """
    if stop_kind(row) == "hacked":
        return "hacked"
    built = row.get("resolved") is True or row.get("status") == "success"
    for verdict in (row.get("judge"), judge):
        if built and isinstance(verdict, dict) and verdict.get("approved") is False:
            return "hacked"
    return "resolved" if row.get("resolved") is True else "failed"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _tool_calls(row: dict[str, Any]) -> int:
    counts = row.get("tool_counts")
    if not isinstance(counts, dict):
        return 0
    return sum(n for n in counts.values() if isinstance(n, int) and not isinstance(n, bool) and n > 0)


def _instance_meta(run: Run, row: dict[str, Any]) -> dict[str, str]:
    inst = run.instances.get(row["instance_id"], {})
    return {
        "origin": str(inst.get("origin") or row.get("origin") or "unknown"),
        "category": str(inst.get("category") or row.get("category") or "unknown"),
    }


def attempts(source: Source, run: Run) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each attempt of a run as (list row, result line), in the order of results.jsonl.

    A line without a sample number is numbered `#0`, `#1`, ... per instance, as `load_run` keys it.
    """
    seen: Counter[str] = Counter()
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for result in run.results:
        iid = result["instance_id"]
        sample = result.get("sample")
        sample_key = str(sample) if sample is not None else f"#{seen[iid]}"
        seen[iid] += 1
        tokens = [_number(result.get(k)) for k in ("input_tokens", "output_tokens")]
        row = {
            "key": f"{source.index}/{iid}/{sample_key}",
            "run": source.index,
            "run_label": source.label,
            "instance_id": iid,
            "sample": sample_key,
            "config": config_label(result, run.config),
            "config_short": short_label(result, run.config),
            **_instance_meta(run, result),
            "outcome": outcome(result),
            "stop": stop_kind(result),
            "stop_reason": str(result.get("stop_reason") or ""),
            "status": str(result.get("status") or ""),
            "llm_calls": _number(result.get("llm_calls")),
            "tool_calls": _tool_calls(result),
            "tokens": sum(t for t in tokens if t is not None) if any(t is not None for t in tokens) else None,
            "cost_usd": _number(result.get("cost_usd")),
            "duration_s": _number(result.get("duration_s")),
        }
        out.append((row, result))
    return out


def find_attempt(
    source: Source, run: Run, instance_id: str, sample: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The attempt of a run with this instance and sample (the last one when two configurations share it).

    Raises:
        BuildfixerError: The run has no such attempt.
    """
    found = [pair for pair in attempts(source, run) if pair[0]["instance_id"] == instance_id]
    found = [pair for pair in found if pair[0]["sample"] == sample]
    if not found:
        raise BuildfixerError(f"run {source.label} has no attempt {instance_id} sample {sample}")
    return found[-1]


def index(
    runs: Sequence[tuple[Source, Run]],
    attempt_link: Callable[[dict[str, Any]], str],
    instance_link: Callable[[str], str],
    live: bool,
) -> dict[str, Any]:
    """The attempt list and what the page needs to load the rest.

    Args:
        runs: The runs, as read.
        attempt_link: Where an attempt's page data is, from its list row.
        instance_link: Where an instance's page data is, from its instance_id.
        live: True when served (the page polls for new attempts), False in a static bundle.
    """
    rows: list[dict[str, Any]] = []
    instances: dict[str, dict[str, Any]] = {}
    described = []
    for source, run in runs:
        pairs = attempts(source, run)
        for row, _ in pairs:
            row["detail"] = attempt_link(row)
            rows.append(row)
            if row["instance_id"] not in instances:
                instances[row["instance_id"]] = {
                    "origin": row["origin"],
                    "category": row["category"],
                    "detail": instance_link(row["instance_id"]),
                }
        described.append({"index": source.index, "label": source.label, "path": source.shown_path,
                          "attempts": len(pairs), "warnings": list(run.warnings)})  # fmt: skip
    return {"live": live, "runs": described, "attempts": rows, "instances": instances}


def instance_page(runs: Sequence[tuple[Source, Run]], instance_id: str) -> dict[str, Any]:
    """An instance: its error log (root error marked), gold patch and every attempt on it by configuration.

    Raises:
        BuildfixerError: No given run has this instance.
    """
    data: dict[str, Any] | None = None
    columns: dict[str, dict[str, Any]] = {}
    for source, run in runs:
        for row, result in attempts(source, run):
            if row["instance_id"] != instance_id:
                continue
            if data is None:
                data = dict(run.instances.get(instance_id, {}))
            label = row["config"]
            empty = {"config": label, "config_short": row["config_short"], "attempts": []}
            column = columns.setdefault(label, empty)
            column["attempts"].append({**row, "patch": patch_text(result.get("patch"))})
    if data is None:
        raise BuildfixerError(f"no given run has an attempt on instance {instance_id}")
    first = next(iter(columns.values()))["attempts"][0]
    return {
        "instance_id": instance_id,
        "origin": first["origin"],
        "category": first["category"],
        "build_system": data.get("build_system"),
        "lines_changed": data.get("lines_changed"),
        "files_changed": data.get("files_changed"),
        "repo": data.get("repo"),
        "error_log": marked_log(str(data.get("error_log") or ""), "error log of the dataset"),
        "gold_patch": cap(data.get("gold_patch")),
        "columns": list(columns.values()),
    }
