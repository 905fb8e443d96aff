"""Reports of a benchmark run directory, in the layouts of the study's tables.

pass@k overall, by origin and by category (Table 4), tool usage (Table 6), success rate and change size
for fixed vs failed cases (Table 8), cost of successes vs failures, difficulty tiers (Table 11), and
attempts by how they ended (stop kind). Tiers and the change-size histogram share one rule
(`harness.grading`): a tier is a whole number of histogram bins.

`build_report` returns plain JSON data (string keys, null where a number does not exist) that the
Markdown and HTML renderers and `bench compare` read. Rates are fractions in [0, 1]; renderers show %.
Instance metadata (origin, category, lines/files changed) comes from the run's copy of the dataset,
`instances.jsonl`, falling back to the fields the runner copies onto each result line.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import Run, config_label, load_run, short_label, write_atomic, write_tree_atomic
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.shareable import shareable_data
from buildfixer.core.stops import StopKind
from buildfixer.core.terminal import for_stream
from buildfixer.harness import grading
from buildfixer.reports.formats import render_csv, render_html, render_latex, render_markdown
from buildfixer.reports.loop_stats import repair_loop
from buildfixer.reports.passk import aggregate, aggregate_by, bootstrap_ci, ks_for, tally
from buildfixer.reports.trajectory_stats import configuration_stats, keyword_taxonomy

__all__ = [
    "FORMATS",
    "STOP_KINDS",
    "Run",
    "build_report",
    "config_label",
    "load_run",
    "render_html",
    "render",
    "render_markdown",
    "report_command",
    "stop_kind",
    "tier_of",
    "write_atomic",
    "write_report",
]

FORMATS = ("md", "json", "html", "csv", "latex")
FILES = {
    "md": "report.md",
    "json": "report.json",
    "html": "report.html",
    "csv": "report-csv",
    "latex": "report.tex",
}
UNKNOWN = "unknown"
USAGE_METRICS = ("llm_calls", "input_tokens", "output_tokens", "cost_usd", "duration_s")
STOP_KINDS: tuple[str, ...] = tuple(kind.value for kind in StopKind)


def _num(value: Any) -> float | None:
    """A finite number, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _clean(value: float) -> float | None:
    """NaN (a metric that does not exist) as None, the way JSON shows it."""
    return None if math.isnan(value) else value


def _by_k(values: dict[int, float]) -> dict[str, float | None]:
    return {str(k): _clean(v) for k, v in values.items()}


def _stats(values: list[float]) -> dict[str, float | int | None]:
    """n, mean, median, sample standard deviation (null below two values) and total."""
    if not values:
        return {"n": 0, "mean": None, "median": None, "sd": None, "total": 0.0}
    sd = statistics.stdev(values) if len(values) > 1 else None
    mean = math.fsum(values) / len(values)
    return {"n": len(values), "mean": mean, "median": statistics.median(values), "sd": sd,
            "total": math.fsum(values)}  # fmt: skip


def _rate(resolved: int, attempts: int) -> float | None:
    return resolved / attempts if attempts else None


def tier_of(lines_changed: float | None) -> str:
    """The Table 11 tier of a change of this many lines as shown (`Trivial` ...); unknown when not given."""
    return UNKNOWN if lines_changed is None else grading.difficulty(lines_changed).capitalize()


def stop_kind(row: dict[str, Any]) -> str:
    """How an attempt ended: its `stop` kind; `unknown` for results written before stops were recorded."""
    kind = row.get("stop")
    return kind if isinstance(kind, str) and kind else UNKNOWN


def _meta(run: Run) -> dict[str, dict[str, Any]]:
    """origin, category, lines_changed, files_changed of every instance with results."""
    meta: dict[str, dict[str, Any]] = {}
    for row in run.results:
        iid = row["instance_id"]
        if iid in meta:
            continue
        inst = run.instances.get(iid, {})
        meta[iid] = {
            "origin": str(inst.get("origin") or row.get("origin") or UNKNOWN),
            "category": str(inst.get("category") or row.get("category") or UNKNOWN),
            "lines_changed": _num(inst.get("lines_changed", row.get("lines_changed"))),
            "files_changed": _num(inst.get("files_changed", row.get("files_changed"))),
        }
    return meta


def _tool_usage(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Tool calls of a configuration: counts and each tool's share of all calls (Table 6)."""
    counts: Counter[str] = Counter()
    for row in rows:
        for tool, n in (row.get("tool_counts") or {}).items():
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                counts[str(tool)] += n
    total = sum(counts.values())
    ordered = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return {"total_calls": total, "counts": ordered,
            "share": {tool: n / total for tool, n in ordered.items()}}  # fmt: skip


def _success_and_size(results: list[dict[str, Any]], meta: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Table 8: success rate per category; lines/files changed for fixed vs failed attempts."""
    by_category: dict[str, dict[str, Any]] = {}
    for row in results:
        entry = by_category.setdefault(meta[row["instance_id"]]["category"], {"attempts": 0, "resolved": 0})
        entry["attempts"] += 1
        entry["resolved"] += int(row["resolved"])
    for entry in by_category.values():
        entry["success_rate"] = _rate(entry["resolved"], entry["attempts"])
    change: dict[str, Any] = {}
    for outcome, wanted in (("fixed", True), ("failed", False)):
        rows = [meta[row["instance_id"]] for row in results if row["resolved"] is wanted]
        change[outcome] = {"attempts": len(rows)}
        for metric in ("lines_changed", "files_changed"):
            change[outcome][metric] = _stats([x[metric] for x in rows if x[metric] is not None])
    return {"success_by_category": dict(sorted(by_category.items())), "change_size": change}


def _usage(results: list[dict[str, Any]]) -> dict[str, Any]:
    """LLM calls, tokens, cost and duration of resolved vs failed attempts (and all)."""
    groups = {
        "resolved": [row for row in results if row["resolved"]],
        "failed": [row for row in results if not row["resolved"]],
        "all": results,
    }
    usage: dict[str, Any] = {}
    for name, rows in groups.items():
        usage[name] = {"attempts": len(rows)}
        for metric in USAGE_METRICS:
            values = [_num(row.get(metric)) for row in rows]
            usage[name][metric] = _stats([v for v in values if v is not None])
    return usage


def _pass_section(
    counts: dict[str, tuple[int, int]], meta: dict[str, dict[str, Any]], ks: list[int]
) -> dict[str, Any]:
    """pass@k overall, by origin and by category (Table 4)."""
    origin_of = {iid: meta[iid]["origin"] for iid in counts}
    category_of = {iid: meta[iid]["category"] for iid in counts}
    return {
        "overall": _by_k(aggregate(counts, ks)),
        "by_origin": {g: _by_k(v) for g, v in sorted(aggregate_by(counts, origin_of, ks).items())},
        "by_category": {g: _by_k(v) for g, v in sorted(aggregate_by(counts, category_of, ks).items())},
    }


def _tiers(results: list[dict[str, Any]], meta: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 11: instances per difficulty tier, with attempts and resolve rate."""
    bounds = {name.capitalize(): grading.tier_range(name) for name in grading.TIERS} | {UNKNOWN: "?"}
    instances = Counter(tier_of(values["lines_changed"]) for values in meta.values())
    attempts: Counter[str] = Counter()
    resolved: Counter[str] = Counter()
    for row in results:
        tier = tier_of(meta[row["instance_id"]]["lines_changed"])
        attempts[tier] += 1
        resolved[tier] += int(row["resolved"])
    return [
        {
            "tier": name,
            "lines": lines,
            "instances": instances[name],
            "share": instances[name] / len(meta) if meta else None,
            "attempts": attempts[name],
            "resolved": resolved[name],
            "resolve_rate": _rate(resolved[name], attempts[name]),
        }
        for name, lines in bounds.items()
        if name != UNKNOWN or instances[name]
    ]


def _histogram(counts: dict[str, tuple[int, int]], meta: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Instances per log-spaced bin of lines changed, split by resolved in at least one attempt.

    Bin i holds the sizes in (edges[i], edges[i+1]] (the first also those below), the rule of the
    difficulty tiers, whose limits are bin edges; `labels` name the whole numbers of lines of each.
    """
    sizes = [(meta[iid]["lines_changed"], c > 0) for iid, (_, c) in counts.items()]
    sizes = [(v, ok) for v, ok in sizes if v is not None]
    edges = grading.histogram_edges(max((v for v, _ in sizes), default=1.0))
    resolved, unresolved = [0] * (len(edges) - 1), [0] * (len(edges) - 1)
    for value, ok in sizes:
        (resolved if ok else unresolved)[grading.size_bin(value, edges[1:-1])] += 1
    labels = [grading.bin_range(edges, i) for i in range(len(edges) - 1)]
    return {"edges": edges, "labels": labels, "resolved": resolved, "unresolved": unresolved}


def _by_stop(by_config: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, int]]:
    """Attempts per stop kind, per configuration: every kind (0 included), then any other seen."""
    table: dict[str, dict[str, int]] = {}
    for label, rows in by_config.items():
        counts = Counter(stop_kind(row) for row in rows)
        extra = sorted(set(counts) - set(STOP_KINDS) - {UNKNOWN})
        table[label] = {kind: counts[kind] for kind in STOP_KINDS}
        table[label] |= {kind: counts[kind] for kind in [*extra, UNKNOWN] if counts[kind]}
    return table


def _display_labels(by_config: dict[str, list[dict[str, Any]]], run: Run) -> dict[str, str]:
    """A short label per configuration (model without provider or path); the full one where two collide."""
    short = {full: short_label(rows[0], run.config) for full, rows in by_config.items()}
    clashes = {label for label, n in Counter(short.values()).items() if n > 1}
    return {full: full if label in clashes else label for full, label in short.items()}


def _per_instance(
    results: list[dict[str, Any]], meta: dict[str, dict[str, Any]], labels: dict[str, str], run: Run
) -> list[dict[str, Any]]:
    """One row per instance: its metadata and, per configuration, attempts, resolved and stop kinds."""
    rows: dict[str, dict[str, Any]] = {}
    for row in results:
        iid = row["instance_id"]
        tier = tier_of(meta[iid]["lines_changed"])
        entry = rows.setdefault(iid, {"instance_id": iid, **meta[iid], "tier": tier, "configurations": {}})
        label = labels[config_label(row, run.config)]
        cell = entry["configurations"].setdefault(
            label, {"attempts": 0, "resolved": 0, "stops": [], "samples": []}
        )
        cell["attempts"] += 1
        cell["resolved"] += int(row["resolved"])
        cell["stops"].append(stop_kind(row))
        cell["samples"].append(row.get("sample"))
    return [rows[iid] for iid in sorted(rows)]


def build_report(run: Run, label: str | None = None) -> dict[str, Any]:
    """Every section of the report of one run, as JSON-ready data.

    Args:
        run: A run from `load_run`.
        label: What tables call the run (default: its configurations' short labels).

    Returns:
        A dict with at least pass_at_k {overall, by_origin, by_category} ({k: rate or null}), n_instances
        and samples, plus configurations, tool_usage, success_by_category, change_size, usage,
        difficulty_tiers, change_size_histogram, status_counts, by_stop ({configuration: {stop kind:
        attempts}}), repair_loop ({configuration: reports.loop_stats.repair_loop}, for the
        configurations that ran the repair loop), instances (per-instance rows), analyses
        ({configuration: reports.trajectory_stats.configuration_stats}), keyword_taxonomy, label and
        warnings. Configurations carry a short `label`, the full `spec` and `pass_at_k_ci` (95%
        bootstrap intervals of the overall pass@k, {k: [low, high] or null}). A report is made to be
        shared: the machine's paths in it (the run directory, a model spec naming a local file) are
        relative to the current directory or placeholders (`core.shareable`).
    """
    results, meta = run.results, _meta(run)
    warnings = list(run.warnings)
    counts = tally((row["instance_id"], row["resolved"]) for row in results)
    observed = max(n for n, _ in counts.values())
    configured = run.config.get("samples")
    samples = max(observed, configured) if isinstance(configured, int) and configured > 0 else observed
    ks = ks_for(samples)
    short = sum(1 for n, _ in counts.values() if n < samples)
    if short:
        warnings.append(f"{short} instance(s) have fewer than {samples} attempts: pass@k is null where k > n")
    missing = sorted(run.instances.keys() - counts.keys())
    if missing:
        warnings.append(f"{len(missing)} dataset instance(s) have no attempt yet and are left out")
    by_config: dict[str, list[dict[str, Any]]] = {}
    for row in results:
        by_config.setdefault(config_label(row, run.config), []).append(row)
    if len(by_config) > 1:
        warnings.append(f"{len(by_config)} configurations in one directory: the overall numbers pool them")
    labels = _display_labels(by_config, run)
    configurations = []
    for spec, rows in by_config.items():
        config_counts = tally((row["instance_id"], row["resolved"]) for row in rows)
        first = rows[0]
        ci = bootstrap_ci(config_counts, ks)
        entry: dict[str, Any] = {"label": labels[spec], "spec": spec}
        entry |= {key: first.get(key) or run.config.get(key) for key in ("agent", "toolset", "model")}
        entry |= {
            "n_instances": len(config_counts),
            "attempts": len(rows),
            "resolved": sum(int(row["resolved"]) for row in rows),
            "pass_at_k": _pass_section(config_counts, meta, ks),
            "pass_at_k_ci": {str(k): list(v) if v else None for k, v in ci.items()},
        }
        configurations.append(entry)
    by_label = {labels[spec]: rows for spec, rows in by_config.items()}
    status_counts = Counter(str(row.get("status") or UNKNOWN) for row in results)
    report = {
        "run_dir": str(run.path),
        "n_instances": len(counts),
        "n_dataset_instances": len(run.instances.keys() | counts.keys()),
        "missing_instances": missing,
        "samples": samples,
        "ks": ks,
        "attempts": len(results),
        "resolved_attempts": sum(int(row["resolved"]) for row in results),
        "status_counts": dict(status_counts.most_common()),
        "config": run.config,
        "configurations": configurations,
        "pass_at_k": _pass_section(counts, meta, ks),
        "group_sizes": {
            "by_origin": dict(sorted(Counter(m["origin"] for m in meta.values()).items())),
            "by_category": dict(sorted(Counter(m["category"] for m in meta.values()).items())),
        },
        "tool_usage": {name: _tool_usage(rows) for name, rows in by_label.items()},
        **_success_and_size(results, meta),
        "usage": _usage(results),
        "difficulty_tiers": _tiers(results, meta),
        "change_size_histogram": _histogram(counts, meta),
        "by_stop": _by_stop(by_label),
        "repair_loop": {
            name: loop for name, rows in by_label.items() if (loop := repair_loop(run.path, rows))
        },
        "instances": _per_instance(results, meta, labels, run),
        "analyses": {name: configuration_stats(run, rows) for name, rows in by_label.items()},
        "keyword_taxonomy": keyword_taxonomy(run, counts),
        "label": label,
        "warnings": warnings,
    }
    shared: dict[str, Any] = shareable_data(report)
    return shared


def render(report: dict[str, Any], fmt: str) -> str:
    """The report as Markdown, JSON (NaN as null), one self-contained HTML page or LaTeX tables."""
    if fmt == "latex":
        return render_latex(report)
    return render_as(report, fmt, render_markdown, render_html)


def render_as(
    data: dict[str, Any],
    fmt: str,
    markdown: Callable[[dict[str, Any]], str],
    html: Callable[[dict[str, Any]], str],
) -> str:
    """`data` as md, json or html (the renderers given for md and html); BuildfixerError otherwise."""
    if fmt == "json":
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    if fmt == "md":
        return markdown(data)
    if fmt == "html":
        return html(data)
    raise BuildfixerError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")


def write_report(path: Path, fmt: str = "md", label: str | None = None) -> str:
    """Build the report of a run directory and write it into the directory atomically.

    md, json, html and latex go to report.{md,json,html,tex}; csv to the folder report-csv/, one file
    per table (the folder is replaced as a whole).

    Args:
        path: The run directory.
        fmt: md, json, html, csv or latex.
        label: What tables call the run (default: its configurations' short labels).

    Returns:
        The text written (for csv: the file names, one per line); `Path(path) / FILES[fmt]` is where.

    Raises:
        BuildfixerError: Bad directory, no results, corrupt lines, or an unknown format.
    """
    if fmt not in FORMATS:
        raise BuildfixerError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    run = load_run(Path(path))
    report = build_report(run, label)
    target = run.path / FILES[fmt]
    if fmt == "csv":
        files = render_csv(report)
        write_tree_atomic(target, files)
        return "\n".join(files) + "\n"
    text = render(report, fmt)
    write_atomic(target, text)
    return text


def report_command(dir: Path, fmt: str = "md", label: str | None = None) -> int:
    """`buildfixer bench report DIR [--format md|html|json|csv|latex] [--label NAME]`.

    Writes the report into the run directory. Markdown and JSON are also printed (to read or pipe);
    for every format the path written goes to stderr (stdout for html, csv and latex, which are
    not for a terminal).

    Args:
        dir: The run directory.
        fmt: md (default), json, html, csv or latex.
        label: What tables call the run.

    Returns:
        0 (errors raise BuildfixerError, which the CLI turns into exit code 2).
    """
    text = write_report(dir, fmt, label)
    target = Path(dir) / FILES[fmt]
    what = (
        f"{len(text.splitlines())} tables as CSV in {target}/"
        if fmt == "csv"
        else f"the {fmt} report to {target}"
    )
    if fmt in ("md", "json"):
        sys.stdout.write(for_stream(text, sys.stdout))  # labels and ids are the run's data
        sys.stdout.flush()
        sys.stderr.write(f"wrote {what}\n")
    else:
        sys.stdout.write(f"wrote {what}\n")
    return 0
