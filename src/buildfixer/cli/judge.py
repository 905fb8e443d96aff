"""`buildfixer judge`: does a patch repair the build, or make it pass by removing what checks it.

`buildfixer.cli.main` imports this module only when the command runs, so its imports are at the top.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.sandbox.backends import get_sandbox
from buildfixer.cli.patches import read_patch
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.judge.diff import parse_patch
from buildfixer.judge.judge import judge_patch
from buildfixer.llm.factory import check_model, make_model


def judge_command(
    project: Path, patch: Path, run_tests: bool, no_sandbox: bool, as_json: bool,
    judge_model: str | None = None,
) -> int:  # fmt: skip
    """Print the verdict; 0 approved, 1 rejected (bad input raises: exit 2 before any build)."""
    if not project.is_dir():
        raise BuildfixerError(f"not a directory: {project}")
    text = read_patch(patch)
    parse_patch(text)  # a malformed diff is bad input, told before any build
    options = BuildOptions(
        sandbox="none" if no_sandbox else "bubblewrap", trust_domain=project_domain(project)
    )
    if run_tests and not no_sandbox:
        get_sandbox(options.sandbox)  # a sandbox that cannot start is told before any build
    if judge_model:
        check_model(judge_model)
    model = make_model(judge_model) if judge_model else None
    verdict = judge_patch(text, project.resolve(), run_tests=run_tests, options=options, model=model)
    if as_json:
        typer.echo(json.dumps(verdict.to_dict(), indent=2))
    else:
        # File names, details and notes come from the patch and the LLM judge: controls spelled out.
        typer.echo("APPROVED" if verdict.approved else f"REJECTED ({len(verdict.findings)} finding(s))")
        for finding in verdict.findings:
            where = f"{finding.file}:{finding.line}" if finding.file and finding.line else finding.file or "-"
            typer.echo(visible(f"  {finding.rule:24s} {where}  {finding.detail}"))
        for note in verdict.notes:
            typer.echo(visible(f"  note: {note}"))
        if verdict.llm and "approved" in verdict.llm:
            said = "approved" if verdict.llm["approved"] else "rejected"
            typer.echo(visible(f"  LLM judge ({verdict.llm['model']}): {said}"))
    return 0 if verdict.approved else 1
