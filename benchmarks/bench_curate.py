"""Curation speed: states built per minute on a first pass, and the same curation answered by the
build cache on a second pass.

Run: PYTHONPATH=src python benchmarks/bench_curate.py [--branches 6] [--no-as-of] [--repo PATH ...]

Without --repo it writes a Python repository of N merged branches (each: a commit with a syntax
error, then its fix), so the first pass builds 2N branch commits once and each candidate's two
states twice. The second pass curates the same repository into a new dataset with the same build
cache: every build request is a cache hit, so it measures what re-curation or a second mode costs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "curate"))  # the fixture-repository writer of the tests

from buildfixer.curate.config import CurateConfig  # noqa: E402
from buildfixer.curate.run import curate  # noqa: E402


def one_pass(repo: Path, out: Path, cache: Path, as_of: bool, mode: str, extra: dict) -> dict:
    start = time.perf_counter()
    summary = curate(CurateConfig(mode=mode, source=repo, out=out, build_cache=cache, as_of=as_of, **extra))
    wall = time.perf_counter() - start
    requests = summary.states_built + summary.cache_hits
    return {
        "wall_s": round(wall, 1),
        "states_built": summary.states_built,
        "cache_hits": summary.cache_hits,
        "hit_rate": round(summary.hit_rate, 3),
        "build_requests_per_min": round(requests / wall * 60, 1),
        "states_built_per_min": round(summary.states_built / wall * 60, 1),
        "instances": summary.accepted,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--branches", type=int, default=6)
    parser.add_argument("--repo", type=Path, help="Curate this repository instead of a generated one.")
    parser.add_argument("--mode", default="human")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--system", default=None)
    parser.add_argument("--no-as-of", dest="as_of", action="store_false")
    args = parser.parse_args()
    extra = {"limit": args.limit, "system": args.system}
    with tempfile.TemporaryDirectory(prefix="bench-curate-") as tmp:
        work = Path(tmp)
        repo = args.repo
        if repo is None:
            from python_repos import branches_repo

            repo = branches_repo(work / "calc", args.branches)["repo"]
        first = one_pass(repo, work / "first" / "d.jsonl", work / "cache", args.as_of, args.mode, extra)
        second = one_pass(repo, work / "second" / "d.jsonl", work / "cache", args.as_of, args.mode, extra)
    speedup = first["wall_s"] / max(second["wall_s"], 0.01)
    print(f"repository: {repo if args.repo else f'{args.branches} generated branches'}, mode {args.mode}")
    for name, result in (("first pass", first), ("second pass", second)):
        print(
            f"  {name:<11}: {result['wall_s']:7.1f} s, {result['states_built']} states built, "
            f"{result['cache_hits']} cache hits (hit rate {result['hit_rate']:.0%}), "
            f"{result['build_requests_per_min']:.1f} build requests/min, {result['instances']} instances"
        )
    print(f"  second pass {speedup:.1f}x faster")
    print(json.dumps({"first": first, "second": second, "speedup": round(speedup, 1)}))


if __name__ == "__main__":
    main()
