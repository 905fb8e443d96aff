"""What `bench validate` and `bench run` do, once their options are parsed (cli.bench declares them)."""

from __future__ import annotations

import importlib.util
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from buildfixer.agents.recipes import RECIPES
from buildfixer.bench import timings
from buildfixer.bench.data import resolve_model
from buildfixer.bench.dataset import Instance, check_repositories, dataset_dir, load_dataset, select_instances
from buildfixer.bench.executor import build_workers
from buildfixer.bench.progress_bar import run_with_progress
from buildfixer.bench.run import MAX_WORKERS, RunConfig, check_run_dir
from buildfixer.bench.validate import ValidationResult, validate_dataset
from buildfixer.buildsys.options import BuildOptions
from buildfixer.cli.settings import RunSettings, only_patterns, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.harness.checks import (
    MAX_REPEATS,
    check_jdk,
    check_number,
    check_output_path,
    check_seconds,
)
from buildfixer.harness.config_files import validated
from buildfixer.llm.factory import check_instance_models, check_model
from buildfixer.memory.store import FixMemory


def validation_line(result: ValidationResult) -> str:
    """One line per instance: mark, id, time, and why it is invalid (build text: controls spelled out)."""
    mark = "✓" if result.valid else "✗"
    line = f"{mark} {result.instance_id}  ({result.duration_s:.1f} s)"
    if result.reasons:
        line += "  " + "; ".join(result.reasons)
    return visible(line)


def selected(dataset: Path, only: list[str] | None) -> list[Instance]:
    """The dataset's instances --only picks, each with its repository there (checked before any work).

    Raises:
        BuildfixerError: An unreadable or malformed dataset, a pattern that matches nothing, or a
            repository path that does not exist.
    """
    instances = load_dataset(dataset)
    ids = [{"instance_id": i.instance_id} for i in instances]
    chosen = {i["instance_id"] for i in select_instances(ids, only_patterns(only))}
    instances = [i for i in instances if i.instance_id in chosen]
    check_repositories(instances, dataset_dir(dataset))
    return instances


def validate_command(
    dataset: Path, repeats: int, jdk: int | None, timeout: float, workers: int | None, only: list[str] | None,
    log_dir: Path | None, no_sandbox: bool, as_json: bool,
) -> int:  # fmt: skip
    """`bench validate`: 0 when every instance is valid, 1 otherwise."""
    check_number("--repeats", repeats, whole=True, low=1, high=MAX_REPEATS)
    if workers is not None:
        check_number("--workers", workers, whole=True, low=1, high=MAX_WORKERS)
    check_seconds("--timeout", timeout)
    check_jdk(jdk)
    if log_dir is not None:
        check_output_path("--log-dir", log_dir, directory=True)
    workers = workers or build_workers()
    instances = selected(dataset, only)
    options = with_sandbox(BuildOptions(jdk=jdk, timeout_s=timeout), no_sandbox)
    if not as_json:
        guess = timings.estimate_s(instances, repeats, workers, timings.load(options.cache_dir))
        typer.echo(
            f"validating {len(instances)} instance(s), base and gold builds × {repeats} repeat(s), "
            f"{workers} worker(s): {timings.in_words(guess)}"
        )

    def progress(event: str, data: dict[str, Any]) -> None:
        if event != "validated" or as_json:
            return
        result: ValidationResult = data["result"]
        left = f" · {timings.in_words(data['left_s'])} left" if data["done"] < data["total"] else ""
        typer.echo(f"[{data['done']}/{data['total']}] {validation_line(result)}{left}")
        for warning in result.warnings:
            typer.echo(f"    warning: {visible(warning)}")

    started = time.monotonic()
    results = validate_dataset(
        instances,
        dataset_dir(dataset),
        options,
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


def check_memory(memory: Any) -> Path | None:
    """A `bench run --memory` value (a path from the command line or a config file), absolute.

    Raises:
        BuildfixerError: Not a path, or a place no database file can be.
    """
    if memory is None:
        return None
    if not isinstance(memory, str | Path) or not str(memory).strip():
        raise BuildfixerError(f"--memory must name a database file, got {memory!r}")
    path = Path(memory).expanduser().absolute()
    check_output_path("--memory", path, directory=False)
    return path


def run_config(settings: RunSettings) -> RunConfig:
    """The validated RunConfig of `bench run`'s settings (its flags over its config file).

    Raises:
        BuildfixerError: The first bad value (the attempt's, --memory, then the run's), in one line.
    """
    model = resolve_model(settings.model)
    if settings.agent == RECIPES:
        model = RECIPES
    options = with_sandbox(BuildOptions(), settings.no_sandbox)
    attempt = replace(settings, model=model).attempt_config(options=options)
    return validated(RunConfig, {
        "attempt": attempt, "samples": settings.samples, "workers": settings.workers,
        "attempt_timeout_s": settings.attempt_timeout, "build_timeout_s": settings.build_timeout,
        "backend": settings.backend, "memory": check_memory(settings.memory),
    })  # fmt: skip


def run_command(
    dataset: Path, out: Path, settings: RunSettings, only: list[str] | None, as_json: bool
) -> None:
    """`bench run` with its settings: everything checked before anything is written.

    The order: the settings, the dataset and its repositories, the run directory, then the model
    (which may import litellm); a bad value of any is one line and exit 2, with nothing written.
    """
    config = run_config(settings)
    if config.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise BuildfixerError("the ray backend needs Ray: pip install 'buildfixer[ray]'")
    instances = [instance.to_dict() for instance in selected(dataset, only)]
    check_run_dir(out, config)
    if config.attempt.judge_model:
        check_model(config.attempt.judge_model, **config.attempt.model_settings.model_kwargs())
    if config.attempt.needs_model():
        if config.attempt.model == "none":  # the default of --model, for the agents that need none
            raise BuildfixerError(f"the {config.agent} agent needs a model (--model openai/gpt-4.1, ...)")
        kwargs = config.attempt.model_settings.model_kwargs()
        check_instance_models(config.attempt.model, [i["instance_id"] for i in instances], **kwargs)
    if config.memory is not None and config.memory.exists():
        FixMemory(config.memory).close()  # one that is no fix memory: refused before any attempt
    rows = run_with_progress(instances, dataset_dir(dataset), config, out, config.workers, config.backend)
    resolved = sum(r["resolved"] for r in rows)
    if as_json:
        typer.echo(json.dumps({"out": str(out), "attempts": len(rows), "resolved": resolved}))
    else:
        typer.echo(f"{resolved}/{len(rows)} attempts resolved; report: buildfixer bench report {out}")
