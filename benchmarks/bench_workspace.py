"""Workspace create/acquire/reset vs a plain `git clone` of a 10k-file repository, in the same run.

Usage: python benchmarks/bench_workspace.py [--files 10000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from common import median_of

from buildfixer.workspace.workspace import Workspace


def make_repo(root: Path, files: int) -> Path:
    repo = root / "big"
    for i in range(files):
        path = repo / f"pkg{i % 100}" / f"File{i}.java"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"package pkg{i % 100};\nclass File{i} {{ int v = {i}; }}\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"], cwd=repo, check=True
    )
    for i in range(0, files, files // 100):  # a second commit touching 100 files
        (repo / f"pkg{i % 100}" / f"File{i}.java").write_text(f"class File{i} {{ long v = {i}; }}\n")
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qam", "next"], cwd=repo, check=True
    )
    return repo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_repo(root, args.files)
        cache = root / "cache"
        counter = iter(range(10_000))

        def clone() -> None:
            dest = root / f"clone{next(counter)}"
            subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True)
            shutil.rmtree(dest)

        first = Workspace.create(repo, dest=root / "first", cache_dir=cache)  # includes the mirror
        workspaces: list[Workspace] = []

        def create() -> None:
            workspaces.append(Workspace.create(repo, dest=root / f"ws{next(counter)}", cache_dir=cache))

        def edit_and_reset() -> None:
            for i in range(20):  # an attempt's edits: changed, new and build-output files
                (first.root / f"pkg{i}" / f"File{i}.java").write_text("broken\n")
            (first.root / "build").mkdir(exist_ok=True)
            (first.root / "build" / "out.class").write_bytes(b"x" * 1000)
            first.reset()

        def acquire_release() -> None:
            # The harness's path: a pooled checkout moved to another commit and cleaned.
            Workspace.acquire(repo, commits[next(counter) % 2], cache_dir=cache).release()

        head = subprocess.run(
            ["git", "rev-parse", "HEAD", "HEAD~1"], cwd=repo, capture_output=True, text=True
        )
        commits = head.stdout.split()  # alternate between two commits 100 files apart
        t_clone = median_of(clone, args.repeats)
        t_create = median_of(create, args.repeats)
        Workspace.acquire(repo, cache_dir=cache).release()  # fill the pool once
        t_pooled = median_of(acquire_release, args.repeats)
        t_reset = median_of(edit_and_reset, args.repeats)
        for ws in workspaces:
            ws.remove()
        print(f"files: {args.files}, median of {args.repeats}")
        print(f"git clone (local):          {t_clone:.3f} s  (baseline 1.00x)")
        print(f"workspace create (worktree): {t_create:.3f} s  ({t_create / t_clone:.2f}x)")
        print(f"workspace acquire (pooled):  {t_pooled:.3f} s  ({t_pooled / t_clone:.2f}x)")
        print(f"workspace edit + reset:      {t_reset:.3f} s  ({t_reset / t_clone:.2f}x)")


if __name__ == "__main__":
    main()
