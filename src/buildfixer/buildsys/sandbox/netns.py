"""The network namespaces sandboxes share (one online, one offline), and the process that keeps each.

Why shared rather than one per sandbox: Gradle processes that share a Gradle home take turns on
its cache locks by pinging each other over UDP on loopback; a build in a namespace of its own never
hears the ping, and another build waits 60 s for the lock and fails. So sandboxes join one
namespace (loopback only, no route out) per user and kind, kept by a small holder process. The
online holder also runs `egress`'s proxy outside and a forwarder inside (loopback
`egress.PROXY_PORT` -> the proxy's Unix socket); the offline one has no way out at all. A holder
exits when no buildfixer process uses it any more (each one holds a shared lock on `clients.lock`
for its lifetime, so even `kill -9` of all of them ends it within seconds).

A sandbox joins with `nsenter` and then checks that it is in the namespace the holder reported
before anything runs, so a holder that died (and a reused pid) can never place it elsewhere.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from buildfixer.buildsys.plan import executable
from buildfixer.buildsys.sandbox import egress
from buildfixer.core.errors import BuildfixerError

# Inside the namespace, first: die with the holder, bring loopback up, say so on stdout.
_PROLOGUE = r"""
import ctypes, fcntl, os, signal, socket, struct, sys
ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: the holder's death ends us
if os.getppid() != int(sys.argv[1]):
    sys.exit(0)
probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(probe, 0x8913, struct.pack("16sH", b"lo", 0))[:18])[1]
fcntl.ioctl(probe, 0x8914, struct.pack("16sH", b"lo", flags | 1))  # SIOCSIFFLAGS: lo up
"""
_READY = 'print("ready", flush=True)\n'
# Then, online: listen on loopback, pass every connection to the proxy's Unix socket.
FORWARDER = r"""
import socket, sys, threading
port, target = int(sys.argv[2]), sys.argv[3]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(128)
print("ready", flush=True)
def pipe(a, b):
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(client):
    upstream = socket.socket(socket.AF_UNIX)
    try:
        upstream.connect(target)
    except OSError:
        return client.close()
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
    pipe(client, upstream)
while True:
    client, _ = listener.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()
"""
# Run between nsenter and the sandbox: refuse to go on unless in the namespace the holder made.
_CHECK = (
    'test "$(readlink /proc/self/ns/net)" = "$0" && exec "$@"; '
    'echo "[buildfixer] the sandboxes\' network namespace is gone; rerun the command" >&2; exit 125'
)
# The holder's command: this very buildfixer, whether installed or run from a source tree
# (`_SOURCE_ROOT` holds the `buildfixer` package: this file is buildfixer/buildsys/sandbox/netns.py).
_SOURCE_ROOT = Path(__file__).resolve().parents[3]
_HOLDER = (
    "import sys; sys.path.insert(0, sys.argv[1]); from buildfixer.buildsys.sandbox.netns import hold; "
    "from pathlib import Path; sys.exit(hold(Path(sys.argv[2])))"
)
_STARTUP_S = 20.0
_MIN_LIFE_S = 5.0
_registered: dict[Path, int] = {}
_lock = threading.Lock()


def join_prefix(online: bool, allowed: tuple[str, ...] = ()) -> list[str]:
    """The command prefix that runs what follows in the shared namespace (online: `allowed` hosts).

    Root joins the network namespace alone (what follows keeps the host's credentials and can
    become the sandbox's own unprivileged uid); anyone else joins the holder's user namespace too,
    without which it may not enter the network namespace.
    """
    nsenter = executable("nsenter")
    if nsenter is None:
        raise BuildfixerError("sandboxes need nsenter (apt-get install util-linux)")
    directory = state_dir("online" if online else "offline")
    with _lock:
        _register(directory, allowed)
        pid, net = _running_holder(directory) or _start_holder(directory)
    user = ["--user", "--preserve-credentials"] if os.geteuid() != 0 else []
    join = [nsenter, "--target", str(pid), *user, "--net", "--"]
    return [*join, "/bin/sh", "-c", _CHECK, f"net:[{net}]"]


def state_dir(kind: str) -> Path:
    """The directory of this user's holder of a kind (private: mode 0700, owned by us, not a link)."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    directory = base / f"buildfixer-net-{os.getuid()}-{_code_version()}-{kind}"
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except OSError as exc:
        raise BuildfixerError(f"cannot create {directory}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise BuildfixerError(f"{directory} is not a private directory of this user; remove it")
    return directory


@functools.cache
def _code_version() -> str:
    """A digest of the holder's code: a holder left by another buildfixer version is never joined."""
    return hashlib.sha256(Path(__file__).read_bytes() + Path(egress.__file__).read_bytes()).hexdigest()[:10]


def _register(directory: Path, allowed: tuple[str, ...]) -> None:
    """Hold a shared lock on the client file for this process's life; publish our extra hosts."""
    if directory not in _registered or _registered[directory] != os.getpid():
        fd = os.open(directory / "clients.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a holder with no clients is shutting down
        _registered[directory] = os.getpid()
    hosts = directory / "hosts.d" / str(os.getpid())
    hosts.parent.mkdir(exist_ok=True)
    extra = "\n".join(h for h in allowed if h not in egress.REGISTRY_HOSTS)
    if not hosts.is_file() or hosts.read_text() != extra:
        partial = hosts.with_suffix(".tmp")
        partial.write_text(extra)
        partial.replace(hosts)


def _running_holder(directory: Path) -> tuple[int, int] | None:
    """(pid in the namespace, namespace inode) of a live holder, else None."""
    fd = os.open(directory / "holder.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        pass  # held: a holder runs
    else:
        return None
    finally:
        os.close(fd)
    try:
        info = json.loads((directory / "netns.json").read_text())
        if os.readlink(f"/proc/{info['pid']}/ns/net") == f"net:[{info['net']}]":
            return int(info["pid"]), int(info["net"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _start_holder(directory: Path) -> tuple[int, int]:
    """Start a holder (detached) and wait until its namespace is up."""
    with open(directory / "holder.log", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(_SOURCE_ROOT), str(directory)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            env={"PATH": os.environ.get("PATH", "")},
        )  # fmt: skip
    deadline = time.monotonic() + _STARTUP_S
    while time.monotonic() < deadline:
        if found := _running_holder(directory):
            return found
        time.sleep(0.05)
    raise BuildfixerError(f"the sandboxes' network namespace did not start (see {directory / 'holder.log'})")


def _allowed_hosts(directory: Path) -> tuple[str, ...]:
    """Registry hosts plus the extra hosts of every live client (a dead one's are removed)."""
    hosts = list(egress.REGISTRY_HOSTS)
    for entry in (directory / "hosts.d").glob("*"):
        if not entry.name.isdigit():
            continue
        if not Path(f"/proc/{entry.name}").exists():
            entry.unlink(missing_ok=True)
            continue
        try:
            hosts += entry.read_text().split()
        except OSError:
            continue
    return tuple(dict.fromkeys(hosts))


def hold(directory: Path) -> int:
    """The holder: a new namespace (online: proxy outside, forwarder inside) until no client is left."""
    lock = os.open(directory / "holder.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another holder won the race
    clients = os.open(directory / "clients.lock", os.O_RDWR | os.O_CREAT, 0o600)
    (directory / "netns.json").unlink(missing_ok=True)
    socket_path = directory / "proxy.sock"
    socket_path.unlink(missing_ok=True)
    online = directory.name.endswith("-online")
    if online:
        server = egress.serve_proxy(socket_path, lambda: _allowed_hosts(directory))  # read per request
        inside = [_PROLOGUE + FORWARDER, str(os.getpid()), str(egress.PROXY_PORT), str(socket_path)]
    else:
        inside = [_PROLOGUE + _READY + "signal.pause()", str(os.getpid())]
    # Root makes the network namespace alone (owned by the host's user namespace: no sandbox can
    # ever hold a capability over it); anyone else in a user namespace of its own, keeping its
    # uid (sandboxes join both) and, for loopback's sake, its capabilities there.
    unshare = executable("unshare") or "unshare"
    user = [] if os.geteuid() == 0 else ["--user", "--map-current-user", "--keep-caps"]
    argv = [unshare, "--net", *user, "--", sys.executable, "-I", "-c", *inside]
    forwarder = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert forwarder.stdout is not None
    if forwarder.stdout.readline().strip() != b"ready":
        forwarder.kill()
        return 1
    net = os.stat(f"/proc/{forwarder.pid}/ns/net").st_ino
    partial = directory / "netns.json.tmp"
    partial.write_text(json.dumps({"pid": forwarder.pid, "net": net}))
    partial.replace(directory / "netns.json")
    started = time.monotonic()
    try:
        while forwarder.poll() is None:
            time.sleep(0.5)
            if time.monotonic() - started > _MIN_LIFE_S:
                try:
                    fcntl.flock(clients, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break  # no client left (kept until we exit: a new one waits for us)
                except BlockingIOError:
                    continue
    finally:
        (directory / "netns.json").unlink(missing_ok=True)
        socket_path.unlink(missing_ok=True)
        if online:
            server.shutdown()
        forwarder.kill()
        forwarder.wait()
    return 0
