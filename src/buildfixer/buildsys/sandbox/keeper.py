"""A project's sandbox session that outlives one buildfixer command, so warm builds stay warm.

A `SandboxSession` lives as long as the buildfixer process that started it. That is a whole repair
for `fix`, but a single build for `buildfixer build`: two builds in a row each started a sandbox
and a Gradle daemon in it (26.5 s against 3.6 s for a bare warm build). A keeper is a small
host-side process that owns the project's session and runs the builds of later commands in it:

- it is started by the first command that needs the project's warm session, detached from it,
  and serves requests on a Unix socket in `<cache>/sessions` (mode 0700, ours, never mounted
  into a sandbox), from the same user only (the peer's credentials are checked);
- it starts exactly the sandbox the command would have started (the same confinement, made into
  the same bubblewrap command line, control group and limits), only its lifetime is longer; it
  makes that command line itself, so that it is a client of the sandboxes' network namespace
  (buildsys.sandbox.netns) for as long as it lives, like any buildfixer process;
- each request is one step (argv, folder, environment, timeout) and the log file's descriptor;
  the reply is the exit code, whether it timed out and the limit it hit;
- a command that goes away mid-step (Ctrl-C) ends the step: the keeper closes the session;
- it ends, and the sandbox and its daemons with it, when idle for as long as a Gradle daemon
  waits (ten minutes), when its session dies, or when `stop_daemons` asks.

Only a project built in place has a keeper (the user's folder, `buildfixer build` and `fix`);
buildfixer's own workspaces (benchmarks, curation) keep their in-process sessions, which end
with the run instead of holding memory for ten minutes after it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import select
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from buildfixer.buildsys.sandbox.backends import get_sandbox
from buildfixer.buildsys.sandbox.session import SESSION_LOST, SandboxSession
from buildfixer.core.protocols import Confinement

# As long as a Gradle daemon waits for its next build (buildsys.gradle's idle timeout).
IDLE_S = 600.0
_START_S = 20.0  # a keeper that does not listen by then is given up on
_MAX_REQUEST = 1 << 20


def _folder(cache_dir: Path) -> Path | None:
    """`<cache>/sessions`: ours, a real directory, mode 0700; None when it cannot be made so."""
    folder = cache_dir / "sessions"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return None
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


@contextlib.contextmanager
def _short(address: Path) -> Iterator[str]:
    """A short name for `address`: a socket's path may hold at most 107 bytes, a cache folder's more.

    The folder is opened (never through a link) and named through /proc/self/fd.
    """
    fd = os.open(address.parent, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        yield f"/proc/self/fd/{fd}/{address.name}"
    finally:
        os.close(fd)


def _described(confinement: Confinement) -> dict[str, Any]:
    """The confinement as JSON: paths as strings."""
    return json.loads(json.dumps(dataclasses.asdict(confinement), default=str))


def _confinement(described: dict[str, Any]) -> Confinement:
    """The confinement `_described` wrote."""

    def paths(key: str) -> tuple[Path, ...]:
        return tuple(Path(p) for p in described[key])

    accounts = described["accounts"]
    return Confinement(
        writable=paths("writable"), network=bool(described["network"]),
        allowed_hosts=tuple(described["allowed_hosts"]), hidden=paths("hidden"), readable=paths("readable"),
        frozen=paths("frozen"), home=str(described["home"]), accounts=Path(accounts) if accounts else None,
    )  # fmt: skip


def _key(project: Path, confinement: Confinement) -> str:
    """The keeper's name: of the project folder and the confinement.

    That very folder: one deleted and made again at the same path is another, which a sandbox
    holding the old one's mount would not see.
    """
    try:
        folder = os.stat(project)
        identity = [folder.st_dev, folder.st_ino]
    except OSError:
        identity = []
    described = json.dumps([str(project), identity, _described(confinement)])
    return hashlib.sha256(described.encode()).hexdigest()[:24]


class KeptSession:
    """The client side: a `SandboxSession` look-alike whose steps run in the project's keeper."""

    def __init__(self, address: Path) -> None:
        self._address = address
        self._lock = threading.Lock()
        self.limit_hit: str | None = None
        self.stalled = False

    def alive(self) -> bool:
        """Whether the keeper answers (it ends with its session)."""
        try:
            with self._connect():
                return True
        except OSError:
            return False

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with _short(self._address) as name:
                sock.connect(name)
        except OSError:
            sock.close()
            raise
        return sock

    def run(
        self, argv: list[str], cwd: Path, env: dict[str, str], log_fd: int, timeout_s: float,
        stall_s: float | None = None,
    ) -> tuple[int, bool]:  # fmt: skip
        """Run one step in the keeper's sandbox; (exit code, timed out), as `SandboxSession.run`."""
        fields = {"argv": argv, "cwd": str(cwd), "env": env, "timeout_s": timeout_s, "stall_s": stall_s}
        request = json.dumps(fields).encode()
        with self._lock:
            self.limit_hit, self.stalled = None, False
            try:
                with self._connect() as sock:
                    socket.send_fds(sock, [request], [log_fd])
                    reply = sock.recv(4096)
            except OSError:
                return SESSION_LOST, False
            if not reply:
                return SESSION_LOST, False
            answer = json.loads(reply)
            self.limit_hit, self.stalled = answer.get("limit"), bool(answer.get("stalled"))
            return int(answer["exit"]), bool(answer["timed_out"])

    def close(self) -> None:
        """Nothing to close on this side: the keeper outlives the command (see `stop`)."""

    def stop(self) -> bool:
        """Ask the keeper to end, with its sandbox and everything in it; False if none answered."""
        try:
            with self._connect() as sock:
                sock.send(json.dumps({"stop": True}).encode())
                sock.recv(16)
        except OSError:
            return False
        return True


def kept_session(
    project: Path, confinement: Confinement, cache_dir: Path, idle_s: float = IDLE_S, *, start: bool = True
) -> KeptSession | None:
    """The live keeper of `project` with exactly this confinement; started if needed (ending after `idle_s`).

    Returns None when no keeper runs (and `start` is False), or none can run here (no private
    folder for its socket, or it did not start): the caller falls back to a session of its own.
    """
    folder = _folder(cache_dir)
    if folder is None:
        return None
    key = _key(project, confinement)
    address = folder / f"{key}.sock"
    session = KeptSession(address)
    if session.alive():
        return session
    if not start:
        return None
    stop_keepers(project, cache_dir)  # another sandbox of this project (options changed): one keeper
    with contextlib.suppress(FileNotFoundError):
        address.unlink()  # a keeper that died without cleaning up
    config = json.dumps({"address": str(address), "confinement": _described(confinement), "idle_s": idle_s})
    proc = subprocess.Popen(
        [sys.executable, "-m", "buildfixer.buildsys.sandbox.keeper"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(config.encode())
    proc.stdin.close()
    ready, _, _ = select.select([proc.stdout], [], [], _START_S)
    if not ready or proc.stdout.readline().strip() != b"ready":
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        return None
    proc.stdout.close()
    (folder / f"{key}.json").write_text(json.dumps({"project": str(project), "pid": proc.pid}))
    return session


def stop_keepers(project: Path, cache_dir: Path) -> int:
    """End the keepers of `project` (its warm daemons with them); returns how many there were."""
    folder = _folder(cache_dir)
    if folder is None:
        return 0
    stopped = 0
    for record in folder.glob("*.json"):
        try:
            mine = json.loads(record.read_text())["project"] == str(project)
        except (OSError, ValueError, KeyError):
            continue
        if mine and KeptSession(record.with_suffix(".sock")).stop():
            stopped += 1  # the keeper removes its record as it ends
        elif mine:  # one that died without cleaning up (killed, the machine restarted)
            for leftover in (record, record.with_suffix(".sock")):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
    return stopped


# --- the keeper process --------------------------------------------------------------------


def _serve(address: Path, session: SandboxSession, idle_s: float) -> None:
    """Answer requests until idle for `idle_s`, asked to stop, or the session is gone."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with _short(address) as name:
        listener.bind(name)
    os.chmod(address, 0o600)
    listener.listen(4)
    print("ready", flush=True)
    os.close(1)
    try:
        while session.alive():
            ready, _, _ = select.select([listener], [], [], idle_s)
            if not ready:
                return  # idle: the daemons would have stopped by now anyway
            client, _ = listener.accept()
            with client:
                if not _same_user(client) or not _answer(client, session):
                    return
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            address.unlink()
        with contextlib.suppress(FileNotFoundError):
            address.with_suffix(".json").unlink()
        session.close()


def _same_user(client: socket.socket) -> bool:
    creds = client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    uid = int.from_bytes(creds[4:8], sys.byteorder)
    return uid == os.getuid()


def _answer(client: socket.socket, session: SandboxSession) -> bool:
    """Run one request; False when the keeper must end (asked to, or the step's command left)."""
    try:
        data, fds, _, _ = socket.recv_fds(client, _MAX_REQUEST, 1)
    except OSError:
        return True
    request = json.loads(data) if data else {}
    if request.get("stop"):
        with contextlib.suppress(OSError):
            client.send(b"{}")
        return False
    if not fds:
        return True
    log_fd = fds[0]
    outcome: dict[str, object] = {}

    # The step's end is a byte on this pipe: waited for together with the client's socket, the
    # answer goes out the moment the step ends (no polling interval added to every build).
    done_r, done_w = os.pipe()

    def step() -> None:
        try:
            code, timed_out = session.run(
                request["argv"], Path(request["cwd"]), request["env"], log_fd, float(request["timeout_s"]),
                request.get("stall_s"),
            )  # fmt: skip
            outcome.update(
                {"exit": code, "timed_out": timed_out, "limit": session.limit_hit, "stalled": session.stalled}
            )
        finally:
            os.close(log_fd)
            os.write(done_w, b"x")

    worker = threading.Thread(target=step, daemon=True)
    worker.start()
    watched: list[socket.socket | int] = [client, done_r]
    try:
        while True:
            ready, _, _ = select.select(watched, [], [])
            if done_r in ready:
                break
            # The command that asked is gone (interrupted): its build must not go on without it.
            if not client.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT):
                session.close()
                return False
            watched = [done_r]  # it sent more than its request (ours never do): wait for the step alone
    finally:
        worker.join()
        os.close(done_r)
        os.close(done_w)
    with contextlib.suppress(OSError):
        client.send(json.dumps(outcome).encode())
    return session.alive()


def main() -> None:
    """Start the sandbox the config on stdin describes and serve it (run as `python -m ...keeper`)."""
    config = json.loads(sys.stdin.read())
    os.chdir("/")  # never hold the folder the command ran in (the user may delete or unmount it)
    confinement = _confinement(config["confinement"])
    prefix = get_sandbox("bubblewrap").wrap([], confinement)
    session = SandboxSession(prefix, confinement.writable)
    _serve(Path(config["address"]), session, float(config["idle_s"]))


if __name__ == "__main__":
    main()
