"""Bundled example projects: small bases that build, and patches that break them.

Each project lives in ``<project>/base/`` and each way of breaking it in
``<project>/variants/<variant>.patch`` (a ``git diff`` relative to the project root).
``manifest.json`` lists every variant with the failure it is expected to produce.

Example::

    from buildfixer.examples import load_examples, materialize

    example = load_examples()[0]
    tree = materialize(example, Path("/tmp/work"))  # base copied, patch applied
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.core.errors import BuildfixerError

EXAMPLES_DIR: Path = Path(__file__).resolve().parent
MANIFEST: Path = EXAMPLES_DIR / "manifest.json"

# Build outputs that must never be copied out of a base (they are gitignored there,
# but a developer may have built a base in place).
_IGNORED = shutil.ignore_patterns(
    "build", "target", "node_modules", "dist", ".gradle", "__pycache__", "*.egg-info", ".pytest_cache"
)


@dataclass(frozen=True)
class Example:
    """One broken variant of a bundled project, as described by ``manifest.json``.

    Attributes:
        name: ``"<project>/<variant>"``.
        project: directory name of the project under ``EXAMPLES_DIR``.
        variant: name of the patch under ``<project>/variants/`` without ``.patch``.
        build_system: ``"gradle"``, ``"maven"``, ``"python"`` or ``"npm"``.
        category: the expected failure category (one of the docs/FORMATS.md taxonomy).
        root_tool: the tool that reports the root error (javac, gradle, pip, tsc, ...).
        root_file: path of the file the root error points at, relative to the project root.
        root_line: 1-based line of the root error in ``root_file``, if it has one.
        message_contains: a substring of the root error message as the real tool prints it.
        jdk: JDK major version to build with, or None for the default (17).
        fix: one sentence saying what repairs the failure.
        description: one sentence saying what the patch breaks.
        base_dir: directory of the project's working base.
        patch_path: the variant's patch file.
    """

    name: str
    project: str
    variant: str
    build_system: str
    category: str
    root_tool: str
    root_file: str | None
    root_line: int | None
    message_contains: str
    jdk: int | None
    fix: str
    description: str
    base_dir: Path
    patch_path: Path


def _from_entry(entry: dict[str, Any]) -> Example:
    """Build an :class:`Example` from one manifest entry."""
    project = str(entry["project"])
    variant = str(entry["variant"])
    root_line = entry.get("root_line")
    jdk = entry.get("jdk")
    return Example(
        name=str(entry["name"]),
        project=project,
        variant=variant,
        build_system=str(entry["build_system"]),
        category=str(entry["category"]),
        root_tool=str(entry["root_tool"]),
        root_file=entry.get("root_file"),
        root_line=int(root_line) if root_line is not None else None,
        message_contains=str(entry["message_contains"]),
        jdk=int(jdk) if jdk is not None else None,
        fix=str(entry["fix"]),
        description=str(entry["description"]),
        base_dir=EXAMPLES_DIR / project / "base",
        patch_path=EXAMPLES_DIR / project / "variants" / f"{variant}.patch",
    )


def load_examples() -> list[Example]:
    """Read ``manifest.json``.

    Returns:
        Every bundled example, in manifest order.

    Raises:
        BuildfixerError: the manifest is missing or malformed.
    """
    try:
        entries = json.loads(MANIFEST.read_text(encoding="utf-8"))
        return [_from_entry(entry) for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BuildfixerError(f"cannot read example manifest {MANIFEST}: {exc}") from exc


def get_example(name: str) -> Example:
    """Look an example up by its ``"<project>/<variant>"`` name.

    Args:
        name: the example's name.

    Returns:
        The matching example.

    Raises:
        BuildfixerError: no example has that name.
    """
    for example in load_examples():
        if example.name == name:
            return example
    raise BuildfixerError(f"unknown example {name!r}; see {MANIFEST}")


def projects() -> list[str]:
    """Names of the bundled projects (directories that hold a ``base/``)."""
    return sorted(p.name for p in EXAMPLES_DIR.iterdir() if (p / "base").is_dir())


def _prepare_dest(dest: Path) -> bool:
    """Check that ``dest`` is absent or an empty directory.

    Returns:
        True when ``dest`` already existed (so only its contents may be removed on failure).

    Raises:
        BuildfixerError: ``dest`` is a file or a non-empty directory.
    """
    if not dest.exists():
        return False
    if not dest.is_dir():
        raise BuildfixerError(f"destination {dest} exists and is not a directory")
    if any(dest.iterdir()):
        raise BuildfixerError(f"destination {dest} is not empty")
    return True


def _discard(dest: Path, existed: bool) -> None:
    """Remove what :func:`materialize` created in ``dest``."""
    if existed:
        for child in dest.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
    else:
        shutil.rmtree(dest, ignore_errors=True)


def _copy_base(base_dir: Path, dest: Path, existed: bool) -> None:
    """Copy a project's base into ``dest`` (which is absent or empty)."""
    if not base_dir.is_dir():
        raise BuildfixerError(f"example base {base_dir} does not exist")
    try:
        shutil.copytree(base_dir, dest, ignore=_IGNORED, dirs_exist_ok=existed)
    except OSError as exc:
        _discard(dest, existed)
        raise BuildfixerError(f"cannot copy {base_dir} to {dest}: {exc}") from exc


def materialize_base(project: str, dest: Path) -> Path:
    """Copy the working base of ``project`` to ``dest``.

    Args:
        project: a bundled project name, e.g. ``"gradle-app"``.
        dest: target directory; must not exist or be empty.

    Returns:
        ``dest``.

    Raises:
        BuildfixerError: unknown project, or ``dest`` is not empty.
    """
    dest = Path(dest)
    base_dir = EXAMPLES_DIR / project / "base"
    if not base_dir.is_dir():
        raise BuildfixerError(f"unknown example project {project!r}; known: {', '.join(projects())}")
    existed = _prepare_dest(dest)
    _copy_base(base_dir, dest, existed)
    return dest


def materialize(example: Example | str, dest: Path) -> Path:
    """Copy an example's base to ``dest`` and apply its breaking patch there.

    Args:
        example: an :class:`Example` or its ``"<project>/<variant>"`` name.
        dest: target directory; must not exist or be empty.

    Returns:
        ``dest``, now holding the broken project.

    Raises:
        BuildfixerError: unknown example, ``dest`` not empty, or the patch does not
            apply (what was created in ``dest`` is removed again).
    """
    if isinstance(example, str):
        example = get_example(example)
    dest = Path(dest)
    if not example.patch_path.is_file():
        raise BuildfixerError(f"patch {example.patch_path} of example {example.name} does not exist")
    existed = _prepare_dest(dest)
    _copy_base(example.base_dir, dest, existed)
    # Inside an enclosing repository `git apply` would resolve paths against that
    # repository's root and silently skip them; stop the discovery at dest.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(dest.resolve().parent)}
    try:
        proc = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(example.patch_path)],
            cwd=dest,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        _discard(dest, existed)
        raise BuildfixerError(f"cannot run git to apply {example.patch_path.name}: {exc}") from exc
    if proc.returncode != 0:
        _discard(dest, existed)
        detail = (proc.stderr.strip().splitlines() or ["git apply failed"])[0]
        raise BuildfixerError(f"patch of example {example.name} does not apply: {detail}")
    return dest


__all__ = [
    "EXAMPLES_DIR",
    "MANIFEST",
    "Example",
    "get_example",
    "load_examples",
    "materialize",
    "materialize_base",
    "projects",
]
