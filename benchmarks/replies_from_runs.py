"""Turn the trajectories of benchmark runs with a real model into replay fixtures for the tests.

Run: python benchmarks/replies_from_runs.py RUN_DIR [RUN_DIR ...] --out tests/fixtures/replies

Each attempt becomes one JSON file, `<run name>--<instance id>.json`: the model's replies exactly as
the server sent them (a reply whose calls were read from its text is stored as that text, with no
structured calls, as the server sent it), in the script format the fake server replays
(`buildfixer.llm.fake_server`), plus what the attempt did with them: the calls read from each
reply, the tools offered, and the recorded outcome (resolved, stop, calls executed). The tests
replay them (tests/llm/test_real_replies.py), so CI sees every reply shape a real model sent
without running the model.

The trajectories are already redacted (secrets never reach them); the workspace's temporary
path is replaced by `{workspace}` so a fixture names no path of the machine it was recorded on.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "src"))

from buildfixer.llm.text_calls import TEXT_CALL_PREFIX  # noqa: E402


def fixture_of(trajectory: dict[str, Any], result: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """One attempt's replies and outcome as a replay fixture."""
    meta = trajectory.get("meta") or {}
    root = str(meta.get("project") or "")
    steps, reads = [], []
    for step in trajectory.get("steps") or []:
        if not step.get("llm", True):
            continue
        reply = step.get("reply") or {}
        calls = reply.get("tool_calls") or []
        structured = [c for c in calls if not str(c.get("id", "")).startswith(TEXT_CALL_PREFIX)]
        written = step.get("written") or ""
        content = written if written else str(reply.get("content") or "")
        sent: dict[str, Any] = {"content": content}
        if structured:
            sent["tool_calls"] = [
                {"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in structured
            ]
        steps.append(sent)
        reads.append([[c["function"]["name"], c["function"]["arguments"]] for c in calls])
    attempt = config.get("attempt") or {}
    fixture = {
        "about": "Replies of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0) served by llama.cpp, "
        "recorded by `bench run`; replayed by the fake server.",
        "instance_id": result.get("instance_id") or meta.get("instance_id"),
        "agent": attempt.get("agent"),
        "toolset": attempt.get("toolset"),
        "budget": attempt.get("budget"),
        "build_system": meta.get("build_system"),
        "tools": [t["function"]["name"] for t in meta.get("tools") or [] if "function" in t],
        "recorded": {
            "resolved": bool(result.get("resolved")),
            "stop": result.get("stop"),
            "llm_calls": len(steps),
            "executed_calls": sum(len(s.get("tool_results") or []) for s in trajectory.get("steps") or []),
        },
        "calls_read": reads,
        "steps": steps,
    }
    text = json.dumps(fixture, ensure_ascii=False)
    if root:
        text = text.replace(json.dumps(root)[1:-1], "{workspace}")
    return json.loads(re.sub(r"/tmp/buildfixer-[\w.-]+", "{workspace}", text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="bench run directories")
    parser.add_argument("--out", type=Path, required=True, help="folder of the fixtures")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    for run in args.runs:
        results = run / "results.jsonl"
        if not results.is_file():
            parser.exit(2, f"error: {run} is not a bench run directory (no results.jsonl)\n")
        config = json.loads((run / "config.json").read_text())
        for line in results.read_text().splitlines():
            result = json.loads(line)
            path = run / str(result.get("trajectory") or "")
            if not result.get("trajectory") or not path.is_file():
                continue
            fixture = fixture_of(json.loads(path.read_text()), result, config)
            if not fixture["steps"]:
                continue
            name = f"{run.name}--{fixture['instance_id']}.json"
            (args.out / name).write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} fixtures in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
