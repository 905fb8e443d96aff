"""Race-free access to the workspace's files: every path is walked from the root's descriptor.

Checking a path and opening it afterwards leaves a gap: a symlink swapped in between leads the
open outside, and a hard link already in the workspace names an outside inode whatever the check
says. The file tools therefore never open a path string. This module

- opens the root once, then each path component relative to its parent's descriptor with
  O_NOFOLLOW, so the kernel never follows a link on our behalf;
- follows symlinks itself, one component at a time: a relative target goes on from the directory
  that holds the link, an absolute one only when it names the root or a path below it, and `..`
  never climbs above the root. Links inside the workspace keep working (projects have them:
  `gradlew` aliases, shared sources); links out are refused, loops stop after 40 links;
- learns what a name is from the descriptor it opened (fstat), never from an earlier stat;
- refuses regular files with more than one hard link (another name of the inode may lie outside)
  and any write into `.git`, a file or directory of that name at any depth (git metadata is not
  the repair's business, and hooks would run on the host);
- writes to a temp file created in the already opened parent directory, then renames it over the
  name (renameat): a symlink swapped in at the last moment is replaced, never written through.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from buildfixer.tools.base import ToolError

MAX_LINKS = 40
MAX_PATH_CHARS = 4096
MAX_DEPTH = 256  # one descriptor is held per directory on the way: well below the fd limit
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer.
_NODE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class OutsideError(ToolError):
    """The path leads out of the workspace."""


class MissingError(ToolError):
    """The path names nothing (yet)."""


def _outside(path: str, root: Path) -> OutsideError:
    return OutsideError(f"{path} is outside the workspace ({root}); only paths inside it are allowed")


def _inner(root: Path, absolute: str) -> str | None:
    """`absolute` relative to the root ("" for the root itself), None when it is not below it."""
    for candidate in (absolute, os.path.normpath(absolute)):
        if candidate == str(root) or candidate.startswith(f"{str(root).rstrip('/')}/"):
            return candidate[len(str(root)) :].lstrip("/")
    return None


def _join(names: list[str]) -> str:
    return "/".join(names) or "."


@dataclass
class Spot:
    """Where a path leads: the open directories from the root down, and the final name.

    Attributes:
        dirs: Descriptors of the root and the directories below it on the way (owned).
        names: The names of those directories below the root.
        name: The final name in the last directory, not opened; None when the path is that
            directory itself (".", "app/..").
        missing: Directories that do not exist yet between the last one and `name`.
    """

    dirs: list[int]
    names: list[str] = field(default_factory=list)
    name: str | None = None
    missing: list[str] = field(default_factory=list)

    @property
    def parent(self) -> int:
        """The deepest directory opened so far."""
        return self.dirs[-1]

    @property
    def rel(self) -> str:
        """The resolved path relative to the root, as the model should see it."""
        return _join(self.names + self.missing + ([self.name] if self.name else []))

    def up(self) -> None:
        """Go to the parent directory (never above the root: callers check)."""
        os.close(self.dirs.pop())
        self.names.pop()

    def close(self) -> None:
        """Close every directory descriptor."""
        while self.dirs:
            os.close(self.dirs.pop())


def _readlink(dir_fd: int, name: str) -> str | None:
    """The target of the symlink `name` in `dir_fd`; None when it is no symlink (or absent)."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
            return None
        raise


def _walk(spot: Spot, root: Path, path: str, parts: list[str], missing_ok: bool) -> None:
    """Resolve `parts` into `spot`, following inner symlinks by hand (see the module docstring)."""
    pending = parts[::-1]  # a stack: the next component is last
    links = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if spot.missing:
                spot.missing.pop()
            elif len(spot.dirs) > 1:
                spot.up()
            else:
                raise _outside(path, root)
            continue
        if len(spot.dirs) + len(spot.missing) > MAX_DEPTH:
            raise ToolError(f"the path is too deep (more than {MAX_DEPTH} directories)")
        last = not pending  # "a/b/" or "a/b/." make b a directory to enter, not a last name
        target = None
        if not spot.missing:
            if last:
                target = _readlink(spot.parent, name)
            else:
                try:
                    spot.dirs.append(os.open(name, DIR_FLAGS, dir_fd=spot.parent))
                    spot.names.append(name)
                    continue
                except FileNotFoundError:
                    if not missing_ok:
                        raise MissingError(
                            f"no such file or directory: {_join([*spot.names, name])}"
                        ) from None
                except OSError as exc:
                    if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                        raise
                    target = _readlink(spot.parent, name)
                    if target is None:
                        raise ToolError(f"{_join([*spot.names, name])} is not a directory") from None
        if target is None:
            if last:
                spot.name = name
                return
            spot.missing.append(name)
            continue
        links += 1
        if links > MAX_LINKS:
            raise ToolError(f"cannot resolve {path}: too many levels of symbolic links")
        if target.startswith("/"):
            inner = _inner(root, target)
            if inner is None:
                raise _outside(path, root)
            while len(spot.dirs) > 1:
                spot.up()
            target = inner
        pending.extend(reversed(target.split("/")))


def locate(root: Path, path: str, missing_ok: bool = False) -> Spot:
    """Resolve `path` (relative to the root, or absolute inside it) without opening its last name.

    Raises OutsideError when it leads out, MissingError when a directory on the way is missing
    (unless `missing_ok`: they are then listed in `Spot.missing`, to be created by a write).
    """
    if not isinstance(path, str) or "\0" in path:
        raise ToolError("invalid path")
    if len(path) > MAX_PATH_CHARS:
        raise ToolError(f"the path is too long ({len(path)} characters; at most {MAX_PATH_CHARS})")
    given = os.path.expanduser(path) if path.startswith("~") else path
    if given.startswith("/"):
        inner = _inner(root, given)
        if inner is None:
            raise _outside(path, root)
        given = inner
    spot = Spot([os.open(root, DIR_FLAGS)])
    try:
        _walk(spot, root, path, given.split("/"), missing_ok)
    except BaseException:
        spot.close()
        raise
    return spot


@dataclass
class Node:
    """An opened file or directory of the workspace (read-only) and what fstat said of it."""

    fd: int
    rel: str
    st: os.stat_result

    def is_dir(self) -> bool:
        """Whether it is a directory."""
        return stat.S_ISDIR(self.st.st_mode)

    def is_file(self) -> bool:
        """Whether it is a regular file."""
        return stat.S_ISREG(self.st.st_mode)

    def single_link(self) -> None:
        """ToolError when the file has other names: one of them may lie outside the workspace."""
        if self.st.st_nlink > 1:
            raise ToolError(
                f"{self.rel} has {self.st.st_nlink} hard links: another name of the same file may lie "
                "outside the workspace, so the file tools neither read nor write it"
            )

    def head(self, size: int) -> bytes:
        """The first `size` bytes."""
        return os.pread(self.fd, size, 0)

    def read_bytes(self) -> bytes:
        """The whole content."""
        chunks = []
        offset = 0
        while chunk := os.pread(self.fd, 1 << 20, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def text(self) -> IO[str]:
        """The content as text (UTF-8, undecodable bytes replaced), from the start; close it."""
        os.lseek(self.fd, 0, os.SEEK_SET)
        return open(os.dup(self.fd), encoding="utf-8", errors="replace")  # noqa: SIM115

    def close(self) -> None:
        """Close the descriptor."""
        os.close(self.fd)

    def __enter__(self) -> Node:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_final(spot: Spot) -> Node:
    """Open what `spot` names (no link followed), or MissingError."""
    rel = spot.rel
    try:
        fd = os.dup(spot.parent) if spot.name is None else os.open(spot.name, _NODE_FLAGS, dir_fd=spot.parent)
    except FileNotFoundError:
        raise MissingError(f"no such file or directory: {rel}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link appeared after it was resolved
            raise ToolError(f"{rel} changed while it was being opened; try again") from None
        if exc.errno == errno.ENXIO:  # a socket
            raise ToolError(f"{rel} is not a regular file") from None
        raise
    return Node(fd, rel, os.fstat(fd))


def open_node(root: Path, path: str) -> Node:
    """Open the file or directory `path` names for reading (links inside the workspace followed)."""
    spot = locate(root, path)
    try:
        if spot.missing:
            raise MissingError(f"no such file or directory: {spot.rel}")
        return _open_final(spot)
    finally:
        spot.close()


class Target:
    """A file about to be written: its current state, and the write itself (see `writable`)."""

    def __init__(self, spot: Spot) -> None:
        """Wrap a resolved spot (owned)."""
        self.spot = spot
        self.rel = spot.rel

    def existing(self) -> Node | None:
        """The file or directory there now, opened; None when nothing is there yet."""
        if self.spot.missing:
            return None
        try:
            return _open_final(self.spot)
        except MissingError:
            return None

    def write(self, data: bytes, mode: int | None = None) -> None:
        """Replace the content in one step: temp file in the parent directory, then renameat.

        Missing parent directories are created first. `mode` keeps an existing file's
        permissions; new files get the umask's.
        """
        spot = self.spot
        if spot.name is None:
            raise ToolError(f"{self.rel} is a directory")
        while spot.missing:
            name = spot.missing.pop(0)
            with suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=spot.parent)
            spot.dirs.append(os.open(name, DIR_FLAGS, dir_fd=spot.parent))
            spot.names.append(name)
        temp = f".{spot.name[:200]}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, _TEMP_FLAGS, 0o666, dir_fd=spot.parent)
        try:
            with open(fd, "wb") as out:
                out.write(data)
                if mode is not None:
                    os.fchmod(out.fileno(), mode)
            os.replace(temp, spot.name, src_dir_fd=spot.parent, dst_dir_fd=spot.parent)
        except BaseException:
            with suppress(OSError):
                os.unlink(temp, dir_fd=spot.parent)
            raise


def refuse_git(names: list[str], rel: str) -> None:
    """ToolError when a write would land in git metadata (`.git` at any depth)."""
    if any(name.casefold() == ".git" for name in names):
        raise ToolError(
            f"{rel} is in .git: the repository's metadata is not edited by the repair; "
            "change the project's own files instead"
        )


@contextmanager
def writable(root: Path, path: str) -> Iterator[Target]:
    """The file `path` names, ready to be written (links inside followed, `.git` refused)."""
    spot = locate(root, path, missing_ok=True)
    try:
        refuse_git([*spot.names, *spot.missing, spot.name or ""], spot.rel)
        yield Target(spot)
    finally:
        spot.close()


def read_text(root: Path, path: str) -> tuple[str, str]:
    """(resolved relative path, UTF-8 text) of a regular file of the workspace; ToolError otherwise.

    For code outside the file tools that shows project files to a model.
    """
    with open_node(root, path) as node:
        if not node.is_file():
            raise ToolError(f"{node.rel} is not a regular file")
        node.single_link()
        return node.rel, node.read_bytes().decode("utf-8", "replace")
