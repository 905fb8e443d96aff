"""The report's tables beyond the study's Table 4-11 layouts: intervals, instances, behaviour analyses.

pass@k with bootstrap intervals, one row per instance (linked into the run viewer), and the second
study's analyses from trajectories (`reports.trajectory_stats`): next-tool transitions (Figure 4), turns
for successes and failures (Figure 7), tokens by kind (Figures 5-6), build and verdict-build durations
(Figure 9), root errors by the keyword taxonomy next to ours (Figure 10). Built from columns
((label, report) pairs) like the other tables, so `bench report` and `bench compare` share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from buildfixer.reports.render import EMPTY, config_rows, ks_of, number, pct
from buildfixer.reports.table import Column, Table

# Where `buildfixer view bundle RUNDIR --out RUNDIR/view` puts the viewer, relative to the report.
VIEWER = "view/index.html"
MIN_TOKEN_SHARE = 0.01  # the study left out kinds under 1%; so do we (their sum is one row)


def viewer_link(instance_id: str) -> str:
    """The viewer's page of an instance (all its attempts side by side), relative to the run directory."""
    return f"{VIEWER}#/instance/{quote(instance_id, safe='')}"


def ci_table(columns: Sequence[Column]) -> Table:
    """Overall pass@k with its 95% bootstrap interval, one row per configuration."""
    ks = ks_of(columns)
    rows = []
    for label, config in config_rows(columns):
        row = [label]
        for k in ks:
            value, ci = config["pass_at_k"]["overall"].get(k), (config.get("pass_at_k_ci") or {}).get(k)
            row.append(
                f"{pct(value)} [{pct(ci[0])}, {pct(ci[1])}]" if value is not None and ci else pct(value)
            )
        rows.append(row)
    return Table(
        title="pass@k (%) with 95% confidence interval",
        headers=["Configuration", *[f"P@{k} [95% CI]" for k in ks]],
        rows=rows,
        note="Percentile bootstrap over instances (1,000 resamples, fixed seed); "
        "– where pass@k does not exist.",
    )


def _outcome_cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return EMPTY
    stops = sorted(set(cell["stops"]) - {"resolved"})
    return f"{cell['resolved']}/{cell['attempts']}" + (f" ({', '.join(stops)})" if stops else "")


def instance_table(columns: Sequence[Column], links: bool = False) -> Table:
    """One row per instance: origin, category, tier, lines changed, resolved/attempts per configuration."""
    configs = [(label, report) for label, report in columns]
    names = [(label, name) for label, report in configs for name in _labels(report)]
    meta: dict[str, dict[str, Any]] = {}
    cells: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for label, report in configs:
        for entry in report.get("instances", []):
            meta.setdefault(entry["instance_id"], entry)
            for name, cell in entry["configurations"].items():
                cells.setdefault(entry["instance_id"], {})[(label, name)] = cell
    rows, hrefs = [], []
    for iid in sorted(meta):
        entry = meta[iid]
        lines = entry.get("lines_changed")
        row = [
            iid,
            entry["origin"],
            entry["category"],
            entry["tier"],
            EMPTY if lines is None else f"{lines:g}",
        ]
        row += [_outcome_cell(cells[iid].get(key)) for key in names]
        rows.append(row)
        hrefs.append(viewer_link(iid) if links else None)
    heads = [label if len(columns) == 1 else f"{label}: {name}" for label, name in names]
    if len(columns) == 1 and len(names) == 1:
        heads = ["Resolved / attempts"]
    return Table(
        title="Instances",
        headers=["Instance", "Origin", "Category", "Tier", "Lines", *heads],
        rows=rows,
        links=hrefs if links else [],
        note="Resolved attempts / attempts, with how the others ended."
        + (
            " Instance names open the viewer (`buildfixer view bundle RUNDIR --out RUNDIR/view`)."
            if links
            else ""
        ),
    )


def _labels(report: dict[str, Any]) -> list[str]:
    return [config["label"] for config in report["configurations"]]


def _analyses(columns: Sequence[Column]) -> list[tuple[str, dict[str, Any]]]:
    pairs = []
    for label, report in columns:
        items = list(report.get("analyses", {}).items())
        pairs += [(label if len(items) == 1 else f"{label}: {name}", stats) for name, stats in items]
    return pairs


def transition_tables(columns: Sequence[Column]) -> list[Table]:
    """Figure 4: per configuration, the share of each tool's calls followed by each next tool."""
    tables = []
    for label, stats in _analyses(columns):
        transitions = stats["transitions"]
        matrix = transitions["next"]
        if len(matrix) <= 1:
            continue
        targets = list(dict.fromkeys(b for after in matrix.values() for b in after))
        usage = transitions["usage_share"]
        rows = [
            [f"{tool} ({pct(usage[tool])}%)" if tool in usage else tool]
            + [pct(after[b]) if b in after else "" for b in targets]
            for tool, after in matrix.items()
        ]
        tables.append(Table(
            title=f"Next tool (%): {label}",
            headers=["Tool (share of calls)", *targets],
            rows=rows,
            note="Row: the tool just called; cells: how often each tool came next (rows sum to 100).",
            heat=True,
        ))  # fmt: skip
    return tables


def turns_table(columns: Sequence[Column]) -> Table:
    """Figure 7: turns (model calls) per trajectory for successes and failures, mean with 95% interval."""
    rows = []
    for label, stats in _analyses(columns):
        for outcome in ("success", "failure"):
            t = stats["turns"][outcome]
            ci = f"[{number(t['ci95'][0])}, {number(t['ci95'][1])}]" if t["ci95"] else EMPTY
            rows.append(
                [label, outcome, str(t["n"]), number(t["mean"]), ci, number(t["median"]), number(t["max"], 0)]
            )
    return Table(
        title="Turns per trajectory",
        headers=["Configuration", "Outcome", "Trajectories", "Mean", "95% CI", "Median", "Max"],
        rows=rows,
        note="Model calls per trajectory; the interval is mean ± 1.96 standard errors.",
    )


def token_table(columns: Sequence[Column]) -> Table:
    """Figures 5-6: each kind's share of a trajectory's tokens, for successes, failures and all."""
    heads, shares = [], []
    for label, stats in _analyses(columns):
        for outcome in ("success", "failure", "all"):
            heads.append(
                f"{label}: {outcome}" if len(columns) > 1 or len(_analyses(columns)) > 1 else outcome
            )
            shares.append(stats["tokens"][outcome])
    kinds = sorted({k for share in shares for k, v in share.items() if v >= MIN_TOKEN_SHARE},
                   key=lambda k: -sum(s.get(k, 0.0) for s in shares))  # fmt: skip
    rows = [[kind] + [pct(s[kind]) if kind in s else EMPTY for s in shares] for kind in kinds]
    rest = [sum(v for k, v in s.items() if k not in kinds) for s in shares]
    if any(rest):
        rows.append(["other (< 1% each)"] + [pct(v) for v in rest])
    return Table(
        title="Tokens by kind (%)",
        headers=["Kind", *heads],
        rows=rows,
        note="Estimated from the text (about four characters a token). tool_call:X is what the model wrote "
        "as X's arguments; X_response is what X returned; prompts are the system and first user messages.",
    )


def duration_table(columns: Sequence[Column]) -> Table:
    """Figure 9: durations of the builds agents ran and of the harness's verdict build (seconds)."""
    keys = ("min", "p25", "median", "p75", "p90", "max", "mean")
    rows = []
    for label, stats in _analyses(columns):
        for what, name in (("build_s", "builds by tools"), ("validation_s", "verdict build")):
            q = stats[what]
            count = str(q["n"])
            if what == "validation_s" and (reused := stats.get("verdicts_reused")):
                count = f"{count} ({reused} reused)" if q["n"] else "reused"
            rows.append([label, name, count, *[number(q[key]) for key in keys]])
    return Table(
        title="Build and validation time (s)",
        headers=["Configuration", "Build", "Builds", "Min", "P25", "Median", "P75", "P90", "Max", "Mean"],
        rows=rows,
        note="Builds by tools: every call of run_build, the build system's command tool or "
        "validate_and_build; verdict build: the harness's own final build of each attempt; reused: "
        "the attempt's last build was of the repair as it stands, so it is the verdict and none ran.",
    )


def keyword_table(columns: Sequence[Column]) -> Table:
    """Figure 10: instances by our category (rows) and the second study's keyword category (columns)."""
    taxonomy = columns[0][1].get("keyword_taxonomy") or {"categories": [], "counts": {}, "totals": {}}
    used = [name for name in taxonomy["categories"] if taxonomy["totals"].get(name)]
    rows = [[ours] + [str(c.get(name, 0)) for name in used] + [str(sum(c.values()))]
            for ours, c in taxonomy["counts"].items()]  # fmt: skip
    total = sum(taxonomy["totals"].values())
    rows.append(["Share (%)"] + [pct(taxonomy["totals"][name] / total) for name in used] + ["100.0"])
    return Table(
        title="Root errors: our taxonomy and the keyword taxonomy",
        headers=["Our category", *used, "Instances"],
        rows=rows,
        note="Keyword category of each instance's root error message (the first matching rule of the "
        f"second study's Table 1) against the category the analyzer gives; instances of {columns[0][0]}.",
    )


def analysis_tables(columns: Sequence[Column], links: bool = False) -> list[Table]:
    """Every table of this module, in reading order (empty analyses left out)."""
    tables = [ci_table(columns), instance_table(columns, links)]
    if any(stats["trajectories"] for _, stats in _analyses(columns)):
        tables += [*transition_tables(columns), turns_table(columns), token_table(columns)]
    tables.append(duration_table(columns))
    if columns and (columns[0][1].get("keyword_taxonomy") or {}).get("totals"):
        tables.append(keyword_table(columns))
    return tables
