"""Prompt-size benchmark: tokens of the agent's first prompt and of a run_build result, raw vs condensed.

Run: PYTHONPATH=src python benchmarks/bench_prompt_tokens.py [--only NAME ...]

For every bundled broken example: build it for real, then count (with the gpt-4o tokenizer
through litellm, offline) the tokens of
  - the first message (project path + directory tree + current error) with the error shown as the
    build's raw output (the study's choice) or as the analyzer's condensed view;
  - the text a `run_build` call returns to the model, raw or condensed;
and whether the root error's message is still in the condensed text.
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

from buildfixer.agent.prompts import first_message, system_prompt  # noqa: E402
from buildfixer.build.options import BuildOptions  # noqa: E402
from buildfixer.examples import load_examples, materialize  # noqa: E402
from buildfixer.logs.result import build_and_analyze  # noqa: E402
from buildfixer.tools.build_support import format_build_output  # noqa: E402
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


if __name__ == "__main__":
    main()
