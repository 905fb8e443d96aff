"""Who sandboxed code is on the host: never root, even when buildfixer runs as root.

Started by root, bubblewrap's user namespace maps the sandbox's uid 0 to the host's uid 0, and
much of the kernel checks only the uid (writes under /proc/sys, a root-owned Unix socket, files
root owns). So a root caller runs sandboxes as an unused high uid and gid instead (65432 unless
`BUILDFIXER_SANDBOX_UID` names another; it must belong to no account): file permissions and
rlimits then bind as for any unprivileged user. Such a user can only write what it owns, so the
folders a sandbox writes are handed over to it (`hand_over`): the caches, the sandbox part of a
project's state and buildfixer's own workspaces for good; a user's folder built in place only
for the time of a build (`lent`), after which what it holds goes back to the folder's owner,
build outputs included. `chown -R -P -h` walks the
tree without following a link and changes links themselves, and `--from` leaves files of any
other owner as they are. A caller that is not root runs sandboxes as itself (in a user namespace
of its own), and nothing changes hands.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from buildfixer.buildsys.sandbox.limits import sandbox_limits
from buildfixer.core.errors import BuildfixerError

DEFAULT_UID = 65432
UID_VARIABLE = "BUILDFIXER_SANDBOX_UID"
_handed: set[Path] = set()


@cache
def sandbox_ids() -> tuple[int, int] | None:
    """(uid, gid) sandboxed code runs as when buildfixer is root; None when it runs as the caller.

    Raises:
        BuildfixerError: `BUILDFIXER_SANDBOX_UID` is not a number in 1000-4294967293, or the uid
            or gid belongs to an account or group of this machine (the sandbox would act as it).
    """
    if os.geteuid() != 0:
        return None
    raw = os.environ.get(UID_VARIABLE, "").strip() or str(DEFAULT_UID)
    if not raw.isdigit() or not 1000 <= int(raw) <= 4294967293:
        raise BuildfixerError(f"{UID_VARIABLE} must be an unused uid of 1000 or more, got {raw!r}")
    uid = int(raw)
    for kind, lookup in (("user", pwd.getpwuid), ("group", grp.getgrgid)):
        with contextlib.suppress(KeyError):
            taken = lookup(uid)[0]
            raise BuildfixerError(
                f"sandboxes run as uid and gid {uid}, but {kind} {taken!r} has that id; "
                f"set {UID_VARIABLE} to an unused one"
            )
    return uid, uid


def hand_over(path: Path, once: bool = False) -> None:
    """Give the tree at `path` to the sandbox user (root's files and folders in it), for good.

    With `once`, a tree already handed over by this process is not walked again (the shared
    caches: large, and written only by sandboxes).
    """
    ids = sandbox_ids()
    if ids is None or (once and path in _handed):
        return
    path.mkdir(parents=True, exist_ok=True)
    _chown(path, os.geteuid(), ids)
    _handed.add(path)


def check_sandbox_settings() -> None:
    """Refuse bad sandbox settings (its limits, its uid) in one line, before any build.

    Raises:
        BuildfixerError: The variable and what is wrong with it.
    """
    sandbox_limits()
    sandbox_ids()


@contextlib.contextmanager
def lent(project: Path) -> Iterator[None]:
    """The project belongs to the sandbox user while the block runs, then to its owner again.

    Everything the sandbox user holds in it afterwards (what the build wrote, too) goes to the
    owner of the project's folder as it was before; a project the sandbox user already held (a
    buildfixer killed in the middle) goes to the caller.
    """
    ids = sandbox_ids()
    if ids is None:
        yield
        return
    info = os.lstat(project)
    owner = (info.st_uid, info.st_gid) if info.st_uid != ids[0] else (os.geteuid(), os.getegid())
    _chown(project, owner[0], ids)
    try:
        yield
    finally:
        _chown(project, ids[0], owner)


def _chown(path: Path, from_uid: int, to: tuple[int, int]) -> None:
    # A file that vanished under the walk (a build still running in the session) is no failure;
    # the folder itself not changing hands is.
    done = subprocess.run(
        ["chown", "-R", "-P", "-h", f"--from={from_uid}", f"{to[0]}:{to[1]}", "--", str(path)],
        capture_output=True, text=True,
    )  # fmt: skip
    with contextlib.suppress(FileNotFoundError):
        if done.returncode and os.lstat(path).st_uid == from_uid:
            reason = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise BuildfixerError(f"cannot hand {path} to uid {to[0]}: {reason}")
