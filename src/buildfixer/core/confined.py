"""Race-free access to the workspace's files: every path is walked from the root's descriptor.

The workspace is written by sandboxed code (builds, the model's shell) and by the model's file
tools, while buildfixer's host side (running as root, outside the sandbox) reads and writes
there too: the file tools, the condensed error view, the dependency planners, `upgrade_gradle`,
the judge, the edit ledger, the recipes. Every one of them opens workspace files through this
module, never through a path string (`open`, `Path.read_text`, `Path.glob`), which the kernel
would follow through any link a build planted (`pom.xml -> /root/.ssh/id_rsa`).

Checking a path and opening it afterwards leaves a gap: a symlink swapped in between leads the
open outside, and a hard link already in the workspace names an outside inode whatever the check
says. This module

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from buildfixer.core.errors import ToolError

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


# A policy over every write and removal made through this module in the current context (see
# `checking_writes`); None, the default, allows everything the rules above allow.
_WRITE_CHECK: ContextVar[Callable[[str], None] | None] = ContextVar("write_check", default=None)


@contextmanager
def checking_writes(check: Callable[[str], None]) -> Iterator[None]:
    """Have `check(rel)` pass every write and removal through this module in this context.

    `rel` is the resolved path relative to the root (links inside followed); `check` raises
    ToolError to refuse, and nothing is written then. For in-place work on a user's checkout
    (`buildfixer mcp`), where the git-ignored paths stay as they are whichever tool writes (a file
    tool, a dependency edit, a JDK pin). The context is the thread's own (a `ContextVar`): other
    threads' writes are not checked.
    """
    token = _WRITE_CHECK.set(check)
    try:
        yield
    finally:
        _WRITE_CHECK.reset(token)


def _check_write(spot: Spot) -> None:
    """Run the context's write check (`checking_writes`) on the spot about to be written or removed."""
    check = _WRITE_CHECK.get()
    if check is not None:
        check(spot.rel)


def _readlink(dir_fd: int, name: str) -> str | None:
    """The target of the symlink `name` in `dir_fd`; None when it is no symlink (or absent)."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
            return None
        raise


def _walk(spot: Spot, root: Path, path: str, parts: list[str], missing_ok: bool, follow: bool = True) -> None:
    """Resolve `parts` into `spot`, following inner symlinks by hand (see the module docstring).

    With `follow` False a symlink as the last name is the name itself (to remove it, say).
    """
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
                target = _readlink(spot.parent, name) if follow else None
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


def locate(root: Path, path: str, missing_ok: bool = False, follow: bool = True) -> Spot:
    """Resolve `path` (relative to the root, or absolute inside it) without opening its last name.

    Raises OutsideError when it leads out, MissingError when a directory on the way is missing
    (unless `missing_ok`: they are then listed in `Spot.missing`, to be created by a write).
    With `follow` False a symlink as the last name is not followed (`Spot.name` is the link).
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
        _walk(spot, root, path, given.split("/"), missing_ok, follow)
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

    def read_bytes(self, limit: int | None = None) -> bytes:
        """The whole content (its first `limit` bytes when given)."""
        chunks = []
        offset = 0
        while limit is None or offset < limit:
            size = 1 << 20 if limit is None else min(1 << 20, limit - offset)
            chunk = os.pread(self.fd, size, offset)
            if not chunk:
                break
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


def open_node(root: Path, path: str, follow: bool = True) -> Node:
    """Open the file or directory `path` names for reading (links inside the workspace followed).

    With `follow` False a symlink as the last name is refused (ToolError) rather than followed.
    """
    spot = locate(root, path, follow=follow)
    try:
        if spot.missing:
            raise MissingError(f"no such file or directory: {spot.rel}")
        return _open_final(spot)  # a link left unfollowed fails its O_NOFOLLOW open: ToolError
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
        _check_write(spot)
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


# --- Host-side access ---------------------------------------------------------------------------
# buildfixer's own code reads and writes workspace files through these: the same walk as the file
# tools, with what a host-side reader takes for "no such file" (missing, leading out, no regular
# file, hard-linked, unreadable, too large) folded into None or False. Paths may be relative to
# the root or absolute below it (as given or resolved); nothing on the way is followed out.

MAX_TEXT_BYTES = 16 << 20  # a build file, a source file, a test report: never more


def relative(root: Path, path: str | os.PathLike[str]) -> str | None:
    """`path` relative to the root ("." for the root itself), lexically; None when not below it."""
    text = os.fspath(path)
    if not os.path.isabs(text):
        return text or "."
    for base in dict.fromkeys((str(root), os.path.abspath(root), os.path.realpath(root))):
        inner = _inner(Path(base), text)
        if inner is not None:
            return inner or "."
    return None


def _host(root: Path, path: str | os.PathLike[str]) -> tuple[Path, str]:
    """The real root, and `path` relative to it; OutsideError when it is not below the root."""
    rel = relative(root, path)
    if rel is None:
        raise _outside(os.fspath(path), root)
    if rel.startswith("~"):
        rel = f"./{rel}"  # a file named ~x, not a home directory
    return Path(os.path.realpath(root)), rel


def is_file(root: Path, path: str | os.PathLike[str]) -> bool:
    """Whether `path` names a regular file of the workspace (links inside followed)."""
    try:
        with open_node(*_host(root, path)) as node:
            return node.is_file()
    except (ToolError, OSError):
        return False


def try_read_text(
    root: Path, path: str | os.PathLike[str], limit: int = MAX_TEXT_BYTES, *, head: bool = False
) -> str | None:
    """The UTF-8 text (undecodable bytes replaced) of a regular, single-linked file of the workspace.

    None when it is missing, leads out, is no regular file (a FIFO never blocks), has other hard
    links, or cannot be read; also when it is larger than `limit` bytes, unless `head` asks for
    its first `limit` bytes then.
    """
    try:
        with open_node(*_host(root, path)) as node:
            if not node.is_file() or node.st.st_nlink > 1 or (node.st.st_size > limit and not head):
                return None
            return node.read_bytes(limit).decode("utf-8", "replace")
    except (ToolError, OSError):
        return None


def rewrite(root: Path, path: str | os.PathLike[str], change: Callable[[str | None], str | None]) -> str:
    """Replace a file's text by `change(text)` (None: absent), atomically, its permissions kept.

    Undecodable bytes survive the round trip (surrogateescape). `change` returning None writes
    nothing. Returns the path written, relative to the root.

    Raises:
        ToolError: the path leads out or into `.git`, or names no regular file or a hard-linked one
            (and whatever `change` raises).
    """
    host_root, rel = _host(root, path)
    with writable(host_root, rel) as target:
        before: str | None = None
        mode = None
        current = target.existing()
        if current is not None:
            with current:
                if not current.is_file():
                    raise ToolError(f"{target.rel} is not a regular file")
                current.single_link()
                before = current.read_bytes().decode("utf-8", "surrogateescape")
                mode = stat.S_IMODE(current.st.st_mode)
        after = change(before)
        if after is not None:
            try:
                data = after.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError as exc:
                raise ToolError(f"{target.rel}: the text cannot be written as UTF-8 ({exc.reason})") from None
            target.write(data, mode)
        return target.rel


def write_bytes(
    root: Path, path: str | os.PathLike[str], data: bytes, mode: int | None = None, *, into_git: bool = False
) -> None:
    """Put `data` at `path` (temp file + rename: whatever is there, a link too, is replaced).

    `into_git` allows the name `.git` (buildfixer's own `.git` file of a worktree); the file
    tools and every other caller never write there.
    """
    host_root, rel = _host(root, path)
    spot = locate(host_root, rel, missing_ok=True, follow=False)
    try:
        if not into_git:
            refuse_git([*spot.names, *spot.missing, spot.name or ""], spot.rel)
        Target(spot).write(data, mode)
    finally:
        spot.close()


def unlink(root: Path, path: str | os.PathLike[str]) -> bool:
    """Remove the file or symlink `path` names (a link itself, never what it points at).

    False when nothing or a directory is there; the directories on the way are walked like every
    path here, so a directory swapped for a link never leads the removal out.
    """
    host_root, rel = _host(root, path)
    try:
        spot = locate(host_root, rel, follow=False)
    except MissingError:
        return False
    try:
        if spot.missing or spot.name is None:
            return False
        refuse_git([*spot.names, spot.name], spot.rel)
        _check_write(spot)
        try:
            found = os.stat(spot.name, dir_fd=spot.parent, follow_symlinks=False)
            if stat.S_ISDIR(found.st_mode):
                return False
            os.unlink(spot.name, dir_fd=spot.parent)
        except FileNotFoundError:
            return False
        return True
    finally:
        spot.close()


def walk(
    root: Path,
    start: str | os.PathLike[str] = ".",
    skip: Callable[[str], bool] | None = None,
    max_depth: int = MAX_DEPTH,
) -> Iterator[str]:
    """The files below `start`, as paths relative to the root, each directory's before its subdirectories'.

    Regular files, and symlinks whose target is a regular file inside the workspace; names sorted.
    Directories are opened relative to their parent with O_NOFOLLOW, so a symlinked directory is
    never entered; `skip(name)` leaves a directory out, and so does a depth beyond `max_depth`.
    """
    try:
        host_root, rel = _host(root, start)
        base = open_node(host_root, rel)
    except (ToolError, OSError):
        return
    with base:
        if base.is_dir():
            yield from _walk_files(host_root, base.fd, base.rel, skip, max_depth)


def _walk_files(
    root: Path, dir_fd: int, prefix: str, skip: Callable[[str], bool] | None, depth: int
) -> Iterator[str]:
    """Files of the open directory `dir_fd` (named `prefix`), then those of its subdirectories."""
    try:
        with os.scandir(dir_fd) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:  # unreadable, or gone
        return
    subdirs: list[str] = []
    for entry in entries:
        rel = entry.name if prefix == "." else f"{prefix}/{entry.name}"
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth > 0 and not (skip is not None and skip(entry.name)):
                    subdirs.append(entry.name)
            elif entry.is_file(follow_symlinks=False) or (entry.is_symlink() and is_file(root, rel)):
                yield rel
        except OSError:
            continue
    for name in subdirs:
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=dir_fd)
        except OSError:  # swapped for a link, or gone
            continue
        try:
            yield from _walk_files(root, fd, name if prefix == "." else f"{prefix}/{name}", skip, depth - 1)
        finally:
            os.close(fd)


@dataclass(frozen=True)
class WorkspaceFiles:
    """A workspace's files, for readers that are handed a project instead of opening it (the log analyzer).

    Satisfies `logs.source.ProjectFiles`: every read goes through this module. `root` is kept
    resolved, as the analyzer compares absolute paths of a log with it.
    """

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(os.path.realpath(self.root)))

    def read_text(self, rel: str, limit: int = MAX_TEXT_BYTES) -> str | None:
        """The file's text (its first `limit` bytes); None when it is no regular file inside."""
        return try_read_text(self.root, rel, limit, head=True)

    def is_file(self, rel: str) -> bool:
        """Whether it is a regular file inside the workspace."""
        return is_file(self.root, rel)

    def files(self, skip: Callable[[str], bool] | None = None, max_depth: int = MAX_DEPTH) -> Iterator[str]:
        """The workspace's files (see `walk`)."""
        return walk(self.root, ".", skip, max_depth)
