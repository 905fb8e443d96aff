"""What the GitHub Action writes: step outputs, the job summary, and the pull request's text.

GitHub reads step outputs from the file named by `GITHUB_OUTPUT` and renders the Markdown appended
to `GITHUB_STEP_SUMMARY` on the run's page. Every text written here first goes through `scrub`, so
a secret that reached a result by accident is never published; the summary's and the pull request's
words (not the diff) hold no path of the runner either (`core.shareable`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.core.shareable import shareable_text
from buildfixer.triage import FLAKY, INFRA, PRE_EXISTING

# GitHub caps a step summary at 1 MiB; the diff is cut well below, so the rest always fits.
_DIFF_LIMIT = 60_000
_FINDINGS_LIMIT = 20
# Shorter values are ordinary words or digits: replacing them everywhere would garble the text.
_MIN_SECRET_LEN = 6
MASK = "***"
# An inline code span (Markdown shows its text as it is), as a group for re.split.
_CODE_SPAN = re.compile(r"(`[^`\n]*`)")


@dataclass
class RunInfo:
    """Where the repair ran: the repository, the failing branch and commit, the workflow run."""

    repository: str
    branch: str
    sha: str
    run_url: str
    model: str
    agent: str
    artifact: str
    project: str = "."  # the project's folder in the repository, which the patch's paths start from


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret long enough to be one replaced by `***`."""
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def write_outputs(path: Path, values: dict[str, str]) -> None:
    """Append step outputs in GitHub's `name<<DELIMITER` form, which keeps multiline values whole.

    A fresh random delimiter per value means no value can end its own block early.
    """
    with path.open("a", encoding="utf-8") as out:
        for name, value in values.items():
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def judge_line(judge: dict[str, Any] | None) -> str:
    """The judge's verdict in a few words: "approved, no findings", "rejected (2 findings)"."""
    if not judge:
        return "not asked (nothing to judge)"
    findings = judge.get("findings") or []
    verdict = "approved" if judge.get("approved", True) else "rejected"
    return f"{verdict} ({len(findings)} finding(s))" if findings else f"{verdict}, no findings"


def triage_line(triage: dict[str, Any] | None) -> str:
    """What the failure was (`fix`'s triage, docs/TRIAGE.md) in a table cell; "" when not triaged.

    Flaky and infrastructure failures are never patched: the cell says so, a pre-existing one says
    the failure was already on the base.
    """
    kind = (triage or {}).get("class")
    if not triage or not kind:
        return ""
    basis = str(triage.get("basis") or "").replace("|", "\\|").replace("\n", " ")
    after = {
        FLAKY: " Not patched: build again.",
        INFRA: " Not patched: the project is not what failed.",
        PRE_EXISTING: " The failure was already on the base branch.",
    }.get(str(kind), "")
    return f"**{kind}** ({triage.get('confidence', 0):.2f}): {basis}.{after}"


def findings_markdown(judge: dict[str, Any] | None) -> list[str]:
    """One bullet per judge finding: rule, place, detail."""
    findings = (judge or {}).get("findings") or []
    lines = []
    for finding in findings[:_FINDINGS_LIMIT]:
        where = finding.get("file") or ""
        if where and finding.get("line"):
            where = f"{where}:{finding['line']}"
        place = f" `{where}`" if where else ""
        lines.append(f"- **{finding.get('rule', '?')}**{place}: {finding.get('detail', '')}")
    if len(findings) > _FINDINGS_LIMIT:
        lines.append(f"- ... and {len(findings) - _FINDINGS_LIMIT} more (see the trajectory artifact)")
    return lines


def summary_markdown(result: dict[str, Any], run: RunInfo, pull: str) -> str:
    """The job summary: verdict, judge, pull request, where the artifacts are, and the diff."""
    resolved = bool(result.get("resolved"))
    head = "repaired" if resolved else "not repaired"
    lines = [f"## buildfixer: the build is {head}", "", "| | |", "|---|---|"]
    where = f"`{run.branch or '(no branch)'}` at `{run.sha[:12] or '?'}`, project `{run.project}`"
    lines.append(f"| Failed build | {where} |")
    lines.append(f"| Model | `{run.model}` (agent `{run.agent}`), {result.get('llm_calls', 0)} LLM call(s) |")
    stop = result.get("stop") or ""
    reason = str(result.get("stop_reason") or "").replace("|", "\\|").replace("\n", " ")
    lines.append(f"| Stop | {stop}{': ' + reason if reason and reason != stop else ''} |")
    lines.append(f"| Judge | {judge_line(result.get('judge'))} |")
    if triaged := triage_line(result.get("triage")):
        lines.append(f"| Triage | {triaged} |")
    cell = pull.replace("|", "\\|")
    lines.append(f"| Pull request | {cell} |")
    lines.append(f"| Artifacts | `{run.artifact}` (the patch, the trajectory, the result) |")
    findings = findings_markdown(result.get("judge"))
    if findings:
        lines += ["", "### Judge findings", "", *findings]
    patch = str(result.get("patch") or "")
    diff = ["", "### Patch", "", f"Paths are relative to `{run.project}`.", "", *_fenced_diff(patch)]
    # The diff stays as it is: it is the change proposed.
    words = _markdown_text(shareable_text("\n".join(lines)))
    return "\n".join([words, *(diff if patch.strip() else [])]) + "\n"


def pull_request_text(commit_message: str, result: dict[str, Any], run: RunInfo) -> str:
    """Title line, then the body: the commit's account, the judge's verdict, the run that made it."""
    title, _, rest = commit_message.strip().partition("\n")
    body = [rest.strip(), "", "### Judge", "", f"**{judge_line(result.get('judge'))}**"]
    findings = findings_markdown(result.get("judge"))
    if findings:
        body += ["", *findings]
    body += [
        "",
        "### How this was made",
        "",
        f"The build of `{run.branch}` at `{run.sha[:12]}` failed in [this workflow run]({run.run_url}).",
        f"buildfixer repaired it with `{run.model}` (agent `{run.agent}`, {result.get('llm_calls', 0)} "
        "LLM call(s)) in an isolated copy of the project and proved the repair with its own build.",
        f"The patch and the agent's trajectory are attached to the run as the artifact `{run.artifact}`.",
        "",
        "Review it as you would any contribution: merging is up to you.",
    ]
    return f"{shareable_text(title)}\n\n" + _markdown_text(shareable_text("\n".join(body).strip())) + "\n"


def _markdown_text(text: str) -> str:
    """Text for GitHub's Markdown: a `<` outside code spans as `&lt;`, shown as written.

    Else GitHub takes `<tmp>` (a placeholder of `core.shareable`) or `List<String>` for an HTML
    tag and drops it.
    """
    parts = _CODE_SPAN.split(text)  # the spans are the odd parts
    return "".join(part if index % 2 else part.replace("<", "&lt;") for index, part in enumerate(parts))


def _fenced_diff(patch: str) -> list[str]:
    shown = patch if len(patch) <= _DIFF_LIMIT else patch[:_DIFF_LIMIT]
    fence = "````" if "```" in shown else "```"  # a diff of a Markdown file may hold a fence itself
    lines = [f"{fence}diff", shown.rstrip("\n"), fence]
    if len(patch) > _DIFF_LIMIT:
        lines.append(f"(the diff is cut at {_DIFF_LIMIT:,} characters: the whole patch is in the artifact)")
    return lines
