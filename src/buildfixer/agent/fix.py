"""`buildfixer fix`: repair a project in a private copy, and change the real one only when it builds.

The agent works in a snapshot workspace, so a failed or interrupted attempt never leaves the
user's project half-edited. When the harness's final build succeeds, the changed files are
copied back (each one atomically); with `dry_run` the patch is only returned.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.agent.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.agent.loop import Progress
from buildfixer.build.api import detect_build_system, stop_daemons
from buildfixer.errors import BuildfixerError
from buildfixer.paths import cache_root
from buildfixer.workspace.git import git

if TYPE_CHECKING:
    from buildfixer.workspace.workspace import Workspace


@dataclass
class FixOutcome:
    """The result of `fix`: the attempt, its patch, and whether the project was changed."""

    attempt: AttemptResult
    patch: str
    changed_files: list[str]
    applied: bool
    trajectory_path: Path


def default_trajectory_path(project: Path) -> Path:
    """Where a fix's trajectory goes unless the user names a file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return cache_root() / "trajectories" / f"{project.resolve().name}-{stamp}-{os.getpid()}.json"


def fix_project(
    project: Path, config: AttemptConfig, dry_run: bool = False, progress: Progress | None = None
) -> FixOutcome:
    """Repair `project`: attempt in a snapshot, verdict build, copy the changes back on success."""
    from buildfixer.workspace.workspace import Workspace

    project = project.resolve()
    if not project.is_dir():
        raise BuildfixerError(f"not a directory: {project}")
    check_usable(project, config)
    if config.trajectory_path is None:
        config.trajectory_path = default_trajectory_path(project)
    workspace = Workspace.from_directory(project, cache_dir=config.options.cache_dir)
    try:
        attempt = run_attempt(workspace.root, config, progress, meta={"source": str(project)})
        changed = workspace.changed_files()
        patch = workspace.diff()
        applied = False
        if attempt.resolved and changed and not dry_run:
            copy_back(workspace.root, project, changed)
            applied = True
    finally:
        stop_daemons(workspace.root, config.options)
        discard_state(config.options.state_for(workspace.root))
        workspace.remove()
        discard_snapshot(workspace)
    return FixOutcome(attempt, patch, changed, applied, config.trajectory_path)


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
    from buildfixer.llm.factory import SCRIPTED_PREFIX, make_model

    detect_build_system(project)
    agent = config.agent_name()
    if agent == "recipes":
        return
    specs = [s for s in config.model.split(",") if s.strip()] if agent == "cascade" else [config.model]
    for spec in specs or [""]:
        if not spec.strip() or spec.strip().startswith(SCRIPTED_PREFIX):
            make_model(spec)  # reads and checks the script; a litellm model is only made when used


def discard_snapshot(workspace: Workspace) -> None:
    """Remove the snapshot and its mirror, which `Workspace.from_directory` made for this fix alone."""
    snapshot = git("config", "--get", "remote.origin.url", git_dir=workspace.mirror, check=False).strip()
    shutil.rmtree(workspace.mirror, ignore_errors=True)
    snapshots = (workspace.mirror.parent.parent / "snapshots").resolve()  # <cache>/repos/x.git -> <cache>
    if snapshot and Path(snapshot).resolve().parent == snapshots:
        shutil.rmtree(snapshot, ignore_errors=True)


def copy_back(source_root: Path, dest_root: Path, paths: list[str]) -> None:
    """Make `dest_root` hold the workspace's version of each path (deleted there: deleted here)."""
    for rel in paths:
        src, dest = source_root / rel, dest_root / rel
        if not dest.resolve().is_relative_to(dest_root):
            raise BuildfixerError(f"refusing to write outside the project: {rel}")
        if not src.exists() and not src.is_symlink():
            dest.unlink(missing_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=dest.parent)
        os.close(fd)
        try:
            shutil.copy2(src, tmp)
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
