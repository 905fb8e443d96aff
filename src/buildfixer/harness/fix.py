"""`buildfixer fix`: repair a project in a private copy, and change the real one only when it builds.

The agent works in a snapshot workspace, so a failed or interrupted attempt never leaves the
user's project half-edited. When the harness's final build succeeds, the changed files are
copied back (each one atomically); with `dry_run` the patch is only returned.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.buildsys.project import detect_build_system, stop_daemons
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.core.progress import Progress
from buildfixer.harness.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.llm.factory import SCRIPTED_PREFIX, make_model
from buildfixer.workspace.git import git, literal
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


def default_trajectory_path(project: Path) -> Path:
    """Where a fix's trajectory goes unless the user names a file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return cache_root() / "trajectories" / f"{project.resolve().name}-{stamp}-{os.getpid()}.json"


def fix_project(
    project: Path, config: AttemptConfig, dry_run: bool = False, progress: Progress | None = None
) -> FixOutcome:
    """Repair `project`: attempt in a snapshot, verdict build, copy the changes back on success."""
    project = project.resolve()
    if not project.is_dir():
        raise BuildfixerError(f"not a directory: {project}")
    check_usable(project, config)
    if config.trajectory_path is None:
        config.trajectory_path = default_trajectory_path(project)
    workspace = Workspace.from_directory(project, cache_dir=config.options.cache_dir)
    config.frozen = set(workspace.protected)
    try:
        attempt = run_attempt(workspace.root, config, progress, meta={"source": str(project)})
        # The repair is the edits alone; a project that already builds gets none.
        edited = [] if attempt.initial.status == "success" else attempt.edited
        changed = workspace.changed_files(edited)
        patch = workspace.diff(changed)
        applied, conflict = False, ""
        if attempt.resolved and changed and not dry_run:
            try:
                copy_back(workspace, project, changed)
                applied = True
            except CopyConflict as exc:
                conflict = str(exc)
    finally:
        stop_daemons(workspace.root, config.options)
        discard_state(config.options.state_for(workspace.root))
        workspace.remove()
    return FixOutcome(
        attempt, patch, changed, applied, config.trajectory_path, attempt.refused, conflict,
        workspace.left_out,
    )  # fmt: skip


def discard_state(state: Path) -> None:
    """Remove a finished workspace's build state (venv, daemon registry) but keep its build logs.

    The logs stay because the trajectory points at them; a venv per run would pile up.
    """
    if not state.is_dir():
        return
    for entry in state.iterdir():
        if entry.name == "logs":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def check_usable(project: Path, config: AttemptConfig) -> None:
    """Refuse what would fail only later (no build, a missing or malformed script) before anything starts."""
    detect_build_system(project)
    agent = config.agent_name()
    if agent == "recipes":
        return
    specs = [s for s in config.model.split(",") if s.strip()] if agent == "cascade" else [config.model]
    for spec in specs or [""]:
        if not spec.strip() or spec.strip().startswith(SCRIPTED_PREFIX):
            make_model(spec)  # reads and checks the script; a litellm model is only made when used


class CopyConflict(BuildfixerError):
    """The project changed since the snapshot where the repair would write: nothing was written."""


def _blob_id(path: Path) -> str | None:
    """The git blob id of a file or symlink as it is on disk (None when absent)."""
    try:
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return "directory"
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def copy_back(workspace: Workspace, dest_root: Path, paths: list[str]) -> None:
    """Make `dest_root` hold the workspace's version of each path (deleted there: deleted here).

    Each path must still be as the snapshot saw it: a file the user changed or created meanwhile
    (or one too large to be in the snapshot) is never overwritten. All files are staged first and
    moved into place together, so a failure writes nothing. Links land as links, never as copies
    of what they point to.

    Raises:
        CopyConflict: a path changed since the snapshot or would leave the project.
    """
    base = {}
    listed = git("ls-tree", "-r", "-z", workspace.base_commit, "--", *literal(paths), cwd=workspace.root)
    for entry in (e for e in listed.split("\0") if e):
        meta, rel = entry.split("\t", 1)
        base[rel] = meta.split()[2]
    for rel in paths:
        dest = dest_root / rel
        if not dest.parent.resolve().is_relative_to(dest_root):
            raise CopyConflict(f"refusing to write outside the project: {rel}")
        if _blob_id(dest) != base.get(rel):
            raise CopyConflict(f"{rel} changed since the snapshot was taken; nothing was written")
    staged: list[tuple[Path | None, Path]] = []
    try:
        for rel in paths:
            src, target = workspace.root / rel, dest_root / rel
            if not src.exists() and not src.is_symlink():
                staged.append((None, target))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".{target.name}.buildfixer-{os.getpid()}"
            tmp.unlink(missing_ok=True)
            if src.is_symlink():
                os.symlink(os.readlink(src), tmp)
            else:
                shutil.copy2(src, tmp, follow_symlinks=False)
            staged.append((tmp, target))
        for pending, target in staged:
            if pending is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(pending, target)
    finally:
        for pending, _ in staged:
            if pending is not None:
                pending.unlink(missing_ok=True)
