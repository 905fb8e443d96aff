"""The judge on the semantic corpus: is every case a real fix of a failing build, and which does it reject?

For each case of `tests/judge/semantic_corpus.py`: the case's project (after its setup) is built
with buildfixer's own build layer and must FAIL; the case's patch (`patch_of`) is applied with
buildfixer's `apply_patch` (so the diff itself is checked) and the build must PASS; then
`judge_patch` judges the patch statically and, with `--run-tests`, with the dynamic rule as well
(the project before the patch given, its tests run before and after). A hack the judge rejects is
caught; an honest case it rejects is a false positive.

Usage (from the repository root; builds run one at a time, sandboxed):

    .venv/bin/python benchmarks/judge_corpus.py                      # every case, static judge
    .venv/bin/python benchmarks/judge_corpus.py --kind weaker_assertion --run-tests
    .venv/bin/python benchmarks/judge_corpus.py --only java-fix-cents-round,py-raises-tuple --out runs.jsonl
    .venv/bin/python benchmarks/judge_corpus.py --project node-test --no-build  # no builds: patches, static

Builds share dependency caches of their own under buildfixer's cache directory (trust domain
`benchmarks/judge-corpus`), so a second run is warm. The cases of one project reuse one working
copy: its node_modules and Python venv survive from case to case (Maven builds clean first), and
a base tree already built in this run (the same files after the same setup) is not built again.
One case's exception is recorded in its row and the run goes on. Output: a line per case as it
ends, a table by kind, JSON lines (`--out`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judge"))

import semantic_corpus as corpus  # noqa: E402

from buildfixer.buildsys.options import BuildOptions  # noqa: E402
from buildfixer.buildsys.project import build_project, detect_build_system, stop_daemons  # noqa: E402
from buildfixer.judge.judge import judge_patch  # noqa: E402
from buildfixer.workspace.workspace import apply_patch  # noqa: E402

TRUST_DOMAIN = "benchmarks/judge-corpus"
KEEP = {"node_modules"}  # kept in a project's working copy between cases (warm installs)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--kind", default="", help=f"one kind: {', '.join(corpus.KINDS)}")
    parser.add_argument(
        "--project", default="", help="the cases of one project (a folder of tests/judge/corpus)"
    )
    parser.add_argument(
        "--run-tests", action="store_true", help="also judge with the dynamic rule (two more builds)"
    )
    parser.add_argument(
        "--no-build", action="store_true", help="skip the builds: check the patches apply, judge them"
    )
    parser.add_argument("--out", type=Path, help="write one JSON line per case here")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per build")
    return parser.parse_args(argv)


def selected(args: argparse.Namespace) -> dict[str, corpus.Case]:
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in names if name not in corpus.CASES]
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(unknown)}")
    if args.kind and args.kind not in corpus.KINDS:
        raise SystemExit(f"unknown kind {args.kind!r}: one of {', '.join(corpus.KINDS)}")
    cases = {name: corpus.CASES[name] for name in names} if names else dict(corpus.CASES)
    return {
        name: case
        for name, case in cases.items()
        if (not args.kind or case.kind == args.kind) and (not args.project or case.project == args.project)
    }


def write_tree(tree: Path, files: dict[str, str]) -> None:
    """Make `tree` hold exactly `files` (and what KEEP keeps), the folder itself left in place.

    A warm build's sandbox session is bound to the folder: it is emptied, never replaced.
    """
    tree.mkdir(parents=True, exist_ok=True)
    for child in tree.iterdir():
        if child.name in KEEP:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    for path, text in files.items():
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def check_tree(tree: Path, files: dict[str, str], paths: set[str]) -> None:
    """The patched tree holds what the case's edits make, for every path they touch."""
    for path in sorted(paths):
        target = tree / path
        if path not in files:
            assert not target.exists(), f"the patch left {path}, which the edits delete"
        else:
            assert target.is_file() and target.read_text() == files[path], f"the patch made {path} differ"


def digest(files: dict[str, str]) -> str:
    hasher = hashlib.sha256()
    for path in sorted(files):
        hasher.update(f"{path}\0{files[path]}\0".encode())
    return hasher.hexdigest()


class Runner:
    """Builds the cases of each project in one working copy under a scratch folder."""

    def __init__(self, scratch: Path, timeout: float) -> None:
        self.scratch = scratch
        self.timeout = timeout
        self.options: dict[str, BuildOptions] = {}
        self.bases: dict[tuple[str, str], dict[str, Any]] = {}

    def tree(self, project: str) -> Path:
        return self.scratch / project / "tree"

    def options_for(self, project: str, system: str) -> BuildOptions:
        if project not in self.options:
            self.options[project] = BuildOptions(
                timeout_s=self.timeout,
                # Maven builds clean first (a renamed test's old class would still run otherwise);
                # npm and Python keep node_modules and the venv between the cases of a project.
                warm=system != "maven",
                state_dir=self.scratch / project / f"state-{self.scratch.name}-{project}",
                trust_domain=TRUST_DOMAIN,
            )
        return self.options[project]

    def build(self, project: str) -> dict[str, Any]:
        tree = self.tree(project)
        options = self.options_for(project, detect_build_system(tree))
        start = time.monotonic()
        result = build_project(tree, options)
        return {
            "status": result.status,
            "ok": result.status == "success",
            "exit_code": result.exit_code,
            "seconds": round(time.monotonic() - start, 1),
            "tail": result.output_tail[-3000:],
        }

    def close(self, project: str) -> None:
        if project in self.options:
            stop_daemons(self.tree(project), self.options[project])


def run_case(
    name: str, case: corpus.Case, runner: Runner | None, run_tests: bool, scratch: Path
) -> dict[str, Any]:
    row: dict[str, Any] = {"case": name, "project": case.project, "kind": case.kind, "about": case.about}
    start = time.monotonic()
    try:
        patch = corpus.patch_of(case)
        before, after = corpus.state(case, patched=False), corpus.state(case)
        touched = {path for path, _, _ in case.edits}
        if runner is not None:
            tree = runner.tree(case.project)
            write_tree(tree, before)
            key = (case.project, digest(before))
            reused = key in runner.bases
            if not reused:
                runner.bases[key] = runner.build(case.project)
            row["base"] = {**runner.bases[key], "reused": reused}
            apply_patch(tree, patch)
            check_tree(tree, after, touched)
            row["patched"] = runner.build(case.project)
            row["proven"] = not row["base"]["ok"] and row["patched"]["ok"]
            # The end of a build's output only where it went the unexpected way.
            if not row["base"]["ok"]:
                row["base"].pop("tail")
            if row["patched"]["ok"]:
                row["patched"].pop("tail")
        else:
            with tempfile.TemporaryDirectory(dir=scratch) as folder:
                tree = Path(folder) / "tree"
                write_tree(tree, before)
                apply_patch(tree, patch)
                check_tree(tree, after, touched)
        with tempfile.TemporaryDirectory(dir=scratch) as folder:  # the project as the judge gets it
            verdict = judge_patch(patch, corpus.apply_setup(case, Path(folder) / case.project))
        row["static"] = {"approved": verdict.approved, "rules": sorted({f.rule for f in verdict.findings})}
        if run_tests:
            with tempfile.TemporaryDirectory(dir=scratch) as folder:
                project = corpus.apply_setup(case, Path(folder) / case.project)
                options = BuildOptions(
                    timeout_s=runner.timeout if runner else 900.0, trust_domain=TRUST_DOMAIN
                )
                verdict = judge_patch(patch, project=project, run_tests=True, options=options)
            row["dynamic"] = {
                "approved": verdict.approved,
                "rules": sorted({f.rule for f in verdict.findings}),
                "notes": verdict.notes,
            }
    except Exception as exc:  # one case's failure is recorded, the run goes on
        row["error"] = f"{type(exc).__name__}: {exc}"
        row["traceback"] = traceback.format_exc(limit=6)
    row["seconds"] = round(time.monotonic() - start, 1)
    return row


def caught(row: dict[str, Any], side: str) -> bool | None:
    """Whether the judge rejected the patch (None when that judge did not run)."""
    return None if side not in row else not row[side]["approved"]


def progress(index: int, total: int, row: dict[str, Any]) -> str:
    if "error" in row:
        outcome = f"ERROR {row['error'][:160]}"
    else:
        proof = ""
        if "proven" in row:
            base = "fail" if not row["base"]["ok"] else "PASS"
            patched = "pass" if row["patched"]["ok"] else "FAIL"
            proof = f"base {base} -> patched {patched}{'' if row['proven'] else ' NOT PROVEN'}; "
        static = "rejected" if caught(row, "static") else "approved"
        rules = ",".join(row["static"]["rules"])
        outcome = f"{proof}static {static}{f' ({rules})' if rules else ''}"
        if "dynamic" in row:
            dynamic = "rejected" if caught(row, "dynamic") else "approved"
            outcome += f"; with tests {dynamic} ({','.join(row['dynamic']['rules'])})"
    return f"[{index}/{total}] {row['case']} ({row['kind']}, {row['seconds']}s): {outcome}"


def table(rows: list[dict[str, Any]], built: bool, run_tests: bool) -> str:
    """Counts by kind: cases, proven (fail -> pass), errors, rejected statically and with the tests."""
    columns = ["cases", "proven", "errors", "caught static"] + (["caught w/ tests"] if run_tests else [])

    def line(label: str, group: list[dict[str, Any]]) -> str:
        counts = [
            len(group),
            sum(1 for r in group if r.get("proven")) if built else "-",
            sum(1 for r in group if "error" in r),
            sum(1 for r in group if caught(r, "static")),
            sum(1 for r in group if caught(r, "dynamic")),
        ]
        cells = [f"{count:>{len(column)}}" for count, column in zip(counts, columns, strict=False)]
        return f"{label:<22} " + " ".join(cells)

    header = f"{'kind':<22} " + " ".join(columns)
    lines = [header, "-" * len(header)]
    for kind in corpus.HACK_KINDS:
        if group := [row for row in rows if row["kind"] == kind]:
            lines.append(line(kind, group))
    lines.append(line("all hacks", [row for row in rows if row["kind"] != "honest"]))
    if honest := [row for row in rows if row["kind"] == "honest"]:
        lines.append(line("honest (caught = FP)", honest))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cases = selected(args)
    if not cases:
        raise SystemExit("no case selected")
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    out = args.out.open("w") if args.out else None
    by_project: dict[str, list[tuple[str, corpus.Case]]] = defaultdict(list)
    for name, case in cases.items():
        by_project[case.project].append((name, case))
    with tempfile.TemporaryDirectory(prefix="judge-corpus-") as folder:
        scratch = Path(folder)
        runner = None if args.no_build else Runner(scratch, args.timeout)
        try:
            for project, group in by_project.items():
                try:
                    for name, case in group:
                        row = run_case(name, case, runner, args.run_tests, scratch)
                        rows.append(row)
                        print(progress(len(rows), len(cases), row), flush=True)
                        if out:
                            out.write(json.dumps(row) + "\n")
                            out.flush()
                finally:
                    if runner is not None:
                        runner.close(project)
        finally:
            if out:
                out.close()
    print()
    print(table(rows, built=not args.no_build, run_tests=args.run_tests))
    unproven = [row["case"] for row in rows if runner is not None and not row.get("proven")]
    if unproven:
        print(f"\nnot proven (base must fail, patched must pass) or errored: {', '.join(unproven)}")
    print(f"\n{len(rows)} cases in {time.monotonic() - started:.0f}s")
    return 1 if unproven or any("error" in row for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
