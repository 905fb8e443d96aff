"""The tables of reports (one run, or several side by side), in the study's layouts.

Reports are the JSON data of `run_report.build_report`; `formats` turns tables into documents.
Every view is a list of `Table`s built from *columns*: (label, report) pairs, one per run, so
`bench report` (one column) and `bench compare` (many) share the layouts. A number that does not
exist (pass@k where an instance has fewer than k attempts, an empty group, the sd of one value)
shows "–", never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from buildfixer.core.stops import EPISODE_ONLY
from buildfixer.reports.loop_stats import loop_table
from buildfixer.reports.table import Column, Table

USAGE_LABELS = {"llm_calls": "LLM calls", "input_tokens": "Input tokens", "output_tokens": "Output tokens",
                "cost_usd": "Cost (USD)", "duration_s": "Duration (s)"}  # fmt: skip
EMPTY = "–"


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal; – when missing."""
    return EMPTY if value is None else f"{value * 100:.1f}"


def number(value: float | None, digits: int = 1) -> str:
    """A number with thousands separators and `digits` decimals; – when missing."""
    return EMPTY if value is None else f"{value:,.{digits}f}"


def _median_sd(stats: dict[str, Any]) -> str:
    """`median ± sd`; the median alone with `± –` for one value, – for none."""
    if stats["median"] is None:
        return EMPTY
    return f"{number(stats['median'])} ± {number(stats['sd'])}"


def _rate_cell(entry: dict[str, Any] | None, key: str) -> str:
    """A rate with its counts, as "50.0 (1/2)"; – when the group is absent or has no attempt."""
    if not entry or entry[key] is None:
        return EMPTY
    return f"{pct(entry[key])} ({entry['resolved']}/{entry['attempts']})"


def _mean_median(stats: dict[str, Any], digits: int) -> str:
    """`mean / median`; – when there is no value."""
    if stats["mean"] is None:
        return EMPTY
    return f"{number(stats['mean'], digits)} / {number(stats['median'], digits)}"


def run_label(report: dict[str, Any]) -> str:
    """What a run is called in headings and columns: its `--label`, else its configurations' short labels."""
    if report.get("label"):
        return str(report["label"])
    return " + ".join(c["label"] for c in report["configurations"]) or report["run_dir"]


def config_rows(columns: Sequence[Column]) -> list[tuple[str, dict[str, Any]]]:
    """(label, configuration entry) for every configuration of every column."""
    rows = []
    for label, report in columns:
        configs = report["configurations"]
        for config in configs:
            rows.append((label if len(configs) == 1 else f"{label}: {config['label']}", config))
    return rows


def ks_of(columns: Sequence[Column]) -> list[str]:
    """Every k any of the runs reports, in order, as the strings report JSON keys use."""
    return [str(k) for k in sorted({k for _, report in columns for k in report["ks"]})]


def pass_table(columns: Sequence[Column], section: str) -> Table:
    """Table 4 layout: one row per configuration, pass@k (%) overall and per origin or per category."""
    ks = ks_of(columns)
    groups = sorted({g for _, report in columns for g in report["pass_at_k"][section]})
    sizes: dict[str, int] = {}
    for _, report in columns:
        for group, n in report["group_sizes"][section].items():
            sizes[group] = max(sizes.get(group, 0), n)
    headers, spans = ["Configuration"], [("", 1)]
    for group in ["Overall", *groups]:
        headers += [f"{group} P@{k}" for k in ks]
        spans.append((group if group == "Overall" else f"{group} (n={sizes[group]})", len(ks)))
    rows = []
    for label, config in config_rows(columns):
        values = config["pass_at_k"]
        row = [label] + [pct(values["overall"].get(k)) for k in ks]
        for group in groups:
            per = values[section].get(group)
            row += [pct(per.get(k)) if per else "–" for k in ks]
        rows.append(row)
    kind = section.removeprefix("by_")
    return Table(
        title=f"pass@k (%) by {kind}",
        headers=headers,
        rows=rows,
        spans=spans,
        short_headers=["Configuration"] + [f"P@{k}" for k in ks] * (len(groups) + 1),
        note="Unbiased estimator 1 - C(n-c,k)/C(n,k) per instance, averaged; – where an instance has fewer "
        "than k attempts or a configuration has no instance of that " + kind + ".",
    )


def tool_table(columns: Sequence[Column]) -> Table:
    """Table 6: each tool's share (%) of all tool calls, one column per configuration."""
    usages: list[tuple[str, dict[str, Any]]] = []
    for label, report in columns:
        items = list(report["tool_usage"].items())
        usages += [(label if len(items) == 1 else f"{label}: {name}", usage) for name, usage in items]
    tools = sorted({tool for _, usage in usages for tool in usage["counts"]},
                   key=lambda t: (-sum(u["counts"].get(t, 0) for _, u in usages), t))  # fmt: skip
    rows = [[tool] + [pct(u["share"].get(tool)) if tool in u["share"] else "–" for _, u in usages]
            for tool in tools]  # fmt: skip
    rows.append(["Total calls"] + [f"{u['total_calls']:,}" for _, u in usages])
    return Table(
        title="Tool usage (% of all tool calls)",
        headers=["Tool"] + [label for label, _ in usages],
        rows=rows,
        note="Each tool's calls as a share of all tool calls of the configuration; – when never called.",
    )


def outcome_table(columns: Sequence[Column]) -> Table:
    """Table 8: success rate by category, and the size of the breaking change for fixed vs failed."""
    categories = sorted({c for _, report in columns for c in report["success_by_category"]})
    rows = []
    for category in categories:
        cells = []
        for _, report in columns:
            entry = report["success_by_category"].get(category)
            cells.append(_rate_cell(entry, "success_rate"))
        rows.append([f"Success rate: {category} (%)"] + cells)
    for outcome in ("fixed", "failed"):
        rows.append([f"{outcome.capitalize()} attempts"]
                    + [str(report["change_size"][outcome]["attempts"]) for _, report in columns])  # fmt: skip
        for metric, name in (("lines_changed", "Lines changed"), ("files_changed", "Files changed")):
            cells = [_median_sd(report["change_size"][outcome][metric]) for _, report in columns]
            rows.append([f"{name}, {outcome} (median ± sd)", *cells])
    return Table(
        title="Success and failure cases",
        headers=["Metric"] + [label for label, _ in columns],
        rows=rows,
        note="Per attempt. Change size is that of the change that broke the build (instance lines_changed, "
        "files_changed); sd is the sample standard deviation.",
    )


def usage_table(columns: Sequence[Column]) -> Table:
    """LLM calls, tokens, cost and duration of successes vs failures (mean / median)."""
    rows = []
    for label, report in columns:
        for outcome in ("resolved", "failed", "all"):
            stats = report["usage"][outcome]
            cells = [_mean_median(stats[m], 4 if m == "cost_usd" else 1) for m in USAGE_LABELS]
            total = number(stats["cost_usd"]["total"], 4)
            rows.append([label, outcome, str(stats["attempts"]), *cells, total])
    return Table(
        title="Cost of successes and failures",
        headers=["Configuration", "Outcome", "Attempts", *USAGE_LABELS.values(), "Total cost (USD)"],
        rows=rows,
        note="Cells are mean / median per attempt.",
    )


def tier_table(columns: Sequence[Column]) -> Table:
    """Table 11: instances per difficulty tier (lines changed) and the resolve rate in each."""
    first = columns[0][1]["difficulty_tiers"]
    names = [t["tier"] for t in first] + sorted(
        {t["tier"] for _, r in columns for t in r["difficulty_tiers"]} - {t["tier"] for t in first}
    )
    rows = []
    for name in names:
        base = next((t for t in first if t["tier"] == name), None)
        row = [name, base["lines"] if base else "?", str(base["instances"]) if base else "0",
               pct(base["share"]) if base else "–"]  # fmt: skip
        for _, report in columns:
            tier = next((t for t in report["difficulty_tiers"] if t["tier"] == name), None)
            row.append(_rate_cell(tier, "resolve_rate"))
        rows.append(row)
    return Table(
        title="Difficulty tiers (lines changed)",
        headers=[
            "Tier",
            "Lines",
            "Instances",
            "Share (%)",
            *[f"Resolved (%) {label}" for label, _ in columns],
        ],
        rows=rows,
        note=f"Instances and share from {columns[0][0]}; resolved = resolved attempts / attempts.",
    )


def status_table(columns: Sequence[Column]) -> Table:
    """Attempts per final status (success, failure, timeout, error ...)."""
    statuses = sorted({s for _, report in columns for s in report["status_counts"]})
    rows = [[s] + [str(report["status_counts"].get(s, 0)) for _, report in columns] for s in statuses]
    return Table(title="Attempt status", headers=["Status"] + [label for label, _ in columns], rows=rows)


def stop_table(columns: Sequence[Column]) -> Table:
    """Attempts per stop kind (how they ended), one column per configuration."""
    counts: list[tuple[str, dict[str, int]]] = []
    for label, report in columns:
        items = list(report.get("by_stop", {}).items())
        counts += [(label if len(items) == 1 else f"{label}: {name}", kinds) for name, kinds in items]
    kinds = list(dict.fromkeys(kind for _, per in counts for kind in per))
    kinds = [k for k in kinds if k not in EPISODE_ONLY or any(per.get(k) for _, per in counts)]
    rows = [[kind] + [str(per.get(kind, 0)) for _, per in counts] for kind in kinds]
    return Table(
        title="Attempts by stop kind",
        headers=["Stop kind"] + [label for label, _ in counts],
        rows=rows,
        note="How each attempt ended (resolved: the harness's own build succeeded); unknown: a result "
        "recorded before stop kinds were.",
    )


def comparison_tables(columns: Sequence[Column]) -> list[Table]:
    """Every table of the report layout for one or more runs."""
    loop = loop_table(columns)
    return [
        pass_table(columns, "by_origin"),
        pass_table(columns, "by_category"),
        tool_table(columns),
        outcome_table(columns),
        usage_table(columns),
        tier_table(columns),
        status_table(columns),
        stop_table(columns),
        *([loop] if loop else []),
    ]


def summary_table(report: dict[str, Any]) -> Table:
    """Key facts of one run."""
    rows = [
        ["Run directory", report["run_dir"]],
        ["Configuration", run_label(report)],
        ["Instances", f"{report['n_instances']} of {report['n_dataset_instances']} in the dataset"],
        ["Samples per instance", str(report["samples"])],
        ["Attempts (resolved)", f"{report['attempts']} ({report['resolved_attempts']})"],
        ["Total cost (USD)", number(report["usage"]["all"]["cost_usd"]["total"], 4)],
    ]
    return Table(title="Summary", headers=["Item", "Value"], rows=rows, numeric=False)


def curves(columns: Sequence[Column]) -> dict[str, dict[str, float | None]]:
    """Overall pass@k per configuration, for the curve plot."""
    return {label: config["pass_at_k"]["overall"] for label, config in config_rows(columns)}


def intervals(columns: Sequence[Column]) -> dict[str, dict[str, Any]]:
    """The 95% bootstrap interval of each configuration's overall pass@k, for the plot's whiskers."""
    return {label: config.get("pass_at_k_ci") or {} for label, config in config_rows(columns)}
