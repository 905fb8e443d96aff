"""The `buildfixer curate` commands: `human`, `dependency`, `llm` mine instances; `split` splits them.

Imported at CLI start-up: only typer at module level; each mode's work is `cli.curate_commands`.
The three modes share most options but each declares only those it uses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from buildfixer.cli.settings import NoSandboxOpt

curate_app = typer.Typer(
    name="curate",
    help="Mine build-failure instances from a repository's history (human, dependency, llm); split them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Options every mining mode has.
RepoArg = Annotated[str, typer.Argument(help="Repository path, URL or git bundle (never modified).")]
OutOpt = Annotated[Path, typer.Option(help="Dataset file (JSONL) to add the instances to.")]
RevOpt = Annotated[str, typer.Option(help="Read history from this revision.")]
LimitOpt = Annotated[int | None, typer.Option(help="Merges (human) or commits looked at, newest first.")]
WorkersOpt = Annotated[int | None, typer.Option(help="Candidates at once (default: one per 2 cores).")]
BackendOpt = Annotated[str, typer.Option(help="local, or ray.")]
RepeatsOpt = Annotated[int, typer.Option(help="Builds of each state (catches flaky ones).")]
MaxFilesOpt = Annotated[int, typer.Option(help="Largest fix kept: files.")]
MaxLinesOpt = Annotated[int, typer.Option(help="Largest fix kept: lines changed.")]
JdkOpt = Annotated[int | None, typer.Option(help="JDK to build with.")]
NameOpt = Annotated[str | None, typer.Option(help="Repository name in instance ids (default: from REPO).")]
SystemOpt = Annotated[str | None, typer.Option(help="gradle, maven, python or npm (default: detected).")]
BuildCommandOpt = Annotated[str | None, typer.Option(help="Tasks/goals/scripts to build.")]
TimeoutOpt = Annotated[float, typer.Option(help="Limit of one build, in seconds.")]
AsOfOpt = Annotated[bool, typer.Option(help="Resolve unpinned dependencies as of each commit's date.")]
BuildCacheOpt = Annotated[
    Path | None, typer.Option(help="Folder of cached build results (default: in the cache).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


@curate_app.command()
def human(
    repo: RepoArg,
    out: OutOpt,
    ranges: Annotated[
        Path | None, typer.Option(help="File of BASE..HEAD PR ranges instead of merges.")
    ] = None,
    max_commits: Annotated[
        int, typer.Option(help="Largest fix kept: commits from the failure to the first that builds.")
    ] = 3,
    rev: RevOpt = "HEAD",
    limit: LimitOpt = None,
    workers: WorkersOpt = None,
    backend: BackendOpt = "local",
    repeats: RepeatsOpt = 2,
    max_files: MaxFilesOpt = 50,
    max_lines: MaxLinesOpt = 2000,
    jdk: JdkOpt = None,
    name: NameOpt = None,
    system: SystemOpt = None,
    build_command: BuildCommandOpt = None,
    timeout: TimeoutOpt = 900.0,
    as_of: AsOfOpt = True,
    build_cache: BuildCacheOpt = None,
    no_sandbox: NoSandboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Failing commits in merged branches (or --ranges) that build later; gold = the diff to that build."""
    from buildfixer.cli import curate_commands  # lazy: curation imports pydantic and the harness

    curate_commands.mine(curate_commands.CurateSettings(
        mode="human", repo=repo, out=out, ranges=ranges, max_commits=max_commits,
        rev=rev, limit=limit, workers=workers, backend=backend, repeats=repeats, max_files=max_files,
        max_lines=max_lines, jdk=jdk, name=name, system=system, build_command=build_command, timeout=timeout,
        as_of=as_of, build_cache=build_cache, no_sandbox=no_sandbox,
    ), as_json)  # fmt: skip


@curate_app.command()
def dependency(
    repo: RepoArg,
    out: OutOpt,
    rev: RevOpt = "HEAD",
    limit: LimitOpt = None,
    workers: WorkersOpt = None,
    backend: BackendOpt = "local",
    repeats: RepeatsOpt = 2,
    max_files: MaxFilesOpt = 50,
    max_lines: MaxLinesOpt = 2000,
    jdk: JdkOpt = None,
    name: NameOpt = None,
    system: SystemOpt = None,
    build_command: BuildCommandOpt = None,
    timeout: TimeoutOpt = 900.0,
    as_of: AsOfOpt = True,
    build_cache: BuildCacheOpt = None,
    no_sandbox: NoSandboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Commits changing build files and source: revert the build-file half; gold = the build-file changes."""
    from buildfixer.cli import curate_commands  # lazy: curation imports pydantic and the harness

    curate_commands.mine(curate_commands.CurateSettings(
        mode="dependency", repo=repo, out=out,
        rev=rev, limit=limit, workers=workers, backend=backend, repeats=repeats, max_files=max_files,
        max_lines=max_lines, jdk=jdk, name=name, system=system, build_command=build_command, timeout=timeout,
        as_of=as_of, build_cache=build_cache, no_sandbox=no_sandbox,
    ), as_json)  # fmt: skip


@curate_app.command()
def llm(
    repo: RepoArg,
    out: OutOpt,
    model: Annotated[str, typer.Option(help="The model that re-implements each commit (or scripted:DIR).")],
    notes: Annotated[Path | None, typer.Option(help="Release notes shown to the model.")] = None,
    rev: RevOpt = "HEAD",
    limit: LimitOpt = None,
    workers: WorkersOpt = None,
    backend: BackendOpt = "local",
    repeats: RepeatsOpt = 2,
    max_files: MaxFilesOpt = 50,
    max_lines: MaxLinesOpt = 2000,
    jdk: JdkOpt = None,
    name: NameOpt = None,
    system: SystemOpt = None,
    build_command: BuildCommandOpt = None,
    timeout: TimeoutOpt = 900.0,
    as_of: AsOfOpt = True,
    build_cache: BuildCacheOpt = None,
    no_sandbox: NoSandboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """A model re-implements a commit from its message; if its version fails, gold = the human commit."""
    from buildfixer.cli import curate_commands  # lazy: curation imports pydantic and the harness

    curate_commands.mine(curate_commands.CurateSettings(
        mode="llm", repo=repo, out=out, model=model, notes=notes,
        rev=rev, limit=limit, workers=workers, backend=backend, repeats=repeats, max_files=max_files,
        max_lines=max_lines, jdk=jdk, name=name, system=system, build_command=build_command, timeout=timeout,
        as_of=as_of, build_cache=build_cache, no_sandbox=no_sandbox,
    ), as_json)  # fmt: skip


@curate_app.command()
def split(
    dataset: Annotated[Path, typer.Argument(help="A curated dataset (.jsonl).")],
    out: Annotated[Path, typer.Option(help="Folder for train/val/test.jsonl (and test_subset.jsonl).")],
    val: Annotated[float, typer.Option(help="Share of instances in val.")] = 0.1,
    test: Annotated[float, typer.Option(help="Share of instances in test (the newest).")] = 0.2,
    subset: Annotated[int | None, typer.Option(help="Also a random test subset of this size.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the subset.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Time-ordered train/val/test splits (newest = test) and a random test subset by origin."""
    from buildfixer.curate.splits import write_splits  # lazy: reads datasets with pydantic

    counts = write_splits(dataset, out, val, test, subset, seed)  # checks everything before writing
    if as_json:
        typer.echo(json.dumps(counts, indent=2))
    else:
        typer.echo(", ".join(f"{name}: {n}" for name, n in counts.items()) + f" (in {out})")
