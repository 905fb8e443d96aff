"""What the `buildfixer curate` mining modes do, once their options are parsed (cli.curate declares them).

Every option is checked before anything is written or built (the repository's mirror, the
dataset, its state file): a bad one is one line and exit 2.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path
from typing import Any

import typer

from buildfixer.bench.dataset import load_dataset
from buildfixer.bench.executor import BACKENDS
from buildfixer.bench.run import MAX_WORKERS
from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.cli.commands import check_jdk
from buildfixer.cli.settings import MAX_REPEATS, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.candidates import read_ranges
from buildfixer.curate.filters import Limits
from buildfixer.curate.progress import curate_with_progress
from buildfixer.curate.run import curate
from buildfixer.harness.config import check_number, check_output_path, check_seconds
from buildfixer.llm.factory import check_model
from buildfixer.memory.trust import instance_domain
from buildfixer.workspace.git import git
from buildfixer.workspace.workspace import normalize_source

MAX_LIMIT = 10**9  # commits or merges looked at
MAX_FIX_FILES = 10**6
MAX_FIX_LINES = 10**9


def check_numbers(args: dict[str, Any]) -> None:
    """The numeric options of a mining mode, each in its range.

    Raises:
        BuildfixerError: The first one out of range, naming it.
    """
    check_number("--repeats", args["repeats"], whole=True, low=1, high=MAX_REPEATS)
    if args["workers"] is not None:
        check_number("--workers", args["workers"], whole=True, low=1, high=MAX_WORKERS)
    if args["limit"] is not None:
        check_number("--limit", args["limit"], whole=True, low=1, high=MAX_LIMIT)
    check_number("--max-files", args["max_files"], whole=True, low=1, high=MAX_FIX_FILES)
    check_number("--max-lines", args["max_lines"], whole=True, low=1, high=MAX_FIX_LINES)
    check_seconds("--timeout", args["timeout"])
    check_jdk(args["jdk"])


def check_out(out: Path) -> None:
    """--out must be a file that is absent, empty, or a dataset (the instances are added to it).

    Raises:
        BuildfixerError: A directory, a path under a file, or a file that is not a dataset.
    """
    check_output_path("--out", out, directory=False)
    if out.is_file() and out.stat().st_size > 0:
        load_dataset(out)  # curation rewrites it from its state: never over something else


def check_repository(repo: str, rev: str) -> str:
    """The repository as curation keys it, which must exist; a local one must hold `rev`.

    Raises:
        BuildfixerError: No such repository, not a git repository, or no such revision.
    """
    source = normalize_source(repo)
    if Path(source).is_dir():  # a bundle or a URL is only read once mirrored
        found = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", cwd=Path(source), check=False)
        if not found.strip():
            raise BuildfixerError(f"no commit {rev!r} in {repo}")
    return source


def run_mode(mode: str, args: dict[str, Any]) -> None:
    """Check the options (exit 2 on a bad one), mine, print the summary."""
    if args["system"] not in (None, "gradle", "maven", "python", "npm"):
        raise BuildfixerError(f"unknown build system {args['system']!r} (gradle, maven, python or npm)")
    if args["name"] is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args["name"]):
        raise BuildfixerError(f"--name must be letters, digits, '.', '_' or '-': {args['name']!r}")
    if args["backend"] not in BACKENDS:
        raise BuildfixerError(f"unknown backend {args['backend']!r} (known: {', '.join(BACKENDS)})")
    if args["backend"] == "ray" and importlib.util.find_spec("ray") is None:
        raise BuildfixerError("the ray backend needs Ray: pip install 'buildfixer[ray]'")
    if args["build_command"] is not None:
        try:
            words = shlex.split(args["build_command"])
        except ValueError as exc:  # an unbalanced quote
            raise BuildfixerError(f"--build-command: {exc}") from None
        if not words:
            raise BuildfixerError("--build-command must name a task, goal or script (got nothing)")
    check_numbers(args)
    check_out(args["out"])
    if args["build_cache"] is not None:
        check_output_path("--build-cache", args["build_cache"], directory=True)
    check_repository(args["repo"], args["rev"])
    ranges = read_ranges(args["ranges"]) if args.get("ranges") else None
    notes = None
    if args.get("notes"):
        try:
            notes = args["notes"].read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise BuildfixerError(f"cannot read release notes {args['notes']}: {why}") from None
    model = args.get("model")
    if model:
        check_model(model)  # a script is read, a provider and its key checked: now, not after builds
    options = BuildOptions(
        jdk=args["jdk"], timeout_s=args["timeout"],
        tasks=shlex.split(args["build_command"]) if args["build_command"] else None,
        trust_domain=cache_domain(instance_domain(args["repo"])),  # the caches of this repository's builds
    )  # fmt: skip
    with_sandbox(options, args["no_sandbox"])
    kwargs = {
        "rev": args["rev"], "limit": args["limit"], "model": model, "notes": notes, "options": options,
        "ranges": ranges, "repeats": args["repeats"],
        "limits": Limits(args["max_files"], args["max_lines"]), "as_of": args["as_of"],
        "workers": args["workers"], "backend": args["backend"], "build_cache": args["build_cache"],
        "system": args["system"], "name": args["name"],
    }  # fmt: skip
    summary = curate_with_progress(curate, mode, args["repo"], args["out"], kwargs)
    if args["as_json"]:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
        return
    typer.echo(summary.text(args["out"]))
