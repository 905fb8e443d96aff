"""`buildfixer fix`: repair a project in a private copy, and change the real one only when it builds.

The agent works in a snapshot workspace, so a failed or interrupted attempt never leaves the
user's project half-edited. When the harness's final build succeeds, the changed files are
copied back (each one atomically); with `dry_run` the patch is only returned.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from buildfixer.buildsys.jdk import find_jdk
from buildfixer.buildsys.project import detect_build_system, discard_state, stop_daemons
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.core.progress import Progress
from buildfixer.delivery.pull_request import (
    PullRequest,
    commit_on_branch,
    message,
    open_pull_request,
    repository_of,
)
from buildfixer.harness.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.harness.checks import check_output_path
from buildfixer.harness.remember import memory_path, remember
from buildfixer.llm.factory import check_model
from buildfixer.memory.trust import repository_domain
from buildfixer.triage import find_base
from buildfixer.workspace.git import git, git_bytes, literal
from buildfixer.workspace.owners import owner_is_dead
from buildfixer.workspace.workspace import Workspace


@dataclass
class FixOutcome:
    """The result of `fix`: the attempt, its patch, and whether the project was changed.

    `patch` is the repair alone (the files edited on purpose, never what builds wrote), and it is
    exactly what was applied when `applied` is true. `refused` names edits of the user's git-ignored
    files, which are undone before the verdict; `conflict` says why a resolved repair was not applied.
    """

    attempt: AttemptResult
    patch: str
    changed_files: list[str]
    applied: bool
    trajectory_path: Path
    refused: list[str] = field(default_factory=list)
    conflict: str = ""
    left_out: list[str] = field(default_factory=list)
    pull_request: PullRequest | None = None


def default_trajectory_path(project: Path) -> Path:
    """Where a fix's trajectory goes unless the user names a file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return cache_root() / "trajectories" / f"{project.resolve().name}-{stamp}-{os.getpid()}.json"


def fix_project(
    project: Path, config: AttemptConfig, dry_run: bool = False, progress: Progress | None = None,
    pr: bool = False, system: str | None = None,
) -> FixOutcome:  # fmt: skip
    """Repair `project`: attempt in a snapshot, verdict build, copy the changes back on success.

    With `pr` the project's files are left alone: a repair goes on a new branch of its git
    repository as one commit (and into a pull request when `gh` can open one). `system` chooses
    the build of a project that has two (see `detect_build_system`).
    """
    project = project.resolve()
    if not project.is_dir():
        raise BuildfixerError(f"not a directory: {project}")
    if pr and dry_run:
        raise BuildfixerError("--pr and --dry-run exclude each other (--pr never changes the working tree)")
    if config.triage == "full" and config.triage_checkout is None:
        config.triage_checkout = project  # the base is found in the user's checkout, never the snapshot
    check_usable(project, config, system)
    repository = repository_of(project) if pr else None
    if config.trajectory_path is None:
        config.trajectory_path = default_trajectory_path(project)
    # A fix killed with -9 left its workspace's build state (a venv, a daemon registry), named
    # after the workspace and so after its process (Workspace sweeps the workspace itself). The
    # logs stay: its trajectory points at them.
    for state in (config.options.cache_dir / "state").glob("ws-*"):
        if owner_is_dead(state.name.rsplit("-", 1)[0]):
            discard_state(state)
    # The repository the repair is learned on, and whose remembered fixes it may replay (memory.trust).
    config.memory_domain = config.memory_domain or repository_domain(project)
    workspace = Workspace.from_directory(project, cache_dir=config.options.cache_dir)
    config.frozen = set(workspace.protected)
    try:
        shown: dict[str, Any] = {}

        def repair(edited: list[str] | None) -> str:
            """The edits alone; one tree for the patch shown and judged and the files written."""
            shown["changed"] = changed = workspace.changed_files(edited)
            shown["tree"] = tree = workspace.write_tree()
            return workspace.diff(changed, tree=tree)

        # The attempt judges its repair: one removing tests or checks is never copied back.
        attempt = run_attempt(
            workspace.root, config, progress, meta={"source": str(project)}, system=system, diff=repair
        )
        patch, changed, tree = attempt.patch, shown["changed"], shown["tree"]
        edited = attempt.edited
        remember(
            attempt.initial, attempt.resolved, edited, patch,
            memory_path(config.options.cache_dir, config.memory_path), origin=config.memory_domain,
        )  # fmt: skip
        applied, conflict, pull = False, "", None
        if attempt.resolved and changed and repository is not None:
            root, folder = repository
            text = message(
                attempt.initial, attempt.verdict, patch, attempt.judge, workspace.root, attempt.triage
            )
            pull = open_pull_request(root, commit_on_branch(root, folder, patch, text), text)
        elif attempt.resolved and changed and not dry_run:
            try:
                copy_back(workspace, project, changed, tree)
                applied = True
            except CopyConflict as exc:
                conflict = str(exc)
    finally:
        stop_daemons(workspace.root, config.options)
        discard_state(config.options.state_for(workspace.root))
        workspace.remove()
    return FixOutcome(
        attempt, patch, changed, applied, config.trajectory_path, attempt.refused, conflict,
        workspace.left_out, pull,
    )  # fmt: skip


def check_usable(project: Path, config: AttemptConfig, system: str | None = None) -> None:
    """Refuse what would fail only later, before any snapshot or build.

    That is: no build, a JDK that is not installed, a trajectory that cannot be written, a base
    ref for triage that the repository does not have, or a model that could not answer (a
    missing or malformed script, an unknown provider, missing credentials:
    `llm.factory.check_model`, which imports litellm for a litellm model).

    Raises:
        BuildfixerError: The first problem, in one line.
    """
    detect_build_system(project, system)
    if config.options.jdk is not None:
        find_jdk(config.options.jdk)
    if config.trajectory_path is not None:
        check_output_path("trajectory", config.trajectory_path, directory=False)
    if config.triage_base and config.triage_checkout is not None:
        find_base(config.triage_checkout, config.triage_base)  # a base that is no ref: one line, exit 2
    agent = config.agent_name()
    if config.judge_model:
        check_model(config.judge_model, **config.model_settings.model_kwargs())
    if not config.needs_model():
        return
    specs = [s for s in config.model.split(",") if s.strip()] if agent == "cascade" else [config.model]
    for spec in specs or [""]:
        check_model(spec, **config.model_settings.model_kwargs())


class CopyConflict(BuildfixerError):
    """The repair cannot be written as it is: nothing was written.

    The project changed since the snapshot where the repair would write, or the repair holds a
    link pointing out of the project, a git repository (nested, or a folder shaped like one), or
    a path that is no file of the project (`..`, `.git`, through a link).
    """


def _blob_id(path: Path) -> str | None:
    """The git blob id of a file or symlink as it is on disk (None when absent)."""
    try:
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    except FileNotFoundError:
        return None
    except (IsADirectoryError, NotADirectoryError):
        return "directory"
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def copy_back(workspace: Workspace, dest_root: Path, paths: list[str], tree: str | None = None) -> None:
    """Make `dest_root` hold the repaired version of each path (deleted there: deleted here).

    The files come from `tree` (default: the workspace as it is now), a git tree object, never
    from the workspace's files: what lands is byte for byte what `Workspace.diff` shows for that
    tree. Each path must still be as the snapshot saw it: a file the user changed or created
    meanwhile (or one too large to be in the snapshot) is never overwritten. Links land as links,
    and only when they point inside the project. All files are staged first and moved into place
    together, so a refusal or a failure writes nothing.

    Raises:
        CopyConflict: a path changed since the snapshot, or would write or point out of the project.
    """
    dest_root = dest_root.resolve()
    for rel in paths:
        _check_destination(dest_root, rel)
    tree = tree or workspace.write_tree()
    _check_no_repository(workspace, tree, paths)
    base = _tree_entries(workspace, workspace.base_commit, paths)
    repaired = _tree_entries(workspace, tree, paths)
    contents: dict[str, bytes] = {}
    for rel in paths:
        if rel in repaired:
            mode, blob = repaired[rel]
            if mode == _GITLINK:
                raise CopyConflict(f"refusing to copy {rel}: a nested git repository; nothing was written")
            contents[rel] = git_bytes("cat-file", "blob", blob, git_dir=workspace.git_dir)
            if mode == _LINK:
                _check_link(workspace.root, dest_root, rel, os.fsdecode(contents[rel]))
        if _blob_id(dest_root / rel) != base.get(rel, ("", None))[1]:
            raise CopyConflict(f"{rel} changed since the snapshot was taken; nothing was written")
    staged: list[tuple[Path | None, Path]] = []
    try:
        for rel in paths:
            target = dest_root / rel
            if rel not in repaired:
                staged.append((None, target))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".{target.name}.buildfixer-{os.getpid()}"
            tmp.unlink(missing_ok=True)
            staged.append((tmp, target))
            _write_entry(tmp, repaired[rel][0], contents[rel], target)
        for pending, target in staged:
            if pending is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(pending, target)
    finally:
        for pending, _ in staged:
            if pending is not None:
                pending.unlink(missing_ok=True)


# Tree entry modes (git ls-tree).
_LINK, _GITLINK, _EXECUTABLE = "120000", "160000", "100755"


def _tree_entries(workspace: Workspace, tree: str, paths: list[str]) -> dict[str, tuple[str, str]]:
    """Mode and object id of each of these paths in a tree (absent paths left out)."""
    listed = git(
        "ls-tree", "-r", "-z", tree, "--", *literal(paths), git_dir=workspace.git_dir, cwd=workspace.root
    )
    entries = {}
    for entry in (e for e in listed.split("\0") if e):
        meta, rel = entry.split("\t", 1)
        mode, _, object_id = meta.split()
        entries[rel] = (mode, object_id)
    return entries


def _check_destination(dest_root: Path, rel: str) -> None:
    """Refuse a path that would land anywhere but `dest_root/rel`: out of it, in `.git`, through a link."""
    parts = PurePosixPath(rel).parts
    odd = rel != str(PurePosixPath(rel)) or rel.startswith("/")  # "./x", "a//b", absolute
    if not parts or odd or any(p in (".", "..") or p.lower() == ".git" for p in parts):
        raise CopyConflict(f"refusing to write {rel}: not a file of the project; nothing was written")
    folder = dest_root
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise CopyConflict(
                f"refusing to write {rel}: {folder.relative_to(dest_root)} is a link to "
                f"{os.readlink(folder)}; nothing was written"
            )


def _check_no_repository(workspace: Workspace, tree: str, paths: list[str]) -> None:
    """Refuse a repair that would create a git directory (a folder with HEAD and config) in the project.

    git takes such a folder for a bare repository when a command runs inside it, and then runs
    what its config names (fsmonitor, hooks): a trap the agent would leave for the user.
    """
    marks = ("HEAD", "config")
    folders = {PurePosixPath(p).parent for p in paths if PurePosixPath(p).name in marks}
    wanted = sorted(str(folder / mark) for folder in folders for mark in marks)
    present = _tree_entries(workspace, tree, wanted) if wanted else {}
    for folder in sorted(folders):
        if all(str(folder / mark) in present for mark in marks):
            raise CopyConflict(
                f"refusing to copy {folder}/: it holds HEAD and config, like a git repository; "
                "nothing was written"
            )


def _check_link(workspace_root: Path, dest_root: Path, rel: str, target: str) -> None:
    """Refuse a link that points out of the project (or into its `.git`), directly or through other links.

    Followed both in the repaired workspace (links the repair adds) and in the project (links the
    snapshot left out), so a chain of links cannot lead out either.
    """
    inside = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    parts = PurePosixPath(inside).parts
    escapes = os.path.isabs(target) or parts[:1] == ("..",) or any(p.lower() == ".git" for p in parts)
    for root in (workspace_root.resolve(), dest_root):
        try:
            escapes = escapes or not (root / inside).resolve().is_relative_to(root)
        except (OSError, RuntimeError):  # a loop of links
            escapes = True
    if escapes:
        raise CopyConflict(
            f"refusing to copy the link {rel} -> {target}: it points outside the project; nothing was written"
        )


def _write_entry(tmp: Path, mode: str, content: bytes, target: Path) -> None:
    """Write a tree entry at `tmp`: a link, or a file with the target's permissions (exec bit from git)."""
    if mode == _LINK:
        os.symlink(os.fsdecode(content), tmp)
        return
    try:
        old = target.lstat()
        perms = stat.S_IMODE(old.st_mode) if stat.S_ISREG(old.st_mode) else None
    except FileNotFoundError:
        perms = None
    executable = mode == _EXECUTABLE
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o777 if executable else 0o666)
    with os.fdopen(fd, "wb") as out:
        out.write(content)
    if perms is not None:  # an existing file keeps its permissions, with git's executable bit
        os.chmod(tmp, (perms | (perms & 0o444) >> 2) if executable else perms & ~0o111)
