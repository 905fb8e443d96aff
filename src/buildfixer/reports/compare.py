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

from buildfixer.bench.rundir import load_run, write_atomic, write_tree_atomic
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import for_stream
from buildfixer.harness.checks import check_output_path
from buildfixer.reports.analysis_tables import analysis_tables
from buildfixer.reports.formats import csv_files, html_document, latex_document, markdown_document
from buildfixer.reports.plots import pass_at_k_svg
from buildfixer.reports.render import (
    comparison_tables,
    curves,
    intervals,
    run_label,
)
from buildfixer.reports.run_report import FILES, FORMATS, build_report, render_as
from buildfixer.reports.table import Column, Table


def compare_runs(dirs: Sequence[Path], labels: Sequence[str] = ()) -> dict[str, Any]:
    """Reports of several run directories, side by side.

    Args:
        dirs: Run directories (at least one).
        labels: What to call each run, in order (`--label`); the rest get their short labels.

    Returns:
        JSON-ready data: runs [{label, run_dir, report}], and per run label pass_at_k, tool_usage, cost
        (the report's usage section), success_by_category, change_size, difficulty_tiers, by_stop; plus
        warnings.

    Raises:
        BuildfixerError: No directory given, or one that is not a readable run directory.
    """
    if not dirs:
        raise BuildfixerError("bench compare needs at least one run directory")
    if len(labels) > len(dirs):
        raise BuildfixerError(
            f"{len(labels)} labels for {len(dirs)} run directories: give one --label per run"
        )
    runs = [load_run(Path(d)) for d in dirs]
    given = [*labels, *[None] * (len(dirs) - len(labels))]
    reports = [build_report(run, label) for run, label in zip(runs, given, strict=True)]
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


def _tables(comparison: dict[str, Any]) -> list[Table]:
    columns = _columns(comparison)
    return [*comparison_tables(columns), *analysis_tables(columns)]


def render_compare_markdown(comparison: dict[str, Any]) -> str:
    """The comparison as Markdown tables."""
    return markdown_document("Benchmark comparison", _tables(comparison), comparison["warnings"])


def render_compare_html(comparison: dict[str, Any]) -> str:
    """The comparison as one self-contained HTML page with the pass@k curves of every configuration."""
    figures = [
        (
            "pass@k per configuration (overall).",
            pass_at_k_svg(curves(_columns(comparison)), intervals=intervals(_columns(comparison))),
        )
    ]
    return html_document("Benchmark comparison", _tables(comparison), figures, comparison["warnings"])


def render_compare(comparison: dict[str, Any], fmt: str) -> str:
    """The comparison as md, json (NaN as null), html or latex."""
    if fmt == "latex":
        return latex_document("Benchmark comparison", _tables(comparison))
    return render_as(comparison, fmt, render_compare_markdown, render_compare_html)


def compare_command(
    dirs: list[Path], fmt: str = "md", out: Path | None = None, labels: Sequence[str] = ()
) -> int:
    """`buildfixer bench compare DIR1 DIR2 ... [--format F] [--out PATH] [--label NAME]...`.

    Markdown and JSON are printed (and written to --out when given); html, csv and latex need --out
    and print where they went. csv is a folder of one file per table.

    Args:
        dirs: Run directories.
        fmt: md (default), json, html, csv or latex.
        out: Write there (atomically); an existing directory gets `compare.FMT` (csv: `compare-csv/`) inside.
            An html file named without a suffix gets `.html`.
        labels: What to call each run, in order.

    Returns:
        0 (errors raise BuildfixerError, which the CLI turns into exit code 2).
    """
    if fmt not in FORMATS:
        raise BuildfixerError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    if len(dirs) < 2:
        raise BuildfixerError("give two or more run directories (for one run: `buildfixer bench report`)")
    if out is None and fmt not in ("md", "json"):
        raise BuildfixerError(
            f"--format {fmt} writes a file: give --out PATH (a file, or a folder to write into)"
        )
    if out is not None and not out.is_dir():
        if fmt == "html" and not out.suffix:  # a browser opens a page by its name
            out = out.with_name(out.name + ".html")
        check_output_path("--out", out, directory=False)
    comparison = compare_runs(dirs, labels)
    target = None
    if out is not None:
        target = out / FILES[fmt].replace("report", "compare") if out.is_dir() else out
        if not target.parent.is_dir():
            raise BuildfixerError(f"cannot write {target}: {target.parent} is not a directory")
    if fmt == "csv":
        assert target is not None
        write_tree_atomic(target, csv_files(_tables(comparison)))
        sys.stdout.write(f"wrote the tables as CSV in {target}/\n")
        return 0
    text = render_compare(comparison, fmt)
    if target is not None:
        write_atomic(target, text)
    if fmt in ("md", "json"):
        sys.stdout.write(for_stream(text, sys.stdout))  # labels and ids are the runs' data
        if target is not None:
            sys.stderr.write(f"wrote the {fmt} comparison to {target}\n")
    else:
        sys.stdout.write(f"wrote the {fmt} comparison to {target}\n")
    sys.stdout.flush()
    return 0
