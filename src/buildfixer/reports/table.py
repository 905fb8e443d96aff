"""The table every report view is made of, and the columns (one per run) tables are built from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Column = tuple[str, dict[str, Any]]  # (label, report): one run


@dataclass
class Table:
    """A titled table of strings.

    Attributes:
        title: Section heading.
        headers: Column headings.
        rows: Cells, one list per row (first cell is the row heading).
        note: A sentence under the table saying how to read it.
        spans: An optional top header row for HTML: (label, columns spanned).
        short_headers: Column headings shown under the spans in HTML (default: headers).
        numeric: Right-align every column but the first.
        links: An optional link per row for its first cell (a relative URL into the run viewer).
        heat: Shade each percentage cell by its value in HTML (a heatmap, as the study's Figure 4).
    """

    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""
    spans: list[tuple[str, int]] = field(default_factory=list)
    short_headers: list[str] = field(default_factory=list)
    numeric: bool = True
    links: list[str | None] = field(default_factory=list)
    heat: bool = False
