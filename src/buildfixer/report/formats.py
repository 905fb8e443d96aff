"""The report of one run as a page (Markdown, HTML) or as tables to publish (CSV files, LaTeX).

Every format shows the same tables in the same order: the summary, the study's layouts
(`report_render.comparison_tables`), then intervals, instances and the behaviour analyses
(`report_tables.analysis_tables`). CSV and LaTeX carry the tables only (no plots, no links).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from buildfixer.report.analysis_tables import analysis_tables
from buildfixer.report.plots import FAILED_COLOR, RESOLVED_COLOR, histogram_svg, pass_at_k_svg
from buildfixer.report.render import (
    comparison_tables,
    curves,
    html_document,
    intervals,
    markdown_document,
    run_label,
    summary_table,
)
from buildfixer.report.table import Table


def report_tables(report: dict[str, Any], links: bool = True) -> list[Table]:
    """Every table of the report of one run, in reading order."""
    columns = [(run_label(report), report)]
    return [summary_table(report), *comparison_tables(columns), *analysis_tables(columns, links)]


def render_markdown(report: dict[str, Any]) -> str:
    """The report of one run as Markdown (instance names link into the run viewer)."""
    title = f"Benchmark report: {run_label(report)}"
    return markdown_document(title, report_tables(report), report["warnings"])


def render_html(report: dict[str, Any]) -> str:
    """The report of one run as one self-contained HTML page, with pass@k curves and a size histogram."""
    columns = [(run_label(report), report)]
    hist = report["change_size_histogram"]
    series = [
        ("resolved", hist["resolved"], RESOLVED_COLOR),
        ("never resolved", hist["unresolved"], FAILED_COLOR),
    ]
    figures = [
        ("pass@k per configuration (overall).", pass_at_k_svg(curves(columns), intervals=intervals(columns))),
        (
            "Instances by lines changed in the breaking change (log axis; a bar holds sizes above its left "
            "edge up to its right edge, as the tiers do); green: resolved in at least one attempt, red: "
            "never resolved.",
            histogram_svg(
                hist["edges"], series, "change size", "lines changed (log scale)", hist.get("labels")
            ),
        ),
    ]
    title = f"Benchmark report: {run_label(report)}"
    return html_document(title, report_tables(report), figures, report["warnings"])


def slug(title: str) -> str:
    """A file-name form of a table title: `pass@k (%) by origin` -> `pass-k-by-origin`."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "table"


def render_csv(report: dict[str, Any]) -> dict[str, str]:
    """Each table of the report as CSV text, keyed by a numbered file name."""
    return csv_files(report_tables(report, links=False))


def csv_files(tables: list[Table]) -> dict[str, str]:
    """Each table as CSV text (header row, then the rows), keyed by a numbered file name."""
    files = {}
    for index, table in enumerate(tables, 1):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.headers)
        writer.writerows(table.rows)
        files[f"{index:02d}-{slug(table.title)}.csv"] = buffer.getvalue()
    return files


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--",
}  # fmt: skip


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX table cell."""
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def render_latex(report: dict[str, Any]) -> str:
    """Every table of the report in LaTeX (`latex_document`)."""
    return latex_document(f"Benchmark report: {run_label(report)}", report_tables(report, links=False))


def latex_document(title: str, tables: list[Table]) -> str:
    """Every table as a LaTeX `table` with booktabs rules (needs the booktabs package), note as caption."""
    parts = [f"% {latex_escape(title)}", "% Needs \\usepackage{booktabs}.", ""]
    for table in tables:
        align = "l" + ("r" if table.numeric else "l") * (len(table.headers) - 1)
        parts += [
            "\\begin{table}[ht]",
            "\\centering\\small",
            f"\\caption{{{latex_escape(table.title)}"
            + (f". {latex_escape(table.note)}}}" if table.note else "}"),
            f"\\label{{tab:{slug(table.title)}}}",
            f"\\begin{{tabular}}{{{align}}}",
            "\\toprule",
            " & ".join(latex_escape(h) for h in table.headers) + " \\\\",
            "\\midrule",
            *[" & ".join(latex_escape(c) for c in row) + " \\\\" for row in table.rows],
            "\\bottomrule",
            "\\end{tabular}",
            "\\end{table}",
            "",
        ]
    return "\n".join(parts)
