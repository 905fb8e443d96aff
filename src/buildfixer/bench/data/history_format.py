"""How the histories of the bundled benchmark's fixture repositories are written, commit by commit.

Each repository starts from a bundled example base (`buildfixer/examples/<project>/base`) and
grows on `main` with ordinary developer commits, some of which break the build and are fixed by a
later commit (origin `human`). Branches off `main` hold synthetic breakages and their reverts:
`deps/*` change a dependency (origin `dependency`), `llm/*` apply a plausible code change such
as a rename (origin `llm`; scripted here, no model involved). A `RepoSpec` holds one repository:
its `FixtureCommit`s (each a list of `FixtureEdit`s), branches and instances. The repositories
are in `history_maven`, `history_gradle`, `history_python` and `history_npm`; `make_dataset.py`
turns them into git bundles and instances.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Import:
    """Copy an example project's base into the repository."""

    project: str


@dataclass(frozen=True)
class Replace:
    """Replace the single occurrence of `old` in a file by `new`."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Write:
    """Create or overwrite a file."""

    path: str
    text: str


@dataclass(frozen=True)
class Move:
    """Rename a file."""

    path: str
    to: str


@dataclass(frozen=True)
class Patch:
    """Apply one of the bundled examples' variant patches (`examples/<project>/variants/<name>.patch`)."""

    project: str
    variant: str


@dataclass(frozen=True)
class Revert:
    """Undo the previous commit's changes."""


FixtureEdit = Import | Replace | Write | Move | Patch | Revert


@dataclass(frozen=True)
class FixtureCommit:
    """One commit: its message, author key (see `AUTHORS`), edits, and an optional label."""

    message: str
    author: str
    edits: tuple[FixtureEdit, ...]
    label: str | None = None


@dataclass(frozen=True)
class Branch:
    """A branch off the tip of `main`."""

    name: str
    commits: tuple[FixtureCommit, ...]


@dataclass(frozen=True)
class InstanceSpec:
    """A benchmark instance: failing commit `base` and fixing commit `fix` (labels)."""

    instance_id: str
    origin: str
    category: str
    base: str
    fix: str
    jdk: int | None = None


@dataclass(frozen=True)
class RepoSpec:
    """A fixture repository: its bundle name, build system, history and instances."""

    name: str
    build_system: str
    start: str  # ISO date of the first commit; later commits follow at fixed steps
    main: tuple[FixtureCommit, ...]
    branches: tuple[Branch, ...] = ()
    instances: tuple[InstanceSpec, ...] = field(default=())


AUTHORS: dict[str, tuple[str, str]] = {
    "ada": ("Ada Moreau", "ada.moreau@example.com"),
    "bo": ("Bo Lindqvist", "bo.lindqvist@example.com"),
    "chen": ("Chen Wei", "chen.wei@example.com"),
    "deps": ("dependency-augmenter", "augment@buildfixer.invalid"),
    "llm": ("llm-mutation", "mutation@buildfixer.invalid"),
}


def revert_commit(message: str, label: str, author: str = "deps") -> FixtureCommit:
    """A commit undoing the previous one (the fix of a breakage on a branch)."""
    return FixtureCommit(message, author, (Revert(),), label)
