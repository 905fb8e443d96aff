"""What tools share during one repair attempt: the workspace, the build settings, the backends.

Two ways keep a model's paths inside the workspace. The file tools open files through
`core.confined`, which walks every path from the root's descriptor without letting the kernel
follow links: nothing can be swapped in between a check and the use. `ToolContext.resolve` only
checks a path string (relative paths from the root, `..` and absolute paths must still land inside
it, symlinks followed before the check): it is for paths handed to another program, such as a
command's arguments, never for opening a file afterwards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildResult
from buildfixer.tools.base import ToolError
from buildfixer.workspace.ledger import EditLedger


class SearchProvider(Protocol):
    """A web search backend for `search_google`."""

    def search(self, query: str) -> str:
        """Summarized findings for the query."""
        ...


class KnowledgeBase(Protocol):
    """An internal knowledge base for `ask_for_help` (for instance, past fixes of similar errors)."""

    def answer(self, question: str) -> str:
        """What the knowledge base knows about the question."""
        ...


@dataclass
class ToolContext:
    """State shared by the tools of one attempt.

    Attributes:
        root: The workspace root; no tool reads or writes outside it.
        build_system: The detected build system (gradle, maven, python, npm).
        options: Build options; `change_java_version` changes `options.jdk` for later builds (and pins
            it in the project).
        installed_jdks: Major versions `change_java_version` may switch to.
        build_output: "raw" gives the build's own output (as the study did), "condensed" the
            analyzer's prompt-ready view.
        shell_timeout_s: Limit of one shell command.
        search: Web search backend, if configured.
        knowledge: Knowledge base backend, if configured.
        builds: Builds run through tools so far (the last one is the current state).
        ledger: Tells the repair's edits from what builds wrote (None outside a git worktree).
        build_s: Seconds spent in the project's builds so far (`tracked`), for throughput figures.
        pins_created: Version files `change_java_version` created to pin its JDK (`jdk_pin.pin_jdk`).
    """

    root: Path
    build_system: str
    options: BuildOptions = field(default_factory=BuildOptions)
    installed_jdks: list[int] = field(default_factory=list)
    build_output: str = "raw"
    shell_timeout_s: float = 600.0
    search: SearchProvider | None = None
    knowledge: KnowledgeBase | None = None
    builds: list[BuildResult] = field(default_factory=list)
    ledger: EditLedger | None = None
    build_s: float = 0.0
    pins_created: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()

    def tracked(self, run: Callable[[], BuildResult]) -> BuildResult:
        """Run the project's build so that what it writes counts as a side effect, not an edit.

        The build is remembered with the tree it started from, so an unchanged tree need not be
        built again for the verdict. Commands an agent chooses are not run through here: what
        they change (`gradle wrapper`, `npm install x`) is the agent's doing.
        """
        began = time.monotonic()
        try:
            if self.ledger is None:
                return run()
            started = self.ledger.before_build()
            result: BuildResult | None = None
            try:
                result = run()
                return result
            finally:
                self.ledger.after_build(started, repr(self.options), result)
        finally:
            self.build_s += time.monotonic() - began

    def resolve(self, path: str, must_exist: bool = False) -> Path:
        """The real path of `path` inside the workspace; ToolError when it would leave it.

        A check of the path as it is now: do not open the result (a link swapped in afterwards
        would be followed); read and write with `core.confined` instead.
        """
        if not isinstance(path, str) or "\0" in path:
            raise ToolError("invalid path")
        raw = Path(os.path.expanduser(path)) if path.startswith("~") else Path(path)
        candidate = raw if raw.is_absolute() else self.root / raw
        try:
            real = candidate.resolve()  # follows symlinks, also of missing leaves' parents
        except (OSError, RuntimeError) as exc:  # symlink loops
            raise ToolError(f"cannot resolve {path}: {exc}") from None
        if not real.is_relative_to(self.root):
            raise ToolError(
                f"{path} is outside the workspace ({self.root}); only paths inside it are allowed"
            )
        if must_exist and not real.exists():
            raise ToolError(f"no such file or directory: {self.relative(real)}")
        return real

    def relative(self, path: Path) -> str:
        """A path as the model should see it: relative to the root ("." for the root)."""
        try:
            rel = path.resolve().relative_to(self.root)
        except ValueError:
            return str(path)
        return str(rel) or "."
