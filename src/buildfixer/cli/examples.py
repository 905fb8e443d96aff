"""The main job on the bundled examples: build each broken example, show its failure and category."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from buildfixer.agents.recipes import RECIPES
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.jdk_pin import VERSION_FILES
from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.buildsys.project import stop_daemons
from buildfixer.cli.build_render import shown
from buildfixer.cli.fix_render import print_patch
from buildfixer.cli.settings import NO_SANDBOX_NOTE, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.delivery.fix import fix_project
from buildfixer.examples import Example, load_examples, materialize
from buildfixer.harness.checks import check_output_path
from buildfixer.harness.config import AttemptConfig
from buildfixer.llm.factory import check_model

# The bundled examples are buildfixer's own: their builds share one set of caches.
EXAMPLES_DOMAIN = cache_domain("examples")


def _select(only: list[str]) -> list[Example]:
    examples = load_examples()
    if not only:
        return examples
    chosen = [e for e in examples if e.name in only or e.project in only]
    unknown = [n for n in only if not any(n in (e.name, e.project) for e in examples)]
    if unknown:
        raise BuildfixerError(f"unknown example(s): {', '.join(unknown)} (see `buildfixer examples --list`)")
    return chosen


def run_example(example: Example, root: Path, no_sandbox: bool = False) -> dict[str, Any]:
    """Materialize one example under root, build it, and compare the category with the expected one."""
    project = materialize(example, root / example.name.replace("/", "__"))
    options = with_sandbox(
        BuildOptions(jdk=example.jdk, timeout_s=900, trust_domain=EXAMPLES_DOMAIN), no_sandbox
    )
    try:
        result, _ = build_and_analyze(project, options)
    finally:
        stop_daemons(project, options)
    root_error = result.errors[0] if result.errors else None
    return {
        "name": example.name,
        "build_system": result.build_system,
        "expected_category": example.category,
        "status": result.status,
        "category": result.category,
        "matches": result.status == "failure" and result.category == example.category,
        "root_error": root_error.to_dict() if root_error else None,
        "duration_s": round(result.duration_s, 2),
        "log_path": result.log_path,
        "sandbox": options.sandbox,
    }


def fix_example(example: Example, root: Path, model: str, no_sandbox: bool = False) -> dict[str, Any]:
    """Materialize one example and repair it with `buildfixer fix` (recipes, or a real model)."""
    project = materialize(example, root / example.name.replace("/", "__"))
    config = AttemptConfig(
        model=model,
        options=with_sandbox(
            BuildOptions(jdk=example.jdk, timeout_s=900, trust_domain=EXAMPLES_DOMAIN), no_sandbox
        ),
        trajectory_path=root / "trajectories" / f"{example.name.replace('/', '__')}.json",
    )
    outcome = fix_project(project, config)
    attempt = outcome.attempt
    return {
        "name": example.name,
        "build_system": example.build_system,
        "category": example.category,
        "resolved": attempt.resolved,
        "stop_reason": attempt.stop_reason,
        "llm_calls": attempt.llm_calls,
        "changed_files": outcome.changed_files,
        "jdk": attempt.jdk,
        "duration_s": round(attempt.duration_s, 1),
        "trajectory": str(outcome.trajectory_path),
        "sandbox": config.options.sandbox,
        "project": str(project),
        "patch": outcome.patch,
    }


def check_choices(list_only: bool, fix: bool, model: str | None, keep: Path | None) -> str | None:
    """The model to repair with (None: only build), once the options are known to fit together.

    Raises:
        BuildfixerError: --list with --fix or --keep, --model without --fix, a --keep that cannot
            be a directory, or a model that could not answer (checked before any build).
    """
    if list_only and (fix or keep is not None):
        raise BuildfixerError("--list only lists the examples: give it without --fix and --keep")
    if model is not None and not fix:
        raise BuildfixerError("--model is the model of --fix: give both, or neither")
    if keep is not None:
        check_output_path("--keep", keep, directory=True)
    if not fix:
        return None
    model = model or RECIPES
    if model != RECIPES:
        check_model(model)
    return model


def run_examples(
    only: list[str], keep: Path | None, list_only: bool, as_json: bool, fix: bool = False,
    model: str | None = None, no_sandbox: bool = False,
) -> int:  # fmt: skip
    """Build (or repair) the selected examples one by one, printing each verdict as it comes.

    Returns 0 when every example failed as expected (or, when repairing, when the run completed).
    """
    out = Console(highlight=False, soft_wrap=True)
    examples = _select(only)
    fix_model = check_choices(list_only, fix, model, keep)
    if list_only:
        for e in examples:
            out.print(f"{e.name:<40} {e.build_system:<7} {e.category:<20} {shown(e.description)}")
        return 0
    root = keep or Path(tempfile.mkdtemp(prefix="buildfixer-examples-"))
    rows = []
    try:
        for index, example in enumerate(examples, 1):
            if not as_json:
                verb = "repairing" if fix_model else "building"
                out.print(f"[dim][{index}/{len(examples)}] {verb} {example.name} ...[/]")
            if fix_model:
                row = fix_example(example, root, fix_model, no_sandbox)
            else:
                row = run_example(example, root, no_sandbox)
            rows.append(row)
            if not as_json:
                _print_fix_row(out, row) if fix_model else _print_row(out, row)
    finally:
        if keep is None and not fix_model:  # repaired copies are the point of --fix: they stay
            shutil.rmtree(root, ignore_errors=True)
    if not as_json and no_sandbox:
        out.print(NO_SANDBOX_NOTE)
    if fix_model:
        return _fix_summary(out, rows, as_json, root)
    matched = sum(r["matches"] for r in rows)
    if as_json:
        print(json.dumps({"examples": rows, "matched": matched, "total": len(rows)}, indent=2))
    else:
        out.print(f"\n{matched}/{len(rows)} examples failed with their expected category")
    return 0 if matched == len(rows) else 1


def _print_row(out: Any, row: dict[str, Any]) -> None:

    mark = "[green]ok[/]" if row["matches"] else "[red]MISMATCH[/]"
    error = row["root_error"] or {}
    where = ":".join(str(error[k]) for k in ("file", "line") if error.get(k) is not None)
    message = (error.get("message") or "").strip().splitlines()[:1]
    out.print(
        f"  {mark} {row['status']} in {row['duration_s']}s, category [magenta]{row['category']}[/]"
        f" (expected {row['expected_category']})"
    )
    if message:
        location = shown(where + " ") if where else ""
        out.print(f"     root error ({error.get('tool')}): {location}{shown(message[0])}")


def _print_fix_row(out: Any, row: dict[str, Any]) -> None:

    if row["resolved"]:
        files = ", ".join(row["changed_files"]) or "no file"
        pins = [name for name in VERSION_FILES if name in row["changed_files"]]
        jdk = f"; JDK {row['jdk']} pinned in {', '.join(pins)}" if pins else ""
        jdk = jdk or (f"; build with JDK {row['jdk']}" if row["jdk"] else "")
        out.print(f"  [green]repaired[/] in {row['duration_s']}s: {shown(files)}{jdk}")
        if row["patch"]:
            print_patch(out, row["patch"])
    else:
        out.print(f"  [yellow]not repaired[/]: {shown(row['stop_reason'])}")


def _fix_summary(out: Any, rows: list[dict[str, Any]], as_json: bool, root: Path) -> int:
    repaired = sum(r["resolved"] for r in rows)
    if as_json:
        print(
            json.dumps(
                {"examples": rows, "repaired": repaired, "total": len(rows), "copies": str(root)}, indent=2
            )
        )
    else:
        out.print(f"\n{repaired}/{len(rows)} examples repaired; the others were left as they were")
        out.print(
            f"the copies, repaired or not, are in {shown(root)} (one folder per example; --keep DIR chooses)"
        )
        out.print(
            f"[dim]trajectories: {shown(root / 'trajectories')} (open one with `buildfixer view FILE`)[/]"
        )
    return 0
