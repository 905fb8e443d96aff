"""Regenerate the bundled benchmark: fixture repositories (git bundles) and `instances.jsonl`.

    python -m buildfixer.bench.data.make_dataset [--out DIR] [--no-logs] [--keep DIR]

Each repository (`history_maven.py`, `history_gradle.py`, `history_python.py`, `history_npm.py`;
the format: `history_format.py`) is built commit by commit from a bundled
example base, with fixed authors and dates (and no user git configuration), so commit hashes are
the same on every machine and run. Every instance's `error_log` comes from a real build of its
base commit, which must fail with the instance's category; the generator stops otherwise.
Logs are normalized (workspace and cache paths, elapsed times) so reruns change little.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from buildfixer.bench.data import DATA_DIR
from buildfixer.bench.data.history_format import (
    AUTHORS,
    FixtureCommit,
    FixtureEdit,
    Import,
    Move,
    Patch,
    Replace,
    RepoSpec,
    Revert,
    Write,
)
from buildfixer.bench.data.history_gradle import INVENTORY
from buildfixer.bench.data.history_maven import WORDSTATS
from buildfixer.bench.data.history_npm import CART
from buildfixer.bench.data.history_python import SEMVERKIT
from buildfixer.bench.dataset import Instance, checkout, save_dataset
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.errors import BuildfixerError
from buildfixer.examples import EXAMPLES_DIR, materialize_base
from buildfixer.logs.excerpt import normalize_log
from buildfixer.logs.text import read_log

REPOS: tuple[RepoSpec, ...] = (WORDSTATS, INVENTORY, SEMVERKIT, CART)


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git with no user or system configuration; a failure raises BuildfixerError."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    clean.update({"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"})
    proc = subprocess.run(
        ["git", *args], cwd=repo, env={**clean, **(env or {})}, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise BuildfixerError(f"git {' '.join(args[:2])} failed in {repo}: {proc.stderr.strip()}")
    return proc.stdout


def _apply(repo: Path, edit: FixtureEdit) -> None:
    """Make one edit in the working tree."""
    if isinstance(edit, Import):
        with tempfile.TemporaryDirectory() as tmp:
            base = materialize_base(edit.project, Path(tmp) / "base")
            shutil.copytree(base, repo, dirs_exist_ok=True)
    elif isinstance(edit, Replace):
        path = repo / edit.path
        text = path.read_text(encoding="utf-8")
        if text.count(edit.old) != 1:
            raise BuildfixerError(
                f"{edit.path}: expected one occurrence of {edit.old!r}, found {text.count(edit.old)}"
            )
        path.write_text(text.replace(edit.old, edit.new), encoding="utf-8")
    elif isinstance(edit, Write):
        (repo / edit.path).parent.mkdir(parents=True, exist_ok=True)
        (repo / edit.path).write_text(edit.text, encoding="utf-8")
    elif isinstance(edit, Move):
        (repo / edit.to).parent.mkdir(parents=True, exist_ok=True)
        (repo / edit.path).rename(repo / edit.to)
    elif isinstance(edit, Patch):
        _git(
            repo,
            "apply",
            "--whitespace=nowarn",
            str(EXAMPLES_DIR / edit.project / "variants" / f"{edit.variant}.patch"),
        )
    elif isinstance(edit, Revert):
        _git(repo, "revert", "--no-commit", "HEAD")


def _commit(repo: Path, commit: FixtureCommit, when: datetime) -> str:
    """Apply a commit's edits and record it with its author at a fixed time; its hash."""
    for edit in commit.edits:
        _apply(repo, edit)
    for path in repo.rglob("*"):  # modes are part of the hash: same on every machine
        if path.is_file() and ".git" not in path.relative_to(repo).parts:
            path.chmod(0o644)
    name, email = AUTHORS[commit.author]
    stamp = when.isoformat()
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": stamp,
    }
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "--no-verify", "-m", commit.message, env=env)
    return _git(repo, "rev-parse", "HEAD").strip()


def build_repo(spec: RepoSpec, dest: Path) -> dict[str, str]:
    """Create the repository of `spec` in `dest` (absent or empty).

    Returns:
        Commit hash of every labelled commit.
    """
    dest.mkdir(parents=True, exist_ok=True)
    _git(dest, "init", "--quiet", "--initial-branch=main")
    labels: dict[str, str] = {}
    when = datetime.fromisoformat(spec.start)
    step = 0

    def record(commit: FixtureCommit) -> None:
        nonlocal when, step
        sha = _commit(dest, commit, when)
        if commit.label:
            labels[commit.label] = sha
        step += 1
        when += timedelta(hours=20 + (step * 7) % 11, minutes=(step * 23) % 60)

    for commit in spec.main:
        record(commit)
    tip = _git(dest, "rev-parse", "HEAD").strip()
    for branch in spec.branches:
        _git(dest, "checkout", "--quiet", "-b", branch.name, tip)
        for commit in branch.commits:
            record(commit)
    _git(dest, "checkout", "--quiet", "main")
    return labels


def write_git_bundle(repo: Path, out: Path) -> None:
    """Every branch of `repo` into one git bundle file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    _git(repo, "-c", "pack.threads=1", "bundle", "create", "--quiet", str(out), "--all")


def instance_records(
    spec: RepoSpec, repo: Path, labels: dict[str, str], repo_ref: str
) -> list[dict[str, object]]:
    """The instances of one repository, without their error logs."""
    records: list[dict[str, object]] = []
    for inst in spec.instances:
        base, fix = labels[inst.base], labels[inst.fix]
        records.append(
            {
                "instance_id": inst.instance_id,
                "repo": repo_ref,
                "base_commit": base,
                "fix_commit": fix,
                "gold_patch": _git(repo, "diff", "--binary", "--no-color", "--no-ext-diff", base, fix),
                "origin": inst.origin,
                "category": inst.category,
                "build_system": spec.build_system,
                "build_command": None,
                "jdk": inst.jdk,
                "error_log": "",
                "created_at": _git(repo, "show", "-s", "--format=%aI", base).strip(),
                "split": "test",
            }
        )
    return records


def record_error_log(record: dict[str, object], data_dir: Path) -> str:
    """Build the instance's base commit; its normalized log (it must fail as the record says)."""
    instance = Instance.model_validate(record)
    with tempfile.TemporaryDirectory(prefix="make-dataset-") as tmp:
        options = BuildOptions(jdk=instance.jdk, log_path=Path(tmp) / "build.log")
        ws = checkout(instance, data_dir, options.cache_dir)
        try:
            result, _ = build_and_analyze(ws.root, options, instance.build_system)
            log = read_log(result.log_path, strict=False)  # a flood: its head and tail
        finally:
            stop_daemons(ws.root, options)
            ws.reset()
            ws.release()
    if result.status != "failure" or result.category != instance.category:
        raise BuildfixerError(
            f"{instance.instance_id}: base build ended {result.status}/{result.category}, "
            f"expected failure/{instance.category}"
        )
    return normalize_log(log, ws.root, options.cache_dir)


def make_dataset(out: Path, with_logs: bool = True, keep: Path | None = None) -> Path:
    """Write `repos/*.bundle` and `instances.jsonl` into `out`; the path of the JSONL."""
    work = Path(tempfile.mkdtemp(prefix="bench-repos-")) if keep is None else keep
    records: list[dict[str, object]] = []
    try:
        for spec in REPOS:
            repo = work / spec.name
            if repo.exists():
                shutil.rmtree(repo)
            labels = build_repo(spec, repo)
            write_git_bundle(repo, out / "repos" / f"{spec.name}.bundle")
            records += instance_records(spec, repo, labels, f"repos/{spec.name}.bundle")
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    for record in records:
        if with_logs:
            print(f"building {record['instance_id']} ...", file=sys.stderr, flush=True)
            record["error_log"] = record_error_log(record, out)
    target = out / "instances.jsonl"
    save_dataset([Instance.model_validate(r) for r in records], target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command line of the generator."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=DATA_DIR, help="Output directory (default: the package's)."
    )
    parser.add_argument("--no-logs", action="store_true", help="Skip the builds; error_log stays empty.")
    parser.add_argument("--keep", type=Path, help="Keep the working repositories in this directory.")
    args = parser.parse_args(argv)
    try:
        target = make_dataset(args.out.resolve(), with_logs=not args.no_logs, keep=args.keep)
    except BuildfixerError as exc:
        print(f"make_dataset: error: {exc}", file=sys.stderr)
        return 2
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
