"""What `buildfixer analyze` does once its options are parsed (cli.light declares it).

Apart from `cli.commands`, so that `buildfixer build` never imports the parsers for a build that succeeds.
"""

from __future__ import annotations

from pathlib import Path

import typer

from buildfixer.cli.build_render import print_analysis
from buildfixer.cli.commands import print_json
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.harness.checks import check_number
from buildfixer.logs.analyze import analyze_file
from buildfixer.logs.condense import condense

MAX_CONDENSED_BUDGET = 1_000_000  # tokens of a condensed log: far above any model's window


def analyze_command(logfile: Path, condensed: bool, budget: int | None, as_json: bool) -> None:
    """`buildfixer analyze`."""
    if budget is not None and not condensed:
        raise BuildfixerError("--budget is the size of the condensed view: give it with --condensed")
    if budget is None:
        budget = 2000
    check_number("--budget", budget, whole=True, low=1, high=MAX_CONDENSED_BUDGET)
    analysis = analyze_file(logfile)
    if as_json:
        data = analysis.to_dict()
        if condensed:
            data["condensed"] = condense(analysis, budget_tokens=budget)
        print_json(data)
    elif condensed:
        typer.echo(visible(condense(analysis, budget_tokens=budget)))
    else:
        print_analysis(analysis)
