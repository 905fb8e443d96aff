"""Trajectories in ATIF, the Agent Trajectory Interchange Format of the Harbor project.

One buildfixer trajectory (agents.trajectory) becomes one ATIF document: the conversation's
system and user messages become `system`/`user` steps, each assistant message an `agent` step
with its `tool_calls` (arguments parsed from their JSON string), the tool results that answered
them as the step's `observation`, and the model call's tokens and cost as its `metrics`. A step of
a policy that calls no model (recipes) has `llm_call_count` 0 and no metrics, as ATIF-v1.7 asks.
An attempt that recorded no conversation (a fix replayed from memory, a build that already
passed) becomes one `system` step that says how it ended, since ATIF needs at least one step.

Field names follow harbor's pydantic models (`harbor.models.trajectories`, harbor 0.25.0 on
PyPI); docs/EXPORTS.md cites them. Trajectories are redacted when recorded; the export runs the
redaction again (a run recorded by an older version), replaces the workspace's path and makes
every other path of the machine shareable (`core.shareable`: the model spec, the configuration,
the tool outputs).
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import staged_folder
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.shareable import shareable_data
from buildfixer.export.sft import PLACEHOLDER, trajectory_files
from buildfixer.llm.redact import redact_obj

SCHEMA_VERSION = "ATIF-v1.7"


def to_atif(doc: dict[str, Any], session_id: str) -> dict[str, Any]:
    """The ATIF document of one buildfixer trajectory (the JSON of `Trajectory.to_dict`).

    Args:
        doc: The trajectory JSON.
        session_id: The run-scoped identifier to record (e.g. `RUN/INSTANCE__SAMPLE`).
    """
    meta = doc.get("meta") or {}
    root = str(meta.get("project") or "")
    if root:  # the machine's workspace path says nothing about the task: like the SFT export
        doc = json.loads(json.dumps(doc).replace(json.dumps(root)[1:-1], PLACEHOLDER))
        meta = doc.get("meta") or {}
    steps = _steps(doc.get("messages") or [], doc.get("steps") or [])
    if not steps:
        steps = [{"source": "system", "message": _no_conversation(doc)}]
    steps = [{"step_id": number, **step} for number, step in enumerate(steps, start=1)]
    usage = doc.get("usage") or {}
    agent: dict[str, Any] = {
        "name": f"buildfixer-{meta.get('agent') or 'agent'}",
        "version": _version(),
        "model_name": meta.get("model"),
        "tool_definitions": meta.get("tools") or None,
        "extra": {"toolset": (meta.get("config") or {}).get("toolset"), "config": meta.get("config")},
    }
    final: dict[str, Any] = {
        "total_prompt_tokens": usage.get("input_tokens"),
        "total_completion_tokens": usage.get("output_tokens"),
        "total_cost_usd": usage.get("cost_usd") if usage.get("cost_known", True) else None,
        "total_steps": len(steps),
        "extra": {"llm_calls": doc.get("llm_calls"), "tool_counts": doc.get("tool_counts"),
                  "elapsed_s": doc.get("elapsed_s"), "tokens_estimated": usage.get("estimated")},
    }  # fmt: skip
    extra = {
        key: meta.get(key)
        for key in ("instance_id", "sample", "build_system", "started_at", "initial", "pipeline")
        if meta.get(key) is not None
    }
    atif = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "agent": _drop_none(agent),
        "steps": steps,
        "final_metrics": _drop_none(final),
        "extra": {**extra, "verdict": doc.get("verdict")},
    }
    shared: dict[str, Any] = shareable_data(redact_obj(atif))
    return shared


def write_atif_folder(sources: list[Path], out: Path) -> list[Path]:
    """`export_atif` into the folder `out`, replaced whole; the files written, relative to `out`.

    Raises:
        BuildfixerError: A source that does not exist, or no trajectory in any of them (nothing written).
    """
    missing = [str(s) for s in sources if not s.exists()]
    if missing:
        raise BuildfixerError(f"no such run directory or trajectory: {missing[0]}")
    if not trajectory_files(sources):
        raise BuildfixerError("no trajectories in " + ", ".join(str(s) for s in sources))
    with staged_folder(out) as stage:
        return [path.relative_to(stage) for path in export_atif(sources, stage)]


def export_atif(sources: list[Path], out: Path) -> list[Path]:
    """Write one ATIF file per trajectory of `sources` into the folder `out`; returns the files.

    A run directory's trajectories go to `out/<run name>/<attempt>.json`, a trajectory file given
    directly to `out/<attempt>.json`. The caller makes `out` (atomically: bench.rundir.staged_folder).
    """
    written: list[Path] = []
    for path, _instances in trajectory_files(sources):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a trajectory cut short by a crash before its first save
        if not isinstance(doc, dict):
            continue
        in_run = path.parent.name == "trajectories"
        run = path.parent.parent.name if in_run else ""
        target = out / run / f"{path.stem}.json" if in_run else out / f"{path.stem}.json"
        number = 2
        while target in written:  # two runs of one name, or two files of one name
            target = target.with_name(f"{path.stem}-{number}.json")
            number += 1
        session = f"{run}/{path.stem}" if run else path.stem
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(to_atif(doc, session), indent=1, ensure_ascii=False), encoding="utf-8")
        written.append(target)
    return written


def _steps(messages: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ATIF steps (without step_id) of the conversation and of the recorded model calls."""
    pending = list(calls)
    answers = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    steps: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "user"):
            steps.append({"source": role, "message": _text(message.get("content"))})
        elif role == "assistant":
            # The model call that produced this reply, when it is the next one recorded.
            call = pending.pop(0) if pending and pending[0].get("reply") == message else None
            steps.append(_agent_step(message, call, answers))
    for call in pending:  # calls without a conversation (a policy that talks to no model)
        steps.append(_agent_step(call.get("reply") or {}, call, answers))
    return steps


def _agent_step(
    reply: dict[str, Any], call: dict[str, Any] | None, answers: dict[Any, dict[str, Any]]
) -> dict[str, Any]:
    """One `agent` step: the reply, its tool calls and their results, the call's metrics."""
    step: dict[str, Any] = {"source": "agent", "message": _text(reply.get("content"))}
    results = {r.get("id"): r for r in (call or {}).get("tool_results") or []}
    tool_calls: list[dict[str, Any]] = []
    observed: list[dict[str, Any]] = []
    for item in reply.get("tool_calls") or []:
        function = item.get("function") or {}
        call_id = str(item.get("id") or f"call_{len(tool_calls) + 1}")
        arguments, raw = _arguments(function.get("arguments"))
        entry: dict[str, Any] = {"tool_call_id": call_id, "function_name": str(function.get("name") or "")}
        entry["arguments"] = arguments
        if raw is not None:
            entry["extra"] = {"unparsed_arguments": raw}  # the model's text, not a JSON object
        tool_calls.append(entry)
        answer = answers.get(item.get("id"))
        result = results.get(item.get("id"))
        content = answer.get("content") if answer else (result or {}).get("output")
        if content is not None or result is not None:
            observed.append(_drop_none({
                "source_call_id": call_id,
                "content": _text(content),
                "extra": {"error": result.get("error"), "seconds": result.get("seconds")} if result else None,
            }))  # fmt: skip
    if tool_calls:
        step["tool_calls"] = tool_calls
    if observed:
        step["observation"] = {"results": observed}
    if call is not None:
        llm = bool(call.get("llm", True))
        step["llm_call_count"] = 1 if llm else 0
        usage = call.get("usage") or {}
        if llm:
            step["metrics"] = _drop_none({
                "prompt_tokens": usage.get("input_tokens"),
                "completion_tokens": usage.get("output_tokens"),
                "cost_usd": usage.get("cost_usd") if usage.get("cost_known", True) else None,
                "extra": {"model_s": call.get("model_s"), "estimated": usage.get("estimated")},
            })  # fmt: skip
    return step


def _arguments(value: Any) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as ATIF's object, and the raw text when it was no JSON object."""
    if isinstance(value, dict):
        return value, None
    if value in (None, ""):
        return {}, None
    try:
        parsed = json.loads(str(value))
    except ValueError:
        return {}, str(value)
    return (parsed, None) if isinstance(parsed, dict) else ({}, str(value))


def _text(content: Any) -> str:
    """A message's content as ATIF's string (null content is the empty message)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: keep their text
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return json.dumps(content, ensure_ascii=False)


def _no_conversation(doc: dict[str, Any]) -> str:
    verdict = doc.get("verdict") or {}
    how = verdict.get("stop_reason") or verdict.get("stop") or "no verdict was recorded"
    return f"No model conversation was recorded for this attempt; it ended: {how}."


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


def _version() -> str:
    return metadata.version("buildfixer")
