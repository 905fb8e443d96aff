"""Re-validation after a one-line edit: warm tooling vs the cold protocol of the study.

Warm: Gradle daemon kept, build outputs, venv and node_modules kept (BuildOptions(warm=True)).
Cold: daemons stopped, `clean`, fresh venv / node_modules (BuildOptions(warm=False)).
For each project: build once warm (tooling up), then for every variant: apply it and time one warm
and one cold build of the same tree; verdicts and categories must be identical. Then the same for a
harmless one-line edit of the base (a comment), which must succeed both ways.
Usage: python benchmarks/bench_revalidation.py [--projects ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.examples import load_examples, materialize_base

COMMENT = {
    ".java": "// edited\n",
    ".kt": "// edited\n",
    ".py": "# edited\n",
    ".ts": "// edited\n",
    ".js": "// edited\n",
}


def one_line_edit(project: Path) -> None:
    for path in sorted(project.rglob("*")):
        if path.suffix in COMMENT and "test" not in str(path.relative_to(project)).lower() and path.is_file():
            if "node_modules" in path.parts:
                continue
            path.write_text(path.read_text() + COMMENT[path.suffix])
            return
    raise SystemExit(f"no source file to edit in {project}")


def restore(project: Path) -> None:
    """Back to the base sources; ignored build outputs (build/, target/, node_modules) stay warm."""
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=project, check=True)
    subprocess.run(["git", "clean", "-qfd"], cwd=project, check=True)


def verdict(project: Path, warm: bool, jdk: int | None) -> tuple[str, str | None, float]:
    result, _ = build_and_analyze(project, BuildOptions(warm=warm, jdk=jdk, timeout_s=900))
    return result.status, result.category, result.duration_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", nargs="+", default=None)
    args = parser.parse_args()
    examples = load_examples()
    projects = args.projects or sorted({e.project for e in examples})
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in projects:
            project = materialize_base(name, Path(tmp) / name)
            subprocess.run(["git", "init", "-q"], cwd=project, check=True)
            subprocess.run(["git", "add", "-A"], cwd=project, check=True)
            subprocess.run(
                ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
                cwd=project,
                check=True,
            )
            verdict(project, True, None)  # tooling up: daemon, venv, node_modules
            cases = [("one-line edit", None, None)] + [
                (e.variant, e.patch_path, e.jdk) for e in examples if e.project == name
            ]
            for label, patch, jdk in cases:
                if patch is None:
                    one_line_edit(project)
                else:
                    subprocess.run(["git", "apply", str(patch)], cwd=project, check=True)
                warm = verdict(project, True, jdk)
                cold = verdict(project, False, jdk)
                restore(project)
                verdict(project, True, None)  # warm the tooling up again (on the base) for the next case
                same = warm[:2] == cold[:2]
                rows.append((name, label, warm, cold, same))
                print(
                    f"{name:<11} {label:<22} warm {warm[2]:6.2f}s {warm[0]:<8}"
                    f" cold {cold[2]:6.2f}s {cold[0]:<8}"
                    f" speed-up {cold[2] / warm[2]:5.2f}x  verdicts {'identical' if same else 'DIFFER'}"
                )
            stop_daemons(project)
    for name in projects:
        mine = [r for r in rows if r[0] == name]
        warm_total = sum(r[2][2] for r in mine)
        cold_total = sum(r[3][2] for r in mine)
        print(
            f"{name:<11} total warm {warm_total:7.2f}s cold {cold_total:7.2f}s"
            f" speed-up {cold_total / warm_total:5.2f}x"
            f" (median per case {statistics.median(r[3][2] / r[2][2] for r in mine):.2f}x)"
        )
    differ = [r for r in rows if not r[4]]
    print(f"verdicts identical on {len(rows) - len(differ)}/{len(rows)} cases")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
