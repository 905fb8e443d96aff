"""The base a failure is compared with, and its build in a checkout of its own.

The base ref is `--base REF` when given; else, in a pull request's CI job, `GITHUB_BASE_REF`; else
the upstream's default branch (`origin/HEAD`); else `origin/main`, `main`, `origin/master`,
`master`, the first that exists. The commit built is where the current branch left that ref
(their merge base): the question is whether this branch's own commits broke the build. When that
is HEAD itself (the branch is the base, or only behind it) there is nothing to compare.

The base commit is built in a worktree of buildfixer's mirror of the repository (workspace.Workspace),
never in the user's checkout, whose files, index, branches and `.git` stay as they are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system, discard_state, stop_daemons
from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.git import git
from buildfixer.workspace.workspace import Workspace, mirror_of

# Refs tried, in order, when none is given (after GITHUB_BASE_REF and origin/HEAD).
DEFAULT_BRANCHES = ("origin/main", "main", "origin/master", "master")


@dataclass(frozen=True)
class Base:
    """The commit a failure is compared with.

    Attributes:
        ref: The ref it was found from (`main`, `origin/main`).
        how: Where the ref came from: `--base`, `GITHUB_BASE_REF`, `origin/HEAD` or `default branch`.
        commit: The commit built: the merge base of HEAD and the ref.
        repository: The top of the user's checkout.
        folder: The project's folder in the repository ("" at its top).
    """

    ref: str
    how: str
    commit: str
    repository: Path
    folder: str

    def to_dict(self) -> dict[str, str]:
        """The evidence form (no path of this machine)."""
        return {"ref": self.ref, "how": self.how, "commit": self.commit, "folder": self.folder or "."}


def find_base(
    project: Path, given: str | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Base | None, str]:
    """The base to compare a failure of `project` with, or None and why there is none.

    Raises:
        BuildfixerError: `given` is not a ref or commit of the project's repository (or there is
            no repository): the caller asked for it, so it is an error, not a note.
    """
    environ = os.environ if environ is None else environ
    top = git("rev-parse", "--show-toplevel", cwd=project, check=False).strip()
    if not top:
        if given:
            raise BuildfixerError(f"--base {given}: {project} is not in a git checkout")
        return None, "not a git checkout: no base to compare with"
    root = Path(top).resolve()
    head = _commit(root, "HEAD")
    if not head:
        if given:
            raise BuildfixerError(f"--base {given}: the repository has no commit yet")
        return None, "the repository has no commit yet"
    if given:
        if not _commit(root, given):
            raise BuildfixerError(f"--base {given}: no such branch, tag or commit in {root}")
        ref, how = given, "--base"
    else:
        found = _default_ref(root, environ)
        if found is None:
            return None, "no base branch found (none of GITHUB_BASE_REF, origin/HEAD, main, master)"
        ref, how = found
    merge_base = git("merge-base", "HEAD", ref, cwd=root, check=False).strip()
    commit = merge_base or _commit(root, ref)
    if commit == head:
        return None, f"HEAD is on the base ({ref}): nothing to compare with"
    folder = project.resolve().relative_to(root).as_posix()
    return Base(ref, how, commit, root, "" if folder == "." else folder), ""


def _commit(root: Path, ref: str) -> str:
    """The commit a ref names in the repository, or "" (a ref starting with "-" is never an option)."""
    if ref.startswith("-"):
        return ""
    return git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", cwd=root,
               check=False).strip()  # fmt: skip


def _default_ref(root: Path, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The first base ref that exists: the pull request's base, the upstream's default, main, master."""
    wanted = environ.get("GITHUB_BASE_REF", "").strip()
    if wanted:
        for ref in (f"origin/{wanted}", wanted):
            if _commit(root, ref):
                return ref, "GITHUB_BASE_REF"
    upstream = git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", cwd=root, check=False)
    if upstream.strip() and _commit(root, upstream.strip()):
        return upstream.strip(), "origin/HEAD"
    return next(((ref, "default branch") for ref in DEFAULT_BRANCHES if _commit(root, ref)), None)


def build_base(
    base: Base, options: BuildOptions, system: str | None = None
) -> tuple[BuildResult | None, str]:
    """Build the base commit with the options of the failing build; the result, or None and why not.

    The worktree, its build state and its daemons are gone afterwards; the build's log stays (the
    evidence points at it).
    """
    mirror = mirror_of(base.repository, options.cache_dir)
    if not _commit_in(mirror, base.commit):
        # A commit only a remote-tracking ref holds (origin/main): the mirror copies branches and tags.
        git("fetch", "--quiet", "origin", f"+{base.commit}:refs/buildfixer/triage-base", git_dir=mirror,
            check=False)  # fmt: skip
    workspace = Workspace.create(base.repository, base.commit, cache_dir=options.cache_dir)
    root = workspace.root / base.folder if base.folder else workspace.root
    built = replace(options, state_dir=None, log_path=None)  # the worktree's own state, never the project's
    try:
        if not root.is_dir():
            return None, f"the base commit has no folder {base.folder}"
        try:
            detect_build_system(root)
        except BuildfixerError:
            return None, "the base commit has no build in the project's folder"
        result, _ = build_and_analyze(root, built, system)
        return result, ""
    finally:
        stop_daemons(root, built)
        discard_state(built.state_for(root))
        workspace.remove()


def _commit_in(mirror: Path, commit: str) -> bool:
    found = git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", git_dir=mirror, check=False)
    return bool(found.strip())
