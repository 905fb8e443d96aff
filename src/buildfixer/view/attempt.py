"""One attempt as its page shows it: the conversation, the patch, the builds, the judge, budgets and config.

The trajectory (agents.trajectory) is the source of everything but the result line's numbers and
patch. A trajectory may be missing or cut short (an attempt killed mid-step); the page then shows
what there is and says what is missing. The attempt's own places (its workspace, the user's project,
the cache of the machine it ran on) are replaced by placeholders here, where they are known
(`local_paths`).
"""

from __future__ import annotations

import json
from typing import Any

from buildfixer.bench.rundir import Run
from buildfixer.core.paths import file_within
from buildfixer.view.builds import builds
from buildfixer.view.local_paths import attempt_places
from buildfixer.view.runs import Source, outcome
from buildfixer.view.texts import cap, display_text, patch_text


def _trajectory(run: Run, result: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The attempt's trajectory document, or an empty one and why it is missing.

    Only a file of the run directory (a trajectory file's own folder) is read (`file_within`): the
    result line is data.
    """
    name = result.get("trajectory")
    if not isinstance(name, str) or not name:
        return {}, "the result line names no trajectory"
    path = file_within(run.path, name)
    if path is None:
        return {}, f"trajectory {name} is missing (or not a file of this run directory)"
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, json.JSONDecodeError) as exc:
        return {}, f"trajectory {name} cannot be read: {exc}"
    if not isinstance(doc, dict):
        return {}, f"trajectory {name} is not a JSON object"
    return doc, None


def _dict(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (a trajectory cut short lacks parts)."""
    return value if isinstance(value, dict) else {}


def _text(content: Any) -> str:
    """A message's content as text: a list of parts (multimodal messages) joined, None as empty."""
    if isinstance(content, list):
        parts = [part.get("text", "") if isinstance(part, dict) else str(part) for part in content]
        return "\n".join(str(part) for part in parts)
    return "" if content is None else str(content)


def _arguments(raw: Any) -> str:
    """Tool-call arguments, pretty-printed when they are JSON (models send them as one string)."""
    if isinstance(raw, str):
        try:
            return cap(json.dumps(json.loads(raw), indent=2, ensure_ascii=False))
        except json.JSONDecodeError:
            return cap(raw)
    return cap(json.dumps(raw, indent=2, ensure_ascii=False, default=str))


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = []
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        calls.append(
            {
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": _arguments(function.get("arguments")),
            }
        )
    return calls


def _from_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation rebuilt from steps, for agents that record steps but no messages."""
    messages: list[dict[str, Any]] = []
    for step in steps:
        messages.append(step.get("reply") or {"role": "assistant", "content": ""})
        for result in step.get("tool_results") or []:
            messages.append(
                {"role": "tool", "tool_call_id": result.get("id"), "content": result.get("output")}
            )
    return messages


def conversation(trajectory: dict[str, Any]) -> list[dict[str, Any]]:
    """Every message in order, each tool result with its tool's name, error flag and seconds.

    Assistant turns carry their step number and token usage when the steps line up with them.

    Returns:
        Dicts with `role`, `content`, and `calls` (assistant) or `tool` (tool results).
    """
    steps = [s for s in trajectory.get("steps") or [] if isinstance(s, dict)]
    messages = [m for m in trajectory.get("messages") or [] if isinstance(m, dict)] or _from_steps(steps)
    results = {r.get("id"): r for s in steps for r in s.get("tool_results") or [] if isinstance(r, dict)}
    replies = iter(steps)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = str(message.get("role") or "?")
        item: dict[str, Any] = {"role": role, "content": display_text(_text(message.get("content")))}
        if role == "assistant":
            item["calls"] = _calls(message)
            step = next(replies, None)
            if step is not None:
                item["step"] = step.get("index")
                item["usage"] = step.get("usage")
                item["model_s"] = step.get("model_s")
        elif role == "tool":
            result = results.get(message.get("tool_call_id"), {})
            name = result.get("name") or message.get("name")
            item["tool"] = {"id": message.get("tool_call_id"), "name": name,
                            "error": bool(result.get("error")), "seconds": result.get("seconds")}  # fmt: skip
        out.append(item)
    return out


def _used(trajectory: dict[str, Any], result: dict[str, Any], key: str, fallback: str) -> Any:
    value = trajectory.get(key)
    return value if isinstance(value, int | float) else result.get(fallback)


def budget(
    config: dict[str, Any], trajectory: dict[str, Any], result: dict[str, Any]
) -> list[dict[str, Any]]:
    """What the attempt used of each budget, and the limit (None: no limit was set)."""
    limits = _dict(config.get("budget"))
    usage = _dict(trajectory.get("usage"))
    tokens = [usage.get(k, result.get(k)) for k in ("input_tokens", "output_tokens")]
    known = [t for t in tokens if isinstance(t, int | float)]
    return [
        {"name": "LLM calls", "used": _used(trajectory, result, "llm_calls", "llm_calls"),
         "limit": limits.get("max_calls")},
        {"name": "tokens", "used": sum(known) if known else None, "limit": limits.get("max_tokens")},
        {"name": "cost (USD)", "used": usage.get("cost_usd", result.get("cost_usd")),
         "limit": limits.get("max_cost_usd")},
        {"name": "wall time (s)", "used": _used(trajectory, result, "elapsed_s", "duration_s"),
         "limit": limits.get("max_wall_s")},
    ]  # fmt: skip


def attempt_page(source: Source, run: Run, row: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Everything the attempt page shows.

    Args:
        source: The run directory (or trajectory file) as given.
        run: The run, as read.
        row: The attempt's list row (`runs.attempts`).
        result: Its result line.
    """
    trajectory, missing = _trajectory(run, result)
    meta = _dict(trajectory.get("meta"))
    verdict = _dict(trajectory.get("verdict"))
    judge = verdict.get("judge") or result.get("judge")
    config = _dict(meta.get("config"))
    warnings = [missing] if missing else []
    if trajectory and not verdict:
        warnings.append("the trajectory has no verdict: the attempt was cut short or is still running")
    kept = ("status", "stop", "stop_reason", "jdk", "category", "edited", "refused")
    instance = run.instances.get(row["instance_id"], {})
    # A trajectory file's folder is no run directory (it may be the user's home): only the cache's logs.
    run_dir = None if source.single else run.path
    page = {
        "key": row["key"],
        "row": {**row, "outcome": outcome(result, judge)},
        "run_path": source.shown_path,
        "trajectory": result.get("trajectory"),
        "project": meta.get("project"),
        "build_system": meta.get("build_system"),
        "started_at": meta.get("started_at"),
        "conversation": conversation(trajectory),
        "patch": patch_text(result.get("patch")),
        "gold_patch": cap(instance.get("gold_patch")) or None,  # the dataset's reference fix, beside it
        "builds": builds(trajectory, instance, run_dir),
        "judge": judge if isinstance(judge, dict) else None,
        "verdict": {k: verdict[k] for k in kept if k in verdict},
        "budget": budget(config, trajectory, result),
        "config": {"attempt": config or None, "run": run.config or None},
        "error": cap(result.get("error")) or None,  # a crashed attempt's traceback
        "warnings": warnings,
    }
    shared: dict[str, Any] = attempt_places(trajectory).shared(page)
    return shared


def search_text(run: Run, row: dict[str, Any], result: dict[str, Any]) -> str:
    """What the list's text search looks in for one attempt: its row's names, messages, calls, patch.

    Each message, tool-call argument and tool output as the page shows it (capped, see `texts`), the
    system prompt left out (every attempt of a configuration has the same one, so it would match all).
    """
    trajectory, _ = _trajectory(run, result)
    parts = [row["instance_id"], row["config"], row["stop"], row["stop_reason"]]
    for item in conversation(trajectory):
        if item["role"] != "system":
            parts.append(item["content"])
            parts += [f"{call['name']} {call['arguments']}" for call in item.get("calls") or []]
    parts += [cap(result.get("patch")), cap(result.get("error"))]
    text: str = attempt_places(trajectory).shared("\n".join(p for p in parts if p))
    return text
