"""buildfixer from Python without the command line: build, analyze, fix, run and read a benchmark.

Every function here is what the matching command does, minus the terminal. They are also
reachable as `buildfixer.build`, `buildfixer.fix`, ... (loaded on first use, so `import
buildfixer` stays cheap). Bad settings raise `BuildfixerError` before any build starts.

    import buildfixer

    result = buildfixer.build("path/to/project")
    if not result.ok:
        outcome = buildfixer.fix("path/to/project", model="recipes", dry_run=True)
        print(outcome.attempt.stop, outcome.patch)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.agents.tool_loop import Budget
from buildfixer.bench.data import resolve_dataset
from buildfixer.bench.dataset import Instance, dataset_dir, load_dataset, select_instances
from buildfixer.bench.run import RunConfig, run_benchmark
from buildfixer.bench.rundir import Run, load_run
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.core.build_result import BuildResult
from buildfixer.delivery.fix import FixOutcome, fix_project
from buildfixer.harness.config import AttemptConfig
from buildfixer.harness.config_files import validated
from buildfixer.logs.analyze import Analysis, analyze_file, analyze_text
from buildfixer.reports.run_report import build_report

__all__ = [
    "AttemptConfig", "BuildOptions", "Budget", "Instance", "RunConfig", "analyze", "build", "fix",
    "load_dataset", "read_run", "report", "run_benchmark_on",
]  # fmt: skip


def build(path: str | Path, options: BuildOptions | None = None) -> BuildResult:
    """Run the project's build (detected) and read its failure into errors, root error first."""
    return build_and_analyze(Path(path), options or BuildOptions(trust_domain=project_domain(Path(path))))[0]


def analyze(log: str | Path) -> Analysis:
    """Structured errors of a saved build log (a path) or of log text (a string with a newline)."""
    if isinstance(log, str) and "\n" in log:
        return analyze_text(log)
    return analyze_file(log)


def fix(path: str | Path, dry_run: bool = False, **settings: Any) -> FixOutcome:
    """Repair the project (in place unless `dry_run`); `settings` are AttemptConfig fields.

    Example: `fix(".", agent="tool", model="openai/gpt-4.1", budget=Budget(max_calls=20))`.
    """
    return fix_project(Path(path), validated(AttemptConfig, settings), dry_run=dry_run)


def run_benchmark_on(
    dataset: str | Path,
    out: str | Path,
    attempt: dict[str, Any] | AttemptConfig,
    only: str | None = None,
    **run: Any,
) -> list[dict[str, Any]]:
    """Run an attempt configuration on the instances of a dataset; resumable like `bench run`.

    `only` picks instances as `bench run --only` does (comma-separated ids or globs); `run` holds
    RunConfig fields (samples, workers, attempt_timeout_s, ...); `dataset` may be the name `bundled`.
    Returns the result lines.
    """
    config = validated(RunConfig, {"attempt": attempt, **run})
    path = resolve_dataset(Path(dataset))
    instances = select_instances([instance.to_dict() for instance in load_dataset(path)], only)
    return run_benchmark(instances, dataset_dir(path), config, Path(out))


def read_run(path: str | Path) -> Run:
    """A `bench run` directory: its result lines, instances and effective configuration."""
    return load_run(Path(path))


def report(path: str | Path) -> dict[str, Any]:
    """The report of a run directory as data (what `bench report --format json` prints)."""
    return build_report(load_run(Path(path)))
