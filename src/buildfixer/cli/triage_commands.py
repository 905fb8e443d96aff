"""What `buildfixer triage` does once its options are parsed (cli.triage declares it; docs/TRIAGE.md).

Imported when the command runs (and by `fix`'s output): the build layer and triage load with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.project import detect_build_system
from buildfixer.cli.settings import NO_SANDBOX_NOTE, with_sandbox
from buildfixer.core.terminal import visible
from buildfixer.harness.checks import check_jdk, check_number, check_seconds
from buildfixer.triage import Triage, find_base, triage

# More would only make triage endless: a rerun and the base are the builds it has a use for.
MAX_TRIAGE_BUILDS = 10


def run_triage(
    path: Path, base: str | None, max_builds: int, jdk: int | None, timeout: float, offline: bool,
    no_sandbox: bool, as_json: bool,
) -> int:  # fmt: skip
    """Check the input, build once, triage; the exit code.

    Raises:
        BuildfixerError: Bad input (a bad number, no build at PATH, a base that is no ref), before any build.
    """
    check_seconds("--timeout", timeout)
    check_jdk(jdk)
    check_number("--max-builds", max_builds, whole=True, low=0, high=MAX_TRIAGE_BUILDS)
    system = detect_build_system(path)
    project = path.resolve()
    found, note = find_base(project, base)
    options = BuildOptions(jdk=jdk, timeout_s=timeout, offline=offline, trust_domain=project_domain(project))
    with_sandbox(options, no_sandbox)
    progress = None if as_json else _progress
    first, _ = build_and_analyze(project, options, system)
    verdict = triage(
        first, project, max_builds=max_builds, rebuild=lambda: build_and_analyze(project, options, system)[0],
        base=found, base_note=note, options=options, system=system, progress=progress,
    )  # fmt: skip
    if as_json:
        typer.echo(json.dumps({**verdict.to_dict(), "sandbox": options.sandbox}, indent=2))
    else:
        for line in triage_lines(verdict):
            typer.echo(line)
        if no_sandbox:
            typer.echo(NO_SANDBOX_NOTE)
    return 0 if first.ok else 1


def _progress(event: str, data: dict[str, Any]) -> None:
    """Each build triage starts, on stderr (stdout is the verdict)."""
    if event == "build":
        print(f"… {build_label(data)}", file=sys.stderr, flush=True)


def build_label(data: dict[str, Any]) -> str:
    """What a triage build is, in words (a `build` event's data, phase `triage-rerun` or `triage-base`)."""
    if data.get("phase") == "triage-base":
        return f"triage: building the base commit ({visible(str(data.get('ref', '')))})"
    return "triage: building again, unchanged"


def triage_lines(verdict: Triage) -> list[str]:
    """The verdict for a terminal: class, confidence and basis, then the evidence, one line each."""
    if verdict.kind is None:
        return [verdict.basis]
    lines = [f"{verdict.kind.upper()} (confidence {verdict.confidence:.2f}): {verdict.basis}"]
    lines.append(f"  first build: {_build(verdict.first)}")
    lines += [f"  signal ({s.kind}): {s.detail}" for s in verdict.signals]
    lines += [
        f"  known to flap: {t['test']} in {t['file'] or '?'} ({t['marker']})" for t in verdict.known_flaky
    ]
    for number, rerun in enumerate(verdict.reruns, 1):
        same = ", the same failure" if rerun["same_failure"] else ", another failure"
        same = "" if rerun["status"] == "success" else same
        lines.append(f"  built again ({number}): {_build(rerun)}{same}")
    if verdict.base is not None:
        base = verdict.base
        same = ", the same failure" if base["same_failure"] else ""
        lines.append(f"  base {base['ref']} at {base['commit'][:12]}: {_build(base)}{same}")
    lines += [f"  note: {note}" for note in verdict.notes]
    lines.append(f"  triage: {verdict.builds} build(s) besides the first, {verdict.seconds:.1f}s")
    return [visible(line) for line in lines]


def _build(summary: dict[str, Any]) -> str:
    """A build's summary in one line: status, time, category and root error."""
    text = f"{summary['status']} in {summary['duration_s']:.1f}s"
    if summary.get("root_error"):
        text += f" · {summary['category']} · {summary['root_error']}"
    return text
