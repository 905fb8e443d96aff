"""Tables as documents: a page (Markdown, self-contained HTML) or files to publish (CSV, LaTeX).

The report of one run shows the same tables in every format, in the same order: the summary, the
study's layouts (`render.comparison_tables`), then intervals, instances and the behaviour analyses
(`analysis_tables.analysis_tables`). CSV and LaTeX carry the tables only (no plots, no links).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from buildfixer.reports.analysis_tables import analysis_tables
from buildfixer.reports.plots import FAILED_COLOR, RESOLVED_COLOR, histogram_svg, pass_at_k_svg
from buildfixer.reports.render import (
    comparison_tables,
    curves,
    intervals,
    run_label,
    summary_table,
)
from buildfixer.reports.table import Table


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
    "<": r"\textless{}", ">": r"\textgreater{}",  # a placeholder's (`<tmp>`): LaTeX's default font has no <
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


def _md_text(text: str) -> str:
    """Text as Markdown shows it: a `<` escaped, so a placeholder (`<tmp>/run`) is not taken for a tag."""
    return text.replace("<", "\\<")


def _md_cell(text: str) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ")


def markdown_document(title: str, tables: Sequence[Table], warnings: Sequence[str] = ()) -> str:
    """A Markdown page: heading, warnings, then each table with its note."""
    lines = [f"# {_md_text(title)}", ""]
    if warnings:
        lines += ["**Warnings**", ""] + [f"- {_md_text(w)}" for w in warnings] + [""]
    for table in tables:
        lines += [f"## {table.title}", ""]
        lines.append("| " + " | ".join(_md_cell(h) for h in table.headers) + " |")
        align = "---:" if table.numeric else "---"
        lines.append("|" + "|".join("---" if i == 0 else align for i in range(len(table.headers))) + "|")
        for index, row in enumerate(table.rows):
            cells = [_md_cell(c) for c in row]
            link = table.links[index] if index < len(table.links) else None
            if link and cells:
                cells[0] = f"[{cells[0]}]({link})"
            lines.append("| " + " | ".join(cells) + " |")
        if table.note:
            lines += ["", f"_{table.note}_"]
        lines.append("")
    return "\n".join(lines)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; }
body { color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.5rem 0; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, table.text td { text-align: left; }
thead th { background: #f3f4f6; } tbody tr:nth-child(even) { background: #fafafa; }
.note { color: #555; font-size: 0.85rem; } .warn { background: #fff7e0; border-left: 4px solid #f0b400; }
.scroll { overflow-x: auto; } figure { margin: 1rem 0; } figcaption { color: #555; font-size: 0.85rem; }
"""


def _html_table(table: Table) -> str:
    head = ""
    if table.spans and any(label for label, _ in table.spans):
        spans = "".join(f'<th colspan="{n}">{escape(label)}</th>' for label, n in table.spans)
        head = f"<tr>{spans}</tr>"
    headers = table.short_headers if head and table.short_headers else table.headers
    head += "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>"
    body = ""
    for index, row in enumerate(table.rows):
        cells = [escape(c) for c in row]
        link = table.links[index] if index < len(table.links) else None
        if link and cells:
            cells[0] = f'<a href="{escape(link)}">{cells[0]}</a>'
        body += "<tr>" + "".join(f"<td{_shade(c) if table.heat else ''}>{c}</td>" for c in cells) + "</tr>"
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    css = "" if table.numeric else ' class="text"'
    return (f"<h2>{escape(table.title)}</h2>\n<div class=\"scroll\"><table{css}><thead>{head}</thead>"
            f"<tbody>{body}</tbody></table></div>{note}")  # fmt: skip


def _shade(cell: str) -> str:
    """A background as dark as the percentage in the cell (none for text or empty cells)."""
    try:
        value = float(cell)
    except ValueError:
        return ""
    return f' style="background: rgba(37, 99, 235, {min(max(value, 0.0), 100.0) / 100 * 0.8:.2f})"'


def html_document(
    title: str, tables: Sequence[Table], figures: Sequence[tuple[str, str]] = (), warnings: Sequence[str] = ()
) -> str:
    """One self-contained HTML page (inline CSS and SVG, no scripts, no external resources).

    Args:
        title: Page title and heading.
        tables: The tables, in order.
        figures: (caption, svg) pairs, shown after the pass@k tables.
        warnings: Shown at the top.

    Returns:
        The page.
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    if warnings:
        items = "".join(f"<li>{escape(w)}</li>" for w in warnings)
        parts.append(f'<div class="warn"><strong>Warnings</strong><ul>{items}</ul></div>')
    passk = [i for i, table in enumerate(tables) if table.title.startswith("pass@k")]
    place = passk[-1] if passk else len(tables) - 1
    for index, table in enumerate(tables):
        parts.append(_html_table(table))
        if index == place and figures:
            parts.append("<h2>Plots</h2>")
            parts += [f"<figure>{svg}<figcaption>{escape(cap)}</figcaption></figure>" for cap, svg in figures]
    parts.append("</body></html>\n")
    return "\n".join(parts)
