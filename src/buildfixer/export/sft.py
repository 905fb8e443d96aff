"""SFT export: resolved, judge-approved trajectories as chat rows TRL trains on.

A row is `{"messages": [...], "tools": [...], "split": "train"|"validation", "instance_id", "created_at",
"source"}`: the conversation in OpenAI chat form (system, user, assistant with `tool_calls`, tool
results) and the JSON schemas of the tools the model saw (recorded by the tool loop; rebuilt from
the attempt's configuration for older trajectories). The split is time-ordered, as the second
study's: the newest `val_fraction` of the examples (by the instance's `created_at`, else when the
attempt ran) is validation, so no validation example predates a training one. The workspace's path
becomes `/workspace`, as in the environment; the machine's other paths (caches, the temporary folder,
home) become placeholders (`core.shareable`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.core.chat import tokens_by_length
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import file_within
from buildfixer.core.shareable import shareable_data
from buildfixer.harness.checks import check_output_path, number_problem
from buildfixer.tools.presets import preset_schemas

PLACEHOLDER = "/workspace"
_THINK = re.compile(r"<think>.*?</think>\s*", re.S)


@dataclass
class ExportOptions:
    """What the export keeps and how it splits.

    Attributes:
        strip_think: Remove `<think>...</think>` blocks from assistant messages.
        max_tool_tokens: A tool output over this many tokens (estimated) is replaced by a note.
        dedupe: Keep one of identical trajectories (the same instance, the same assistant messages).
        val_fraction: The newest part of the examples that becomes the validation split.
        placeholder: What the workspace's path is replaced by.
    """

    strip_think: bool = False
    max_tool_tokens: int | None = None
    dedupe: bool = True
    val_fraction: float = 0.2
    placeholder: str = PLACEHOLDER


def trajectory_files(sources: list[Path]) -> list[tuple[Path, dict[str, dict[str, Any]]]]:
    """Trajectory files from run directories (with their instances by id) or trajectory files.

    A run directory is data: of its files only regular ones are read, never through a symlink
    (`file_within`), so a link in it cannot bring another file of the user's into the export.
    """
    found: list[tuple[Path, dict[str, dict[str, Any]]]] = []
    for source in sources:
        if source.is_file():
            found.append((source, {}))
            continue
        if not (source / "trajectories").is_dir():
            raise BuildfixerError(
                f"{source} is neither a trajectory file nor a run directory with trajectories/"
            )
        instances: dict[str, dict[str, Any]] = {}
        listed = file_within(source, "instances.jsonl")
        if listed is not None:
            for line in listed.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    instances[str(row.get("instance_id"))] = row
        names = sorted((source / "trajectories").glob("*.json"))
        found += [(path, instances) for name in names if (path := file_within(source, name)) is not None]
    return found


def example(
    path: Path, instances: dict[str, dict[str, Any]], options: ExportOptions
) -> dict[str, Any] | None:
    """The row of one trajectory, or None when it is no example (unresolved, rejected, unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    verdict, meta = data.get("verdict") or {}, data.get("meta") or {}
    judge = verdict.get("judge") or {}
    if not verdict.get("resolved") or judge.get("approved") is False:
        return None
    messages = [dict(m) for m in data.get("messages") or []]
    if not any(m.get("role") == "assistant" for m in messages):
        return None  # nothing the model said (a recipe, or a build that already passed)
    root = str(meta.get("project") or "")
    messages = [_clean(m, root, options) for m in messages]
    instance = instances.get(str(meta.get("instance_id")), {})
    row = {
        "messages": messages,
        "tools": meta.get("tools") or _tools_of(meta),
        "instance_id": meta.get("instance_id"),
        "created_at": instance.get("created_at") or meta.get("started_at") or _mtime(path),
        "source": str(path),
    }
    shared: dict[str, Any] = shareable_data(row)
    return shared


def export_sft(sources: list[Path], options: ExportOptions) -> list[dict[str, Any]]:
    """Every example of the sources, deduplicated when asked, split by time."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path, instances in trajectory_files(sources):
        row = example(path, instances, options)
        if row is None:
            continue
        # The same task done the same way: what the model said and called (tool outputs carry
        # timings and paths that differ from run to run).
        said = [m for m in row["messages"] if m.get("role") == "assistant"]
        digest = hashlib.sha256(json.dumps([row["instance_id"], said], sort_keys=True).encode()).hexdigest()
        if options.dedupe and digest in seen:
            continue
        seen.add(digest)
        rows.append(row)
    rows.sort(key=lambda row: str(row["created_at"]))
    validation = round(len(rows) * options.val_fraction) if len(rows) > 1 else 0
    for index, row in enumerate(rows):
        row["split"] = "validation" if index >= len(rows) - validation else "train"
    return rows


def write_rows(rows: list[dict[str, Any]], out: Path) -> None:
    """JSON lines, or Parquet for a `.parquet` name (pyarrow), written atomically."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    if out.suffix == ".parquet":
        try:
            import pyarrow as pa  # optional: only Parquet needs it
            import pyarrow.parquet as pq
        except ImportError:
            raise BuildfixerError(
                "Parquet output needs pyarrow: pip install pyarrow (or write .jsonl)"
            ) from None
        columns = {key: [r[key] for r in rows] for key in ("split", "instance_id", "created_at")}
        columns |= {key: [json.dumps(r[key]) for r in rows] for key in ("messages", "tools")}  # nested: JSON
        table = pa.table(columns)
        pq.write_table(table, temp)
    else:
        temp.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    os.replace(temp, out)


def _clean(message: dict[str, Any], root: str, options: ExportOptions) -> dict[str, Any]:
    """The workspace path replaced, thinking stripped, a long tool output replaced by a note."""
    text = json.dumps(message)
    if root:
        text = text.replace(json.dumps(root)[1:-1], options.placeholder)
    message = json.loads(text)
    content = message.get("content")
    if options.strip_think and message.get("role") == "assistant" and isinstance(content, str):
        message["content"] = _THINK.sub("", content)
    if options.max_tool_tokens and message.get("role") == "tool" and isinstance(content, str):
        tokens = tokens_by_length(content)
        if tokens > options.max_tool_tokens:
            message["content"] = f"[tool output of about {tokens} tokens left out]"
    return message


def _tools_of(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas of the attempt's toolset, for trajectories recorded before the loop kept them."""
    config = meta.get("config") or {}
    system = str(meta.get("build_system") or "gradle")
    try:
        return preset_schemas(config.get("toolset", "gradlefixer"), [system], config.get("mask", "none"))
    except BuildfixerError:
        return []


def _mtime(path: Path) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(path.stat().st_mtime))


def check_options(out: Path, val_fraction: float, max_tool_tokens: int | None) -> None:
    """Refuse what `export sft` cannot write, before reading any trajectory.

    Raises:
        BuildfixerError: An output that is not .jsonl/.json/.parquet or not writable, a validation
            fraction outside [0, 1], a tool-output limit below one token.
    """
    if out.suffix not in (".jsonl", ".json", ".parquet"):
        raise BuildfixerError(f"--out {out}: name a .jsonl or .parquet file")
    check_output_path("--out", out, directory=False)
    if problem := number_problem(val_fraction, whole=False, low=0, high=1):
        raise BuildfixerError(f"--val-fraction {problem}")
    if max_tool_tokens is not None and (
        problem := number_problem(max_tool_tokens, whole=True, low=1, high=10**9)
    ):
        raise BuildfixerError(f"--max-tool-tokens {problem}")
