"""Walks of the file tools, the text files they search, binary files and encoding.

Walks open every directory relative to its parent's descriptor with O_NOFOLLOW (see
core.confined): symlinked directories are never entered (no loops, no escapes, no race), and a
symlinked file is kept only when its target is a regular file inside the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from buildfixer.core.confined import DIR_FLAGS, MissingError, Node, OutsideError, open_node
from buildfixer.tools.base import ToolError
from buildfixer.tools.patterns import PathMatcher

# Dependency caches, build outputs and VCS data: huge, generated, rarely what a fix needs.
SKIP_DIRS = frozenset({".git", "node_modules", "build", "target", ".gradle", "__pycache__", ".venv"})
SKIPPED = ", ".join(sorted(SKIP_DIRS))

BINARY_PROBE_BYTES = 8192
MAX_SEARCH_BYTES = 5_000_000
MAX_DEPTH = 200  # directories deeper than this are not walked (one descriptor is open per level)


def is_binary(node: Node) -> bool:
    """Whether the file looks binary: a NUL byte in its first 8 KB."""
    return b"\0" in node.head(BINARY_PROBE_BYTES)


@dataclass(frozen=True)
class Found:
    """A regular file met by a walk: its path from the root as walked, and its status."""

    rel: str
    st: os.stat_result


def _linked_file(root: Path, rel: str) -> os.stat_result | None:
    """The status of the regular file a symlink leads to inside the workspace, else None."""
    try:
        with open_node(root, rel) as node:
            return node.st if node.is_file() else None
    except (ToolError, OSError):
        return None


def _scan(root: Path, dir_fd: int, prefix: str) -> tuple[list[Found], list[str]]:
    """The files (sorted) and the subdirectories to enter (reverse sorted) of one directory."""
    files: list[Found] = []
    subdirs: list[str] = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            rel = entry.name if prefix == "." else f"{prefix}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIP_DIRS:
                    subdirs.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                files.append(Found(rel, entry.stat(follow_symlinks=False)))
            elif entry.is_symlink() and (linked := _linked_file(root, rel)) is not None:
                files.append(Found(rel, linked))
    return sorted(files, key=lambda f: f.rel), sorted(subdirs, reverse=True)


def walk_files(root: Path, base: Node) -> Iterator[Found]:
    """Regular files under the opened `base` (itself when it is a file), skipping SKIP_DIRS.

    Depth first, one open descriptor per level; a directory swapped for a symlink while the walk
    runs is not entered (its O_NOFOLLOW open fails).
    """
    if not base.is_dir():
        if base.is_file():
            yield Found(base.rel, base.st)
        return
    stack: list[tuple[int, str, list[str]]] = []  # (descriptor, path, subdirectories left)
    fd, prefix = os.dup(base.fd), base.rel
    try:
        while fd >= 0:
            todo: list[str] = []
            stack.append((fd, prefix, todo))
            try:
                files, subdirs = _scan(root, fd, prefix)
            except OSError:  # unreadable: skipped like a vanished directory
                files, subdirs = [], []
            todo.extend(subdirs)
            yield from files
            fd = -1
            while stack and fd < 0:
                parent, parent_prefix, left = stack[-1]
                if not left:
                    os.close(stack.pop()[0])
                    continue
                name = left.pop()
                if len(stack) >= MAX_DEPTH:
                    continue
                try:
                    fd = os.open(name, DIR_FLAGS, dir_fd=parent)
                except OSError:
                    continue
                prefix = name if parent_prefix == "." else f"{parent_prefix}/{name}"
    finally:
        for descriptor, _, _ in stack:
            os.close(descriptor)


def encode(text: str) -> bytes:
    """UTF-8 bytes of text (undecodable bytes read with surrogateescape go back unchanged)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ToolError(f"text contains characters that cannot be written as UTF-8 ({exc.reason})") from None


def _searchable(node: Node) -> bool:
    return node.is_file() and node.st.st_nlink == 1 and node.st.st_size <= MAX_SEARCH_BYTES


def text_files(root: Path, base: Node, include: str | None) -> Iterator[tuple[str, Node]]:
    """The searchable text files under base, by path, each open while the caller reads it.

    Files with several hard links are skipped like binaries: their content may not be ours.
    """
    matcher = PathMatcher(include, case_sensitive=False) if include else None
    names = sorted(
        found.rel
        for found in walk_files(root, base)
        if not (matcher and not matcher.matches(found.rel, base.rel))
    )
    for name in names:
        try:
            node = open_node(root, name)
        except (ToolError, OSError):  # gone or changed since the walk
            continue
        with node:
            if _searchable(node) and not is_binary(node):
                yield name, node


def link_entry(root: Path, where: str, name: str) -> tuple[bool, str]:
    """(whether it leads to a directory, its listing line) of a symlink met by list_directory."""
    try:
        with open_node(root, name if where == "." else f"{where}/{name}") as node:
            is_dir, target = node.is_dir(), node.rel
    except OutsideError:
        return False, f"{name} -> (outside the workspace)"
    except MissingError:
        return False, f"{name} -> (broken link)"
    except (ToolError, OSError):
        return False, f"{name} -> (unresolvable link)"
    return is_dir, f"{name}{'/' if is_dir else ''} -> {target}"
