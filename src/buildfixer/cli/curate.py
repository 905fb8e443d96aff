"""The `buildfixer curate` commands: `human`, `dependency`, `llm` mine instances; `split` splits them.

Imported at CLI start-up: only typer at module level, the rest inside the commands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

curate_app = typer.Typer(
    name="curate",
    help="Mine build-failure instances from a repository's history (human, dependency, llm); split them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_HELP = {
    "human": "Failing commits inside merged branches (or --ranges) whose branch builds later; gold = "
    "the diff to the next commit that builds.",
    "dependency": "Commits changing build files and source: revert the build-file half; if that fails, "
    "gold = the build-file changes.",
    "llm": "A model re-implements a commit from its message; if its version fails, gold = the human commit.",
}


def _mode_command(mode: str) -> Callable[..., None]:
    def command(
        repo: Annotated[str, typer.Argument(help="Repository path, URL or git bundle (never modified).")],
        out: Annotated[Path, typer.Option(help="Dataset file (JSONL) to add the instances to.")],
        model: Annotated[str | None, typer.Option(help="Model of the llm mode (or scripted:DIR).")] = None,
        rev: Annotated[str, typer.Option(help="Read history from this revision.")] = "HEAD",
        limit: Annotated[
            int | None, typer.Option(help="Merges (human) or commits looked at, newest first.")
        ] = None,
        ranges: Annotated[
            Path | None, typer.Option(help="human: file of BASE..HEAD PR ranges instead of merges.")
        ] = None,
        notes: Annotated[Path | None, typer.Option(help="llm: release notes shown to the model.")] = None,
        workers: Annotated[
            int | None, typer.Option(help="Candidates at once (default: one per 2 cores).")
        ] = None,
        backend: Annotated[str, typer.Option(help="local, or ray.")] = "local",
        repeats: Annotated[int, typer.Option(help="Builds of each state (catches flaky ones).")] = 2,
        max_files: Annotated[int, typer.Option(help="Largest fix kept: files.")] = 50,
        max_lines: Annotated[int, typer.Option(help="Largest fix kept: lines changed.")] = 2000,
        jdk: Annotated[int | None, typer.Option(help="JDK to build with.")] = None,
        name: Annotated[
            str | None, typer.Option(help="Repository name in instance ids (default: from REPO).")
        ] = None,
        system: Annotated[
            str | None, typer.Option(help="gradle, maven, python or npm (default: detected).")
        ] = None,
        build_command: Annotated[str | None, typer.Option(help="Tasks/goals/scripts to build.")] = None,
        timeout: Annotated[float, typer.Option(help="Limit of one build, in seconds.")] = 900.0,
        as_of: Annotated[
            bool, typer.Option(help="Resolve unpinned dependencies as of each commit's date.")
        ] = True,
        build_cache: Annotated[
            Path | None, typer.Option(help="Folder of cached build results (default: in the cache).")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    ) -> None:
        _run_mode(mode, locals())

    command.__doc__ = _HELP[mode]
    return command


for _mode in _HELP:
    curate_app.command(name=_mode)(_mode_command(_mode))


def _run_mode(mode: str, args: dict[str, Any]) -> None:
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.core.errors import BuildfixerError
    from buildfixer.curate.candidates import read_ranges
    from buildfixer.curate.filters import Limits
    from buildfixer.curate.pipeline import curate
    from buildfixer.curate.progress import curate_with_progress

    if args["model"] and mode != "llm":
        raise BuildfixerError(f"--model is for the llm mode; the {mode} mode uses no model")
    if args["ranges"] and mode != "human":
        raise BuildfixerError("--ranges is for the human mode")
    if args["system"] not in (None, "gradle", "maven", "python", "npm"):
        raise BuildfixerError(f"unknown build system {args['system']!r} (gradle, maven, python or npm)")
    if args["name"] is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args["name"]):
        raise BuildfixerError(f"--name must be letters, digits, '.', '_' or '-': {args['name']!r}")
    if args["repeats"] < 1 or (args["workers"] is not None and args["workers"] < 1):
        raise BuildfixerError("--repeats and --workers must be at least 1")
    if mode == "llm" and args["model"]:
        from buildfixer.llm.factory import SCRIPTED_PREFIX, make_model

        if (
            args["model"].startswith(SCRIPTED_PREFIX)
            and not Path(args["model"][len(SCRIPTED_PREFIX) :]).is_dir()
        ):
            make_model(args["model"])  # a single script: check it now, not after the first builds
    notes = None
    if args["notes"]:
        try:
            notes = args["notes"].read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BuildfixerError(f"cannot read release notes {args['notes']}: {exc}") from None
    options = BuildOptions(
        jdk=args["jdk"], timeout_s=args["timeout"],
        tasks=args["build_command"].split() if args["build_command"] else None,
    )  # fmt: skip
    kwargs = {
        "rev": args["rev"], "limit": args["limit"], "model": args["model"], "notes": notes,
        "options": options,
        "ranges": read_ranges(args["ranges"]) if args["ranges"] else None, "repeats": args["repeats"],
        "limits": Limits(args["max_files"], args["max_lines"]), "as_of": args["as_of"],
        "workers": args["workers"], "backend": args["backend"], "build_cache": args["build_cache"],
        "system": args["system"], "name": args["name"],
    }  # fmt: skip
    summary = curate_with_progress(curate, mode, args["repo"], args["out"], kwargs)
    if args["as_json"]:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
        return
    typer.echo(summary.text(args["out"]))


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
    from buildfixer.curate.splits import write_splits

    counts = write_splits(dataset, out, val, test, subset, seed)
    if as_json:
        typer.echo(json.dumps(counts, indent=2))
    else:
        typer.echo(", ".join(f"{name}: {n}" for name, n in counts.items()) + f" (in {out})")
