"""A long-lived sandbox per project, so warm builds stay warm without leaving the sandbox.

A Gradle daemon started inside a one-command sandbox dies with it, and every sandboxed build
would then pay a cold JVM (about five times a warm build). A session is one bubblewrap sandbox
that lives for the whole repair: a small stdlib-only server inside it runs each build step it is
sent, so the daemon a build starts stays in the session (sandboxed, with the same mounts) and
the next build reuses it. When the session ends (`close`, a timeout, or buildfixer itself
dying: bwrap's die-with-parent), everything inside it ends too.

The server gets requests on a socket pair: the step's argv, cwd and environment as JSON, and
the log file as a passed descriptor, so output goes straight to the log and never through us.

Each session has a control group of its own where the machine offers one (`buildsys.sandbox.cgroups`);
a step that reaches one of the sandbox's limits (`buildsys.sandbox.limits`: processes, memory, CPU time,
file size, free disk) is reported by name in `limit_hit`. Cold builds and single commands run
in a session too, one used once and closed.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from buildfixer.buildsys.activity import OWNER_VAR, StallWatch
from buildfixer.buildsys.sandbox import cgroups
from buildfixer.buildsys.sandbox.limits import sandbox_limits

# Runs inside the sandbox with `python -I`: nothing from the project can change how it starts.
_SERVER = r"""
import json, os, socket, subprocess, sys
sock = socket.socket(fileno=int(sys.argv[1]))
while True:
    try:
        data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 1)
    except OSError:
        break
    if not data:
        break
    request, log = json.loads(data), fds[0]
    try:
        proc = subprocess.Popen(request["argv"], cwd=request["cwd"], env=request["env"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        code = proc.wait()
    except OSError as exc:
        os.write(log, ("[buildfixer] cannot run %s: %s\n" % (request["argv"][0], exc.strerror)).encode())
        code = 127
    finally:
        os.close(log)
    sock.send(json.dumps({"exit": code}).encode())
"""
# Exit code reported when the session itself died under a step (an infrastructure failure).
SESSION_LOST = 125
# A step's main process ended by these signals hit that rlimit.
_SIGNAL_LIMITS = {-signal.SIGXCPU: "cpu_s", -signal.SIGXFSZ: "file_size"}
_DISK_CHECK_S = 0.5


class Session(Protocol):
    """Where a build's steps run one at a time: a `SandboxSession`, or a keeper's (sandbox.keeper)."""

    limit_hit: str | None  # the sandbox limit the last step reached, if any
    stalled: bool  # the last step printed nothing and used no CPU for its `stall_s` (also timed out)

    def run(
        self, argv: list[str], cwd: Path, env: dict[str, str], log_fd: int, timeout_s: float,
        stall_s: float | None = None,
    ) -> tuple[int, bool]:  # fmt: skip
        """Run one command inside; (exit code, timed out)."""
        ...

    def alive(self) -> bool:
        """Whether steps can still run in it."""
        ...

    def close(self) -> None:
        """Let go of it (a keeper's session lives on)."""
        ...


class SandboxSession:
    """One sandbox that runs steps one at a time until it is closed."""

    def __init__(self, prefix: list[str], watched: Sequence[Path] = ()) -> None:
        """Start the sandbox `prefix` describes; `watched` are its writable folders (free disk kept)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        self._lock = threading.Lock()
        self._watched = list(watched)
        self.limit_hit: str | None = None  # the limit the last step reached, if any
        self.stalled = False
        self._group = cgroups.create(sandbox_limits())
        join = self._group.join_prefix() if self._group else []
        argv = [*join, *prefix, sys.executable, "-I", "-c", _SERVER, str(theirs.fileno())]
        self._proc = subprocess.Popen(
            argv, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, env={"PATH": os.environ.get("PATH", "")},
        )  # fmt: skip
        theirs.close()

    def alive(self) -> bool:
        """Whether the sandbox is still running."""
        return self._proc.poll() is None

    def run(
        self, argv: list[str], cwd: Path, env: dict[str, str], log_fd: int, timeout_s: float,
        stall_s: float | None = None,
    ) -> tuple[int, bool]:  # fmt: skip
        """Run one command inside; (exit code, timed out). A timeout, or a stall, ends the whole session."""
        request = json.dumps({"argv": argv, "cwd": str(cwd), "env": env}).encode()
        owner = env.get(OWNER_VAR)
        with self._lock:
            self.limit_hit, self.stalled = None, False
            watch = StallWatch(log_fd, owner, stall_s) if stall_s and owner else None
            if self._group:
                self._group.hits()  # counted from here on
            try:
                socket.send_fds(self._sock, [request], [log_fd])
            except OSError:
                return SESSION_LOST, False
            deadline = time.monotonic() + timeout_s
            while True:
                remaining = deadline - time.monotonic()
                self.stalled = bool(watch and watch.stalled())
                if remaining <= 0 or self.stalled:
                    self.close()
                    return -1, True
                ready, _, _ = select.select([self._sock], [], [], min(remaining, _DISK_CHECK_S))
                if ready:
                    break
                # A limit reached stops the whole sandbox at once: a fork bomb at its task limit
                # keeps trying, a memory bomb keeps the OOM killer busy, a full disk fills others'.
                hits = ["disk_free"] if self._disk_low() else self._group.hits() if self._group else []
                if hits:
                    self.limit_hit = hits[0]
                    self.close()
                    return -9, False
            try:
                reply = self._sock.recv(4096)
            except OSError:
                reply = b""
            hits = self._group.hits() if self._group else []
            self.limit_hit = hits[0] if hits else None
            if not reply:  # the sandbox died under the step (killed from outside, or out of memory)
                self.close()
                return (-9 if self.limit_hit else SESSION_LOST), False
            code = int(json.loads(reply)["exit"])
            self.limit_hit = self.limit_hit or _SIGNAL_LIMITS.get(code)
            return code, False

    def _disk_low(self) -> bool:
        """Whether a watched folder's filesystem has less free space than the sandbox must leave."""
        floor = sandbox_limits().disk_free
        for path in self._watched:
            try:
                info = os.statvfs(path)
            except OSError:
                continue
            if info.f_bavail * info.f_frsize < floor:
                return True
        return False

    def close(self) -> None:
        """End the session and everything running in it."""
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)  # bwrap's PID namespace dies with it
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)
        if self._group:
            self._group.remove()


_SESSIONS: dict[tuple[str, tuple[str, ...]], SandboxSession] = {}
_SESSIONS_LOCK = threading.Lock()


def session_for(project: Path, prefix: list[str], watched: Sequence[Path] = ()) -> SandboxSession:
    """The live session of `project` with exactly this sandbox (mounts, network); started if needed."""
    key = (str(project), tuple(prefix))
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is None or not session.alive():
            for other in [k for k in _SESSIONS if k[0] == key[0]]:
                _SESSIONS.pop(other).close()  # options changed (JDK paths, network): one session per project
            session = _SESSIONS[key] = SandboxSession(prefix, watched)
        return session


def close_sessions(project: Path) -> int:
    """End the sessions of `project` (its warm daemons with them); returns how many there were."""
    with _SESSIONS_LOCK:
        mine = [key for key in _SESSIONS if key[0] == str(project)]
        for key in mine:
            _SESSIONS.pop(key).close()
    return len(mine)


@atexit.register
def _close_all() -> None:
    with _SESSIONS_LOCK:
        while _SESSIONS:
            _SESSIONS.popitem()[1].close()
