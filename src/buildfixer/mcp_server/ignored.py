"""The git-ignored paths of the user's checkout, which in-place work never writes.

`fix` works on a snapshot and never copies a git-ignored file of the user's back (a
`local.properties` or `.env` holding real values: `Workspace.protected`). Served in place there
is no copy-back to leave it out of, so the write itself is refused: every write and removal the
tools make goes through `core.confined`, which asks `IgnoredFiles.check` first
(`confined.checking_writes`), whichever tool writes (a file tool, a dependency edit, a JDK pin).
New files at ignored paths are refused too: in place, every change the tools make must show in
`git status` and `git diff`, where the user reviews and reverts it (and `judge` reads it), and an
ignored file shows in neither.

What builds and the build system's commands write, they write in the sandbox, as the user's own
build would; only the tools' deliberate edits are checked here.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.core.errors import BuildfixerError, ToolError
from buildfixer.workspace.git import git, git_bytes


def in_repository(project: Path) -> bool:
    """Whether `project` lies in a git working tree.

    Raises:
        BuildfixerError: git cannot read the repository it lies in (a repository owned by another
            user, which git refuses as "dubious ownership", for instance): which files are ignored
            could not be told, so in-place work does not start.
    """
    try:
        return git("rev-parse", "--is-inside-work-tree", cwd=project).strip() == "true"
    except BuildfixerError as exc:
        if "not a git repository" in str(exc):
            return False
        raise BuildfixerError(f"cannot read the git repository of {project}: {exc}") from None


class IgnoredFiles:
    """Refuses writes to the git-ignored paths of a checkout (see the module docstring)."""

    def __init__(self, project: Path) -> None:
        """Ask git once whether `project` is in a repository (BuildfixerError when git cannot tell)."""
        self.project = project
        self.repository = in_repository(project)

    def check(self, rel: str) -> None:
        """ToolError when `rel` (relative to the project) is git-ignored: nothing is written there."""
        if self.repository and self.ignored(rel):
            raise ToolError(
                f"refusing to write {rel}: it is git-ignored (the user's own local settings, secrets or "
                "build outputs, and a change there would not show in git status); change the project's "
                "tracked files instead, or ask the user to edit it"
            )

    def ignored(self, rel: str) -> bool:
        """Whether git ignores `rel`; ToolError when git cannot say (nothing is written then).

        `--verbose --non-matching` prints a record (source, line, pattern, path) for every path,
        matched or not, so an empty answer is git failing, never "not ignored"; the path goes in on
        stdin, NUL-terminated, so no name is read as an option or split. A path matched by a
        negated pattern (`!keep.me`) is not ignored; a tracked file never is.
        """
        out = git_bytes(
            "check-ignore", "--verbose", "--non-matching", "-z", "--stdin", cwd=self.project,
            input_bytes=rel.encode("utf-8", "surrogateescape") + b"\0", check=False,
        )  # fmt: skip
        fields = out.decode("utf-8", "replace").split("\0")
        if len(fields) < 4:
            raise ToolError(
                f"cannot tell whether {rel} is git-ignored (git check-ignore failed); not written"
            )
        pattern = fields[2]
        return bool(pattern) and not pattern.startswith("!")
