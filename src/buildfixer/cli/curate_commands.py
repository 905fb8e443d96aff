"""What the `buildfixer curate` mining modes do, once their options are parsed (cli.curate declares them)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.candidates import read_ranges
from buildfixer.curate.filters import Limits
from buildfixer.curate.pipeline import curate
from buildfixer.curate.progress import curate_with_progress
from buildfixer.llm.factory import SCRIPTED_PREFIX, make_model


def run_mode(mode: str, args: dict[str, Any]) -> None:
    """Check the options (exit 2 on a bad one), mine, print the summary."""
    if args["system"] not in (None, "gradle", "maven", "python", "npm"):
        raise BuildfixerError(f"unknown build system {args['system']!r} (gradle, maven, python or npm)")
    if args["name"] is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args["name"]):
        raise BuildfixerError(f"--name must be letters, digits, '.', '_' or '-': {args['name']!r}")
    if args["repeats"] < 1 or (args["workers"] is not None and args["workers"] < 1):
        raise BuildfixerError("--repeats and --workers must be at least 1")
    model, ranges = args.get("model"), args.get("ranges")
    if model and model.startswith(SCRIPTED_PREFIX) and not Path(model[len(SCRIPTED_PREFIX) :]).is_dir():
        make_model(model)  # a single script: check it now, not after the first builds
    notes = None
    if args.get("notes"):
        try:
            notes = args["notes"].read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BuildfixerError(f"cannot read release notes {args['notes']}: {exc}") from None
    options = BuildOptions(
        jdk=args["jdk"], timeout_s=args["timeout"],
        tasks=args["build_command"].split() if args["build_command"] else None,
    )  # fmt: skip
    kwargs = {
        "rev": args["rev"], "limit": args["limit"], "model": model, "notes": notes, "options": options,
        "ranges": read_ranges(ranges) if ranges else None, "repeats": args["repeats"],
        "limits": Limits(args["max_files"], args["max_lines"]), "as_of": args["as_of"],
        "workers": args["workers"], "backend": args["backend"], "build_cache": args["build_cache"],
        "system": args["system"], "name": args["name"],
    }  # fmt: skip
    summary = curate_with_progress(curate, mode, args["repo"], args["out"], kwargs)
    if args["as_json"]:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
        return
    typer.echo(summary.text(args["out"]))
