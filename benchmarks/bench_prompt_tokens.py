"""Prompt-size benchmark: tokens of the agent's first prompt and of a run_build result, raw vs condensed.

Run: PYTHONPATH=src python benchmarks/bench_prompt_tokens.py [--only NAME ...]
     PYTHONPATH=src python benchmarks/bench_prompt_tokens.py --first-request

`--first-request` prints, per toolset and build system, the tokens of the tool agent's first
request: system prompt + first user message + the tool schemas (their JSON, as sent), on each
build system's `missing-version` example (one real build each). PYTHONPATH picks the sources
measured (the repository's src is only the fallback), so an older copy can be compared.

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
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "src"))  # after PYTHONPATH: an older copy of src can be measured

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
from buildfixer.tools.presets import PRESETS, make_toolset  # noqa: E402
from buildfixer.tools.web import knowledge_from_env, search_from_env  # noqa: E402

# One example per build system, the same kind of failure in each.
FIRST_REQUEST_EXAMPLES = {
    "gradle": "gradle-app/missing-version",
    "maven": "maven-app/missing-version",
    "python": "python-app/missing-version",
    "npm": "npm-app/missing-version",
}


def count_tokens(text: str) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return int(litellm.token_counter(model="gpt-4o", text=text))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument(
        "--first-request", action="store_true", help="tokens of the first request, toolset x build system"
    )
    args = parser.parse_args()
    if args.first_request:
        bench_first_request()
        return
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


def first_request_tokens(ctx: ToolContext, preset: str, first: str) -> tuple[int, int, int]:
    """Tokens of (system prompt + first message, tool schemas, both) of the tool agent's first request."""
    schemas = [tool.schema() for tool in make_toolset(ctx, preset)]
    prompt = count_tokens(system_prompt()) + count_tokens(first)
    tools = count_tokens(json.dumps(schemas)) if schemas else 0
    return prompt, tools, prompt + tools


def bench_first_request() -> None:
    """A table toolset x build system of the first request's tokens (schemas in brackets)."""
    import buildfixer

    print(f"sources: {Path(buildfixer.__file__).parent}")
    systems = list(FIRST_REQUEST_EXAMPLES)
    firsts: dict[str, tuple[ToolContext, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for system, name in FIRST_REQUEST_EXAMPLES.items():
            (example,) = [e for e in load_examples() if e.name == name]
            project = materialize(example, Path(tmp) / name.replace("/", "_"))
            options = BuildOptions(jdk=example.jdk)
            result, _ = build_and_analyze(project, options)
            ctx = ToolContext(
                root=project, build_system=system, options=options,
                search=search_from_env(), knowledge=knowledge_from_env(),
            )  # fmt: skip
            # The tool agent's first message shows the condensed view (AgentSettings.first_error).
            firsts[system] = (ctx, first_message(project, format_build_output(ctx, result, "condensed")))
        print("first request tokens: total (of which tool schemas); gpt-4o tokenizer\n")
        print(f"| toolset | {' | '.join(systems)} |")
        print(f"|---|{'---|' * len(systems)}")
        worst = 0
        for preset in PRESETS:
            cells = []
            for system in systems:
                ctx, first = firsts[system]
                _, tools, total = first_request_tokens(ctx, preset, first)
                worst = max(worst, total)
                cells.append(f"{total:,} ({tools:,})")
            print(f"| {preset} | {' | '.join(cells)} |")
    print(f"\nlargest first request: {worst:,} tokens")


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
