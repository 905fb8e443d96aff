"""Log-analysis benchmark: speed on a 10 MB Gradle log and the condensed view of every fixture.

Run: PYTHONPATH=src python benchmarks/bench_log_analysis.py [--budget 2000]

Prints the analysis time of a generated 10 MB log (target: <= 0.5 s), then for
every fixture in tests/fixtures/logs the condensed view's token estimate and
whether the root error is in it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "logs"))

from big_logs import big_gradle_log  # noqa: E402

from buildfixer.core.chat import tokens_by_pieces  # noqa: E402
from buildfixer.logs.analyze import analyze_file, analyze_text  # noqa: E402
from buildfixer.logs.condense import condense  # noqa: E402
from buildfixer.logs.text import clean_log  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "logs"


def bench_big_log(repeats: int = 5) -> None:
    log = big_gradle_log(10 * 1024 * 1024)
    analyze_text(log[:100_000])  # warm-up: imports, regex compilation
    times, clean_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        clean_log(log)
        clean_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        analysis = analyze_text(log)
        times.append(time.perf_counter() - start)
    root = analysis.errors[0] if analysis.errors else None
    print(f"10 MB gradle log: {len(log) / 1e6:.1f} MB, {log.count(chr(10))} lines")
    print(
        f"  analyze_text: best {min(times):.3f} s, "
        f"median {sorted(times)[len(times) // 2]:.3f} s (target <= 0.5 s)"
    )
    print(f"  of which cleaning: best {min(clean_times):.3f} s")
    print(f"  root: {root.location() if root else None} {root.message[:60] if root else ''}")
    view = condense(analysis)
    print(f"  condensed view: {tokens_by_pieces(view)} tokens")


def bench_fixtures(budget: int) -> None:
    print(f"\nfixtures (budget {budget} tokens):")
    print(f"  {'fixture':48} {'tokens':>6}  root kept")
    kept_all = True
    for log in sorted(FIXTURES.glob("*.log")):
        analysis = analyze_file(log)
        view = condense(analysis, budget_tokens=budget)
        root = analysis.errors[0] if analysis.errors else None
        kept = root is None or root.message[:80] in view
        kept_all &= kept
        label = "yes" if root else "n/a (no error)"
        print(f"  {log.stem:48} {tokens_by_pieces(view):>6}  {label if kept else 'NO'}")
    print(f"root error kept in every view: {kept_all}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2000)
    args = parser.parse_args()
    bench_big_log()
    bench_fixtures(args.budget)


if __name__ == "__main__":
    main()
