"""What `bench validate` and `bench run` do, once their options are parsed (cli.bench declares them)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer

from buildfixer.agents.registry import get_agent
from buildfixer.bench.dataset import dataset_dir, load_dataset, select_instances
from buildfixer.bench.executor import default_workers
from buildfixer.bench.run import RunConfig
from buildfixer.bench.run_view import run_with_progress
from buildfixer.bench.validate import ValidationResult, validate_dataset
from buildfixer.buildsys.options import BuildOptions
from buildfixer.cli.settings import attempt_config, only_patterns
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.config import validated
from buildfixer.llm.factory import check_instance_models


def result_line(result: ValidationResult) -> str:
    """One line per instance: mark, id, time, and why it is invalid."""
    mark = "✓" if result.valid else "✗"
    line = f"{mark} {result.instance_id}  ({result.duration_s:.1f} s)"
    if result.reasons:
        line += "  " + "; ".join(result.reasons)
    return line


def validate(
    dataset: Path, repeats: int, jdk: int | None, timeout: float, workers: int | None, only: list[str] | None,
    log_dir: Path | None, as_json: bool,
) -> int:  # fmt: skip
    """`bench validate`: 0 when every instance is valid, 1 otherwise."""
    if repeats < 1:
        raise BuildfixerError("--repeats must be at least 1")
    if workers is not None and workers < 1:
        raise BuildfixerError("--workers must be at least 1")
    workers = workers or default_workers()
    instances = load_dataset(dataset)
    chosen = {i["instance_id"] for i in select_instances([{"instance_id": i.instance_id} for i in instances],
                                                         only_patterns(only))}  # fmt: skip
    instances = [i for i in instances if i.instance_id in chosen]

    def progress(event: str, data: dict[str, Any]) -> None:
        if event != "validated" or as_json:
            return
        result: ValidationResult = data["result"]
        typer.echo(f"[{data['done']}/{data['total']}] {result_line(result)}")
        for warning in result.warnings:
            typer.echo(f"    warning: {warning}")

    started = time.monotonic()
    results = validate_dataset(
        instances,
        dataset_dir(dataset),
        BuildOptions(jdk=jdk, timeout_s=timeout),
        repeats=repeats,
        workers=workers,
        progress=progress,
        log_dir=log_dir,
    )
    valid = sum(r.valid for r in results)
    if as_json:
        data = {"valid": valid, "total": len(results), "instances": [r.to_dict() for r in results]}
        typer.echo(json.dumps(data, indent=2))
    else:
        elapsed = time.monotonic() - started
        typer.echo(f"{valid}/{len(results)} instances valid ({elapsed:.0f} s, {workers} worker(s))")
    return 0 if valid == len(results) else 1


def run(dataset: Path, out: Path, values: dict[str, Any], only: list[str] | None, as_json: bool) -> None:
    """`bench run` with its merged option values: everything checked before the first attempt."""
    if values["agent"] == "recipes":
        values["model"] = "recipes"
    config = validated(RunConfig, {
        "attempt": attempt_config(values), "samples": values["samples"], "workers": values["workers"],
        "attempt_timeout_s": values["attempt_timeout"], "build_timeout_s": values["build_timeout"],
        "backend": values["backend"],
    })  # fmt: skip
    everything = [instance.to_dict() for instance in load_dataset(dataset)]
    instances = select_instances(everything, only_patterns(only))
    if get_agent(config.agent).uses_model:
        check_instance_models(config.attempt.model, [i["instance_id"] for i in instances])
    rows = run_with_progress(instances, dataset_dir(dataset), config, out, config.workers, config.backend)
    resolved = sum(r["resolved"] for r in rows)
    if as_json:
        typer.echo(json.dumps({"out": str(out), "attempts": len(rows), "resolved": resolved}))
    else:
        typer.echo(f"{resolved}/{len(rows)} attempts resolved; report: buildfixer bench report {out}")
