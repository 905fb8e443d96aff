"""The table of docs/RESULTS.md: benchmark runs of a real model, side by side, from their run directories.

Run: python benchmarks/real_model_table.py LABEL=RUN_DIR [LABEL=RUN_DIR ...] [--only ID,ID,...]

Per run (configuration): attempts, resolved, pass@1 with its 95% bootstrap interval over instances
(`reports.passk`), and per attempt the model calls, the tool calls that ran (and how many of those
the model wrote as text), the replies that got a message because they were no answer, the tokens,
the time; then how the attempts ended. `--only` restricts every run to the same instances, so
runs that got different distances are compared on what they share.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "src"))

from buildfixer.llm.text_calls import TEXT_CALL_PREFIX  # noqa: E402
from buildfixer.reports.passk import bootstrap_ci, pass_at_k, tally  # noqa: E402


def attempt_facts(run: Path, result: dict[str, Any]) -> dict[str, Any]:
    """What one attempt's trajectory says beyond its result line."""
    path = run / str(result.get("trajectory") or "")
    facts = {"text_calls": 0, "nudges": 0}
    if result.get("trajectory") and path.is_file():
        for step in json.loads(path.read_text()).get("steps") or []:
            ids = [str(r.get("id", "")) for r in step["tool_results"]]
            facts["text_calls"] += sum(i.startswith(TEXT_CALL_PREFIX) for i in ids)
            facts["nudges"] += bool(step.get("told"))
    return facts


def row(label: str, run: Path, only: set[str] | None) -> tuple[str, Counter[str]]:
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    results = [r for r in results if only is None or r["instance_id"] in only]
    if not results:
        return f"| {label} | 0 | – | – | – | – | – | – | – | – |", Counter()
    counts = tally((r["instance_id"], bool(r["resolved"])) for r in results)
    p1 = statistics.fmean(pass_at_k(n, c, 1) for n, c in counts.values())
    ci = bootstrap_ci(counts, [1])[1]
    facts = [attempt_facts(run, r) for r in results]
    executed = [sum(r["tool_counts"].values()) for r in results]

    def mean(values: list[float]) -> str:
        return f"{statistics.fmean(values):.1f}"

    interval = f"[{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]" if ci else "–"
    cells = [
        label, str(len(results)), str(sum(bool(r["resolved"]) for r in results)),
        f"{100 * p1:.1f} {interval}", mean([r["llm_calls"] for r in results]), mean(executed),
        mean([f["text_calls"] for f in facts]), mean([f["nudges"] for f in facts]),
        f"{statistics.fmean(r['input_tokens'] for r in results) / 1000:.1f}k / "
        f"{statistics.fmean(r['output_tokens'] for r in results):.0f}",
        f"{statistics.fmean(r['duration_s'] for r in results):.0f}",
    ]  # fmt: skip
    return "| " + " | ".join(cells) + " |", Counter(str(r.get("stop")) for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="LABEL=RUN_DIR")
    parser.add_argument("--only", help="comma-separated instance ids every run is restricted to")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    print(
        "| Configuration | Attempts | Resolved | pass@1 % [95% CI] | Model calls | Tool calls run | "
        "of them written as text | Replies answered with a message | Tokens in / out | Seconds |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    stops: dict[str, Counter[str]] = {}
    for spec in args.runs:
        label, _, path = spec.partition("=")
        if not path or not (Path(path) / "results.jsonl").is_file():
            parser.exit(2, f"error: {spec}: give LABEL=RUN_DIR of a bench run (with results.jsonl)\n")
        line, stops[label] = row(label, Path(path), only)
        print(line)
    print("\nHow the attempts ended:\n")
    for label, counted in stops.items():
        print(f"- {label}: " + ", ".join(f"{kind} {n}" for kind, n in counted.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
