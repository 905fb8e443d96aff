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

from buildfixer.agent.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.agent.loop import Progress
from buildfixer.build.api import stop_daemons
from buildfixer.errors import BuildfixerError
from buildfixer.paths import cache_root


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
        workspace.remove()
    return FixOutcome(attempt, patch, changed, applied, config.trajectory_path)


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
