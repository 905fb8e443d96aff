"""`buildfixer bench compare DIR1 DIR2 ...`: configurations side by side (pass@k, tool usage, cost ...).

Each run directory is reported as in `bench report`; the comparison puts one column (or one row, in the
Table 4 layout) per run, labelled agent/toolset/model. Runs over different instance sets are compared
anyway, with a warning, since their numbers are then not strictly comparable.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buildfixer.bench.plots import pass_at_k_svg
from buildfixer.bench.report import FORMATS, build_report, render_as
from buildfixer.bench.report_render import (
    comparison_tables,
    curves,
    html_document,
    markdown_document,
    run_label,
)
from buildfixer.bench.rundir import load_run, write_atomic
from buildfixer.bench.tables import Column
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.config import check_output_path


def compare_runs(dirs: Sequence[Path]) -> dict[str, Any]:
    """Reports of several run directories, side by side.

    Args:
        dirs: Run directories (at least one).

    Returns:
        JSON-ready data: runs [{label, run_dir, report}], and per run label pass_at_k, tool_usage, cost
        (the report's usage section), success_by_category, change_size, difficulty_tiers, by_stop; plus
        warnings.

    Raises:
        BuildfixerError: No directory given, or one that is not a readable run directory.
    """
    if not dirs:
        raise BuildfixerError("bench compare needs at least one run directory")
    runs = [load_run(Path(d)) for d in dirs]
    reports = [build_report(run) for run in runs]
    plain = [run_label(report) for report in reports]
    labels = [
        f"{label} [{run.path.name or run.path}]" if plain.count(label) > 1 else label
        for label, run in zip(plain, runs, strict=True)
    ]
    if len(set(labels)) < len(labels):  # same configuration in same-named directories
        labels = [f"{label} #{index + 1}" for index, label in enumerate(labels)]
    warnings = [f"{label}: {warning}" for label, report in zip(labels, reports, strict=True)
                for warning in report["warnings"]]  # fmt: skip
    covered = [{row["instance_id"] for row in run.results} for run in runs]
    if any(ids != covered[0] for ids in covered[1:]):
        sizes = ", ".join(f"{label}: {len(ids)}" for label, ids in zip(labels, covered, strict=True))
        warnings.insert(0, f"the runs cover different instances ({sizes}): numbers not strictly comparable")
    return {
        "runs": [
            {"label": label, "run_dir": report["run_dir"], "report": report}
            for label, report in zip(labels, reports, strict=True)
        ],
        **{
            section: {label: report[source] for label, report in zip(labels, reports, strict=True)}
            for section, source in (
                ("pass_at_k", "pass_at_k"),
                ("tool_usage", "tool_usage"),
                ("cost", "usage"),
                ("success_by_category", "success_by_category"),
                ("change_size", "change_size"),
                ("difficulty_tiers", "difficulty_tiers"),
                ("by_stop", "by_stop"),
            )
        },
        "warnings": warnings,
    }


def _columns(comparison: dict[str, Any]) -> list[Column]:
    return [(run["label"], run["report"]) for run in comparison["runs"]]


def render_compare_markdown(comparison: dict[str, Any]) -> str:
    """The comparison as Markdown tables."""
    columns = _columns(comparison)
    return markdown_document("Benchmark comparison", comparison_tables(columns), comparison["warnings"])


def render_compare_html(comparison: dict[str, Any]) -> str:
    """The comparison as one self-contained HTML page with the pass@k curves of every configuration."""
    columns = _columns(comparison)
    figures = [("pass@k per configuration (overall).", pass_at_k_svg(curves(columns)))]
    return html_document("Benchmark comparison", comparison_tables(columns), figures, comparison["warnings"])


def render_compare(comparison: dict[str, Any], fmt: str) -> str:
    """The comparison as md, json (NaN as null) or html."""
    return render_as(comparison, fmt, render_compare_markdown, render_compare_html)


def compare_command(dirs: list[Path], fmt: str = "md", out: Path | None = None) -> int:
    """`buildfixer bench compare DIR1 DIR2 ... [--format md|html|json] [--out PATH]`: print the comparison.

    Args:
        dirs: Run directories.
        fmt: md (default), json or html.
        out: Also write the text there (atomically); an existing directory gets `compare.FMT` inside.

    Returns:
        0 (errors raise BuildfixerError, which the CLI turns into exit code 2).
    """
    if fmt not in FORMATS:
        raise BuildfixerError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    if len(dirs) < 2:
        raise BuildfixerError("give two or more run directories (for one run: `buildfixer bench report`)")
    if out is not None and not out.is_dir():
        check_output_path("--out", out, directory=False)
    text = render_compare(compare_runs(dirs), fmt)
    if out is not None:
        target = out / f"compare.{fmt}" if out.is_dir() else out
        if not target.parent.is_dir():
            raise BuildfixerError(f"cannot write {target}: {target.parent} is not a directory")
        write_atomic(target, text)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0
