"""A trajectory file shown as a run of one attempt: the file `buildfixer fix` writes and prints the path of.

A `fix` leaves no result line, so the attempt's row is made from the trajectory itself (its meta,
usage and verdict, agents.trajectory). A trajectory holds no patch (`fix` prints and applies it):
the row's patch is None, which the page shows as "not recorded" rather than as "no change".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import Run
from buildfixer.core.errors import BuildfixerError


def _neither(path: Path, why: str) -> BuildfixerError:
    return BuildfixerError(f"{path} is not a run directory or a trajectory file: {why}")


def read_trajectory_file(path: Path) -> dict[str, Any]:
    """The trajectory document in `path`.

    Raises:
        BuildfixerError: Not a regular file, not readable, not JSON, or JSON of something else.
    """
    if not path.is_file():  # a FIFO would block the reader; a device is no file to read
        raise _neither(path, "it does not exist" if not path.exists() else "not a regular file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise _neither(path, f"cannot read it ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise _neither(path, f"not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(doc, dict):
        raise _neither(path, "JSON, but not a trajectory (an object with meta and steps)")
    if not isinstance(doc.get("meta"), dict) or not isinstance(doc.get("steps"), list):
        raise _neither(path, "JSON, but not a trajectory (no meta and steps)")
    return doc


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _instance_id(meta: dict[str, Any], path: Path) -> str:
    """The benchmark instance, else the project's folder name (a `fix`), else the file's name."""
    if isinstance(meta.get("instance_id"), str) and meta["instance_id"]:
        return str(meta["instance_id"])
    for key in ("source", "project"):
        if isinstance(meta.get(key), str) and Path(meta[key]).name:
            return Path(meta[key]).name
    return path.stem


def result_line(doc: dict[str, Any], path: Path) -> dict[str, Any]:
    """The result line a run would hold for this trajectory (`bench.worker`'s fields, the patch None)."""
    meta, verdict, usage = _dict(doc.get("meta")), _dict(doc.get("verdict")), _dict(doc.get("usage"))
    config, initial = _dict(meta.get("config")), _dict(meta.get("initial"))
    sample = meta.get("sample")
    return {
        "instance_id": _instance_id(meta, path),
        "agent": meta.get("agent") or config.get("agent"),
        "toolset": config.get("toolset"),
        "model": meta.get("model") or config.get("model"),
        "mask": config.get("mask"),
        "sample": sample if isinstance(sample, int) and not isinstance(sample, bool) else 0,
        "resolved": verdict.get("resolved") is True,
        "status": verdict.get("status") or initial.get("status"),
        "category": initial.get("category"),
        "llm_calls": doc.get("llm_calls"),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "cost_usd": usage.get("cost_usd"),
        "tool_counts": doc.get("tool_counts"),
        "duration_s": doc.get("elapsed_s"),
        "patch": None,
        "trajectory": path.name,
        "stop": verdict.get("stop"),
        "stop_reason": verdict.get("stop_reason"),
        "judge": verdict.get("judge"),
    }


def trajectory_run(path: Path) -> Run:
    """The trajectory file at `path` as a run of one attempt, its folder the run's path.

    Raises:
        BuildfixerError: The file is no trajectory (see `read_trajectory_file`).
    """
    real = path.resolve()  # the run's path is the real folder: the attempt page reads the file from there
    return Run(path=real.parent, results=[result_line(read_trajectory_file(real), real)])
