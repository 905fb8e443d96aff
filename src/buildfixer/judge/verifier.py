"""The judge as a task's verifier runs it: on the repair in a checkout, with nothing but Python and git.

An exported Harbor task (export.harbor) carries the judge as a zip application, `tests/judge.pyz`
(this module and what it imports). Its `tests/test.sh` runs it after a passing build:

    python3 /tests/judge.pyz --project /app [--base-tree TREE] [--json FILE]

The repair is the difference between the failing state and the files now. The failing state is
the tree TREE, recorded at export: the checkout's commit is the agent's to rewrite, a tree object
is not (its name is its content's hash). Without TREE the checkout's first commit is taken.
git runs with a scratch repository of its own, reading only the checkout's objects: the
checkout's configuration, hooks and filters are the agent's, and never run here.

Exit status: 0 approved; 1 rejected, or no repair to judge (the failing state is gone); 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from buildfixer.core.terminal import visible
from buildfixer.judge.judge import judge_patch


class VerifierError(Exception):
    """The repair cannot be read: the verdict is a rejection."""


def repair_patch(project: Path, base_tree: str | None = None) -> str:
    """The unified diff from the failing state (`base_tree`, else the first commit) to the files now."""
    objects = project / ".git" / "objects"
    if not objects.is_dir() or objects.is_symlink():
        raise VerifierError(f"no git objects in {project}: the failing state is gone")
    with tempfile.TemporaryDirectory(prefix="buildfixer-verifier-") as scratch:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(objects),
            "GIT_DIR": str(Path(scratch) / "git"), "GIT_WORK_TREE": str(project), "LC_ALL": "C",
        }  # fmt: skip

        def git(*args: str) -> str:
            # init makes the scratch repository: a work tree is no bare repository's business.
            here = {k: v for k, v in env.items() if k != "GIT_WORK_TREE"} if args[0] == "init" else env
            done = subprocess.run(
                ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", *args],
                env=here, capture_output=True, text=True, errors="replace", timeout=600, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise VerifierError(f"git {args[0]}: {done.stderr.strip()[:300]}")
            return done.stdout

        git("init", "-q", "--bare")
        if base_tree is None:
            base_tree = _first_tree(project, env)
        git("read-tree", base_tree)
        git("add", "-A")
        return git(
            "diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--binary", base_tree
        )


def _first_tree(project: Path, env: dict[str, str]) -> str:
    """The tree of the checkout's first commit (HEAD read from its repository, objects from its store)."""
    done = subprocess.run(
        ["git", "--git-dir", str(project / ".git"), "-c", "core.hooksPath=/dev/null", "rev-list",
         "--max-parents=0", "HEAD"],
        env={k: v for k, v in env.items() if not k.startswith("GIT_DIR")}, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    roots = done.stdout.split()
    if done.returncode != 0 or not roots:
        raise VerifierError("the checkout has no first commit: the failing state is gone")
    return f"{roots[-1]}^{{tree}}"


def main(argv: list[str] | None = None) -> int:
    """Judge the repair in `--project`; print the verdict, write it to `--json`, exit 0 or 1."""
    parser = argparse.ArgumentParser(prog="judge.pyz", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", type=Path, required=True, help="the checkout the agent repaired")
    parser.add_argument("--base-tree", help="the failing state's git tree (recorded at export)")
    parser.add_argument("--json", type=Path, help="write the verdict here")
    args = parser.parse_args(argv)
    try:
        patch = repair_patch(args.project.resolve(), args.base_tree)
        verdict = judge_patch(patch, args.project.resolve()).to_dict() if patch.strip() else None
    except VerifierError as exc:
        verdict = {"approved": False, "findings": [], "notes": [f"no repair to judge: {exc}"]}
    if verdict is None:
        verdict = {"approved": False, "findings": [], "notes": ["no change to the failing state"]}
    if args.json is not None:
        args.json.write_text(json.dumps(verdict, indent=2) + "\n", encoding="utf-8")
    print(f"judge: {'approved' if verdict['approved'] else 'rejected'}")
    for finding in verdict["findings"]:  # the details quote lines the agent wrote
        where = f" ({finding['file']}:{finding['line'] or ''})" if finding["file"] else ""
        print(visible(f"  {finding['rule']}{where}: {finding['detail']}"))
    for note in verdict["notes"]:
        print(visible(f"  note: {note}"))
    return 0 if verdict["approved"] else 1


if __name__ == "__main__":
    sys.exit(main())
