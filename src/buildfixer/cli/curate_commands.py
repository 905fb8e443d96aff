"""What the `buildfixer curate` mining modes do, once their options are parsed (cli.curate declares them).

Every option is checked before anything is written or built (the repository's mirror, the
dataset, its state file): a bad one is one line and exit 2. The command line's text inputs (the
build command, the ranges and release notes files) are read here; everything else is checked
by the CurateConfig they make (curate.config).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import typer

from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.cli.settings import with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.candidates import read_ranges
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.filters import SizeLimits
from buildfixer.curate.progress import curate_with_progress
from buildfixer.curate.run import curate
from buildfixer.memory.trust import instance_domain


def build_tasks(build_command: str | None) -> list[str] | None:
    """The tasks/goals/scripts of a --build-command (None: the build system's default).

    Raises:
        BuildfixerError: An unbalanced quote, or no word at all.
    """
    if build_command is None:
        return None
    try:
        words = shlex.split(build_command)
    except ValueError as exc:  # an unbalanced quote
        raise BuildfixerError(f"--build-command: {exc}") from None
    if not words:
        raise BuildfixerError("--build-command must name a task, goal or script (got nothing)")
    return words


def read_notes(notes: Path) -> str:
    """The text of a --notes file.

    Raises:
        BuildfixerError: Unreadable, or not text.
    """
    try:
        return notes.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise BuildfixerError(f"cannot read release notes {notes}: {why}") from None


@dataclass(frozen=True, kw_only=True)
class CurateSettings:
    """A mining command's options as given (cli.curate declares them); `curate_config` checks them.

    `ranges` is the human mode's, `model` and `notes` the llm mode's (None in the other modes).
    """

    mode: str
    repo: str
    out: Path
    rev: str
    limit: int | None
    workers: int | None
    backend: str
    repeats: int
    max_files: int
    max_lines: int
    jdk: int | None
    name: str | None
    system: str | None
    build_command: str | None
    timeout: float
    as_of: bool
    build_cache: Path | None
    no_sandbox: bool
    ranges: Path | None = None
    max_commits: int = 3  # human mode: the fix at most this many commits after the failure
    model: str | None = None
    notes: Path | None = None


def curate_config(settings: CurateSettings) -> CurateConfig:
    """The validated configuration of a mining command.

    Raises:
        BuildfixerError: The first bad option, in one line, before anything is written or built.
    """
    options = BuildOptions(
        jdk=settings.jdk, timeout_s=settings.timeout, tasks=build_tasks(settings.build_command),
        trust_domain=cache_domain(instance_domain(settings.repo)),  # the caches of this repository's builds
    )  # fmt: skip
    with_sandbox(options, settings.no_sandbox)
    return CurateConfig(
        mode=settings.mode, source=settings.repo, out=settings.out, rev=settings.rev, limit=settings.limit,
        ranges=read_ranges(settings.ranges) if settings.ranges else None, model=settings.model,
        notes=read_notes(settings.notes) if settings.notes else None, options=options,
        limits=SizeLimits(settings.max_files, settings.max_lines, settings.max_commits),
        repeats=settings.repeats,
        as_of=settings.as_of, workers=settings.workers, backend=settings.backend,
        build_cache=settings.build_cache, system=settings.system, name=settings.name,
    )  # fmt: skip


def mine(settings: CurateSettings, as_json: bool) -> None:
    """Check the options (exit 2 on a bad one), mine, print the summary."""
    config = curate_config(settings)
    summary = curate_with_progress(curate, config)
    if as_json:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
        return
    typer.echo(summary.text(config.out))
