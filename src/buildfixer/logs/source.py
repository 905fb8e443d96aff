"""What the log analyzer may see of a project's files: whatever its caller hands it.

The analyzer reads text; it never opens a project's files itself. The project is a workspace
that builds and a model write, so a file an error names may be a link to a host secret
(`App.java -> /root/.ssh/id_rsa`): the caller passes a `ProjectFiles` whose reads are confined to
the project (`core.confined.WorkspaceFiles`), and the analyzer uses nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol


class ProjectFiles(Protocol):
    """A project's files, read for the analyzer (paths relative to `root`, with forward slashes)."""

    @property
    def root(self) -> Path:
        """The project's directory: absolute paths in a log are compared with it, never opened."""
        ...

    def read_text(self, rel: str, limit: int = ...) -> str | None:
        """The text of a regular file of the project (at most `limit` bytes); None for anything else."""
        ...

    def is_file(self, rel: str) -> bool:
        """Whether `rel` is a regular file of the project."""
        ...

    def files(self, skip: Callable[[str], bool] | None = None, max_depth: int = ...) -> Iterator[str]:
        """The project's files, a directory's before its subdirectories' (`skip(name)` leaves one out)."""
        ...
