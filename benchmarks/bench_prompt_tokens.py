"""Prompt-size benchmark: tokens of the agent's first prompt and of a run_build result, raw vs condensed.

Run: PYTHONPATH=src python benchmarks/bench_prompt_tokens.py [--only NAME ...]

For every bundled broken example: build it for real, then count (with the gpt-4o tokenizer
through litellm, offline) the tokens of
  - the first message (project path + directory tree + current error) with the error shown as the
    build's raw output (the study's choice) or as the analyzer's condensed view;
  - the text a `run_build` call returns to the model, raw or condensed;
and whether the root error's message is still in the condensed text.

Then the same comparison on the 105 real-world log fixtures (tests/fixtures/logs), which are far
longer than our small projects' logs: the log as printed (what a shell agent reads), our raw
view (noise removed, head and tail kept under the tool's output cap), and the condensed view.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from buildfixer.agents.prompts import first_message, system_prompt  # noqa: E402
from buildfixer.buildsys.analyzed import build_and_analyze  # noqa: E402
from buildfixer.buildsys.options import BuildOptions  # noqa: E402
from buildfixer.examples import load_examples, materialize  # noqa: E402
from buildfixer.logs.analyze import analyze_text  # noqa: E402
from buildfixer.logs.condense import condense  # noqa: E402
from buildfixer.tools.base import cap_output  # noqa: E402
from buildfixer.tools.build_support import OUTPUT_ROOM, clean_output, format_build_output  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "logs"
from buildfixer.tools.context import ToolContext  # noqa: E402


def count_tokens(text: str) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return int(litellm.token_counter(model="gpt-4o", text=text))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    examples = [e for e in load_examples() if not args.only or e.name in args.only]
    rows = []
    print(f"system prompt: {count_tokens(system_prompt())} tokens\n")
    print(
        f"{'example':<38} {'first raw':>9} {'first cond':>10} {'build raw':>9} {'build cond':>10} root kept"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for example in examples:
            project = materialize(example, Path(tmp) / example.name.replace("/", "_"))
            options = BuildOptions(jdk=example.jdk)
            result, _ = build_and_analyze(project, options)
            ctx = ToolContext(root=project, build_system=example.build_system, options=options)
            raw, condensed = (
                format_build_output(ctx, result, "raw"),
                format_build_output(ctx, result, "condensed"),
            )
            first_raw = count_tokens(first_message(project, raw))
            first_cond = count_tokens(first_message(project, condensed))
            build_raw, build_cond = count_tokens(raw), count_tokens(condensed)
            needle = example.message_contains
            kept = needle in condensed
            rows.append((first_raw, first_cond, build_raw, build_cond, kept))
            print(
                f"{example.name:<38} {first_raw:>9} {first_cond:>10} {build_raw:>9} {build_cond:>10} {kept}"
            )
    ratios_first = [r[0] / r[1] for r in rows]
    ratios_build = [r[2] / r[3] for r in rows]
    print(
        f"\nmedian first prompt: raw {statistics.median(r[0] for r in rows):.0f} vs condensed "
        f"{statistics.median(r[1] for r in rows):.0f} tokens = {statistics.median(ratios_first):.2f}x"
    )
    print(
        f"median run_build result: raw {statistics.median(r[2] for r in rows):.0f} vs condensed "
        f"{statistics.median(r[3] for r in rows):.0f} tokens = {statistics.median(ratios_build):.2f}x "
        f"(max {max(ratios_build):.2f}x)"
    )
    print(f"root error kept in the condensed view: {sum(r[4] for r in rows)}/{len(rows)}")
    bench_log_fixtures()


def bench_log_fixtures() -> None:
    import json

    printed, raw, condensed = [], [], []
    kept_raw = kept_cond = 0
    logs = [
        log
        for log in sorted(FIXTURES.glob("*.log"))
        if (json.loads(log.with_suffix(".expected.json").read_text()).get("root") or {}).get(
            "message_contains"
        )
    ]  # fmt: skip (logs of successful builds have no root error)
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        needle = json.loads(log.with_suffix(".expected.json").read_text())["root"]["message_contains"]
        raw_view = cap_output(clean_output(text), OUTPUT_ROOM)
        cond_view = condense(analyze_text(text), 2000)
        printed.append(count_tokens(text))
        raw.append(count_tokens(raw_view))
        condensed.append(count_tokens(cond_view))
        kept_raw += needle in raw_view
        kept_cond += needle in cond_view
    n = len(logs)
    print(f"\n{n} real-world log fixtures (tokens, median / max / total):")
    for name, values in (
        ("as printed", printed),
        ("raw view (cleaned, capped)", raw),
        ("condensed", condensed),
    ):
        print(f"  {name:<28} {statistics.median(values):>7.0f} {max(values):>8} {sum(values):>9}")
    print(
        f"  total as printed / condensed = {sum(printed) / sum(condensed):.2f}x; "
        f"raw view / condensed = {sum(raw) / sum(condensed):.2f}x"
    )
    print(f"  root error kept: raw view {kept_raw}/{n}, condensed {kept_cond}/{n}")
    bench_long_log()


def bench_long_log() -> None:
    """A 4 MB CI log whose compile error sits in the middle, with other modules' output after it."""
    sys.path.insert(0, str(ROOT / "tests" / "logs"))
    from big_logs import TAIL, big_gradle_log

    half = big_gradle_log(2 * 1024 * 1024)
    error = TAIL.split("FAILURE:")[0]
    text = half + error + half + "FAILURE:" + TAIL.split("FAILURE:")[1]
    raw_view = cap_output(clean_output(text), OUTPUT_ROOM)
    cond_view = condense(analyze_text(text), 2000)
    needle = "cannot find symbol"
    print("\n4 MB log, root error mid-log (tokens; printed size estimated at 4 chars/token):")
    raw_tokens, cond_tokens = count_tokens(raw_view), count_tokens(cond_view)
    print(f"  as printed ~{len(text) // 4:,}; raw view {raw_tokens:,} (root kept: {needle in raw_view});")
    print(f"  condensed {cond_tokens:,} (root kept: {needle in cond_view})")


if __name__ == "__main__":
    main()
