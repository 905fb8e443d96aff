"""Inline SVG charts for the HTML reports (no JavaScript, no plotting library, no external files).

Each function returns one `<svg>` element as a string; values get a `<title>` so hovering shows them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
RESOLVED_COLOR = "#2ca02c"
FAILED_COLOR = "#d62728"
_W, _H = 640, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 200, 24, 48


def _frame(title: str, x_label: str, y_label: str) -> list[str]:
    """The svg opening tag, title and axis labels."""
    plot_mid_x = _LEFT + (_W - _LEFT - _RIGHT) / 2
    plot_mid_y = _TOP + (_H - _TOP - _BOTTOM) / 2
    return [
        f'<svg viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
        f'role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="11">',
        f"<title>{escape(title)}</title>",
        f'<text x="{plot_mid_x:.1f}" y="{_H - 8}" text-anchor="middle">{escape(x_label)}</text>',
        f'<text x="14" y="{plot_mid_y:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {plot_mid_y:.1f})">{escape(y_label)}</text>',
    ]


def _y_axis(ticks: Sequence[float], y_of: Callable[[float], float], fmt: str) -> list[str]:
    """Horizontal grid lines with their labels."""
    out = []
    for tick in ticks:
        y = y_of(tick)
        out.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt.format(tick)}</text>')
    return out


def _legend(entries: Sequence[tuple[str, str]]) -> list[str]:
    """Colour swatches with labels to the right of the plot."""
    out = []
    x = _W - _RIGHT + 14
    for index, (label, color) in enumerate(entries):
        y = _TOP + 6 + index * 18
        short = label if len(label) <= 30 else label[:29] + "…"
        out.append(f'<rect x="{x}" y="{y - 9}" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{x + 18}" y="{y + 1}"><title>{escape(label)}</title>{escape(short)}</text>')
    return out


def pass_at_k_svg(
    curves: Mapping[str, Mapping[str, float | None]],
    title: str = "pass@k",
    intervals: Mapping[str, Mapping[str, Sequence[float] | None]] | None = None,
) -> str:
    """pass@k curves, one line per configuration; k on a log2 axis, rate in percent.

    Configurations are set a few pixels apart at each k, and a point with a confidence interval
    gets a whisker: with one sample per instance (k = 1 only) the chart is then a row of
    estimates with their intervals rather than dots drawn over each other.

    Args:
        curves: {configuration label: {k as a string: rate in [0, 1] or None}}.
        title: The chart's accessible title.
        intervals: {configuration label: {k as a string: [low, high] or None}} (optional).

    Returns:
        One svg element. Missing (None) points break the line.
    """
    ks = sorted({int(k) for values in curves.values() for k in values}) or [1]
    top = math.log2(max(ks))
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x_of(k: int) -> float:  # points kept 16 px inside the frame
        return _LEFT + 16 + (math.log2(k) / top * (plot_w - 32) if top else (plot_w - 32) / 2)

    def y_of(rate: float) -> float:
        return _TOP + plot_h * (1 - rate)

    out = _frame(title, "k (attempts allowed, log scale)", "pass@k (%)")
    out += _y_axis([0, 0.25, 0.5, 0.75, 1.0], y_of, "{:.0%}")
    for k in ks:
        out.append(f'<text x="{x_of(k):.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">{k}</text>')
    legend = []
    spread = 10.0  # px between configurations at one k
    for index, (label, values) in enumerate(curves.items()):
        color = PALETTE[index % len(PALETTE)]
        legend.append((label, color))
        dodge = (index - (len(curves) - 1) / 2) * spread
        whiskers = (intervals or {}).get(label) or {}
        points = [(int(k), v) for k, v in sorted(values.items(), key=lambda item: int(item[0]))]
        segment: list[str] = []
        for k, value in [*points, (0, None)]:  # the sentinel flushes the last segment
            if value is None:
                if len(segment) > 1:
                    line = " ".join(segment)
                    out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{line}"/>')
                segment = []
                continue
            x, y = x_of(k) + dodge, y_of(value)
            segment.append(f"{x:.1f},{y:.1f}")
            interval = whiskers.get(str(k))
            if interval:
                low, high = y_of(interval[0]), y_of(interval[1])
                out.append(
                    f'<line class="ci" x1="{x:.1f}" y1="{low:.1f}" x2="{x:.1f}" y2="{high:.1f}" '
                    f'stroke="{color}" stroke-width="1.5"/>'
                )
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}">'
                f"<title>{escape(label)}: pass@{k} = {value:.1%}</title></circle>"
            )
    out += _legend(legend)
    out.append("</svg>")
    return "\n".join(out)


def _nice_ticks(top: int) -> list[int]:
    """About five integer ticks from 0 up to at least top."""
    step = max(1, math.ceil(top / 5))
    magnitude = 10 ** int(math.log10(step))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= step)
    return list(range(0, top + step, step)) if top else [0, 1]


def histogram_svg(
    edges: Sequence[float],
    series: Sequence[tuple[str, Sequence[int], str]],
    title: str,
    x_label: str,
    labels: Sequence[str] | None = None,
) -> str:
    """Stacked histogram over bins on a log10 x axis.

    Args:
        edges: Bin edges, increasing and positive (len = bins + 1).
        series: (name, count per bin, colour), stacked bottom to top.
        title: The chart's accessible title.
        x_label: What the x axis measures.
        labels: What each bin holds, shown on hover (default: `low–high` from the edges).

    Returns:
        One svg element.
    """
    bins = len(edges) - 1
    totals = [sum(counts[i] for _, counts, _ in series) for i in range(bins)]
    ticks = _nice_ticks(max(totals, default=0))
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    low, high = math.log10(edges[0]), math.log10(edges[-1])

    def x_of(value: float) -> float:
        return _LEFT + (math.log10(value) - low) / ((high - low) or 1) * plot_w

    def y_of(count: float) -> float:
        return _TOP + plot_h * (1 - count / ticks[-1])

    out = _frame(title, x_label, "instances")
    out += _y_axis(ticks, y_of, "{:d}")
    for edge in edges:
        label = f"{edge:g}" if edge < 1000 else f"{edge / 1000:g}k"
        out.append(f'<text x="{x_of(edge):.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">{label}</text>')
    for i in range(bins):
        x0, x1 = x_of(edges[i]) + 1, x_of(edges[i + 1]) - 1
        base = 0
        for name, counts, color in series:
            if counts[i]:
                y_top, y_bottom = y_of(base + counts[i]), y_of(base)
                out.append(
                    f'<rect x="{x0:.1f}" y="{y_top:.1f}" width="{max(x1 - x0, 1):.1f}" '
                    f'height="{y_bottom - y_top:.1f}" fill="{color}"><title>{escape(name)}: {counts[i]} '
                    f"({escape(labels[i] if labels else f'{edges[i]:g}–{edges[i + 1]:g}')})</title></rect>"
                )
            base += counts[i]
    out.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y_of(0):.1f}" y2="{y_of(0):.1f}" stroke="#333"/>')
    out += _legend([(name, color) for name, _, color in series])
    out.append("</svg>")
    return "\n".join(out)
