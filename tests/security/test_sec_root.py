"""Sandboxed code is never root on the host, even when buildfixer runs as root.

The review's class "sandbox root is host root": with bubblewrap started by root, the sandbox's uid
0 was the host's uid 0, so whatever the kernel checks by uid alone was open: `/proc/sys` (a core
pattern piping to a workspace script runs it as root outside every namespace), root's Unix
sockets, root's files in the visible host, the caller's key rings. Each test is one such attack,
run for real in the sandbox builds and tools use.
"""

import contextlib
import ctypes
import os
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox

CANARY = "canary-" + uuid.uuid4().hex
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the root caller's attacks (CI runs as root)")
# Kernel settings a root sandbox could write: each would run code or weaken the host.
KNOBS = [
    knob
    for knob in (
        "kernel/core_pattern",
        "kernel/poweroff_cmd",
        "kernel/randomize_va_space",
        "fs/suid_dumpable",
        "kernel/modprobe",
        "vm/overcommit_memory",
    )
    if Path("/proc/sys", knob).exists()
]


def sandboxed(tmp_path: Path, command: str) -> str:
    """Run a shell command as a build's sandbox runs it; its output (the project is tmp_path/p)."""
    project = tmp_path / "p"
    project.mkdir(exist_ok=True)
    log = tmp_path / f"log-{uuid.uuid4().hex[:6]}"
    options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
    env = {"PATH": "/usr/bin:/bin"}
    run_in_sandbox(
        project, options, ["sh", "-c", command], env=env, log_path=log, timeout_s=60, owner="t-root"
    )
    return log.read_text(errors="replace").split("\n", 1)[1]  # without the runner's "$ command" line


def test_the_sandbox_runs_as_an_unprivileged_uid(tmp_path: Path) -> None:
    output = sandboxed(
        tmp_path, "id -u; id -g; id -G; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status"
    )
    lines = output.split()
    assert lines[0] == lines[1] == lines[2] != "0"  # uid, gid and the only group: not root's
    status = dict(line.split(":\t") for line in output.splitlines()[3:] if ":\t" in line)
    assert status == {"CapEff": "0000000000000000", "CapBnd": "0000000000000000", "NoNewPrivs": "1"}


@pytest.mark.parametrize("knob", KNOBS)
def test_kernel_settings_cannot_be_written(knob: str, tmp_path: Path) -> None:
    before = Path("/proc/sys", knob).read_text()
    sandboxed(tmp_path, f"echo '|/tmp/pwn.sh' > /proc/sys/{knob}; echo 2 > /proc/sys/{knob}; echo tried")
    assert Path("/proc/sys", knob).read_text() == before


def test_a_core_dump_runs_no_handler_and_writes_no_core(tmp_path: Path) -> None:
    output = sandboxed(tmp_path, "ulimit -c; sh -c 'kill -SEGV $$'; ls core* 2>/dev/null | wc -l")
    assert output.split("\n")[0].strip() == "0"  # RLIMIT_CORE 0: no core file, no core handler


def test_root_only_files_of_the_visible_host_are_unreadable(tmp_path: Path) -> None:
    folder = Path("/opt") / f"bf-sec-{uuid.uuid4().hex[:8]}"  # /opt is visible read-only
    folder.mkdir()
    try:
        secret = folder / "secret"
        secret.write_text(CANARY)
        secret.chmod(0o600)
        assert CANARY not in sandboxed(tmp_path, f"cat {secret}; cp {secret} /tmp/x; cat /tmp/x")
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


@pytest.mark.parametrize("place", ["run", "opt"])
def test_host_unix_sockets_cannot_be_reached(place: str, tmp_path: Path) -> None:
    base = Path("/run") if place == "run" else Path("/opt")
    folder = base / f"bf-sec-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    path = folder / "engine.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    path.chmod(0o660)  # a container engine's socket: root and its group
    accepted: list[socket.socket] = []
    server.settimeout(15)
    def accept() -> None:
        with contextlib.suppress(OSError):  # closed at the end of the test: nobody came
            accepted.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        connect = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); print('connected')"
        probe = f'python3 -c "{connect}"'
        output = sandboxed(tmp_path, probe)
        assert "connected" not in output and not accepted
    finally:
        server.close()
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_host_state_outside_the_allow_list_is_absent(tmp_path: Path) -> None:
    output = sandboxed(
        tmp_path,
        "for p in /etc/shadow /etc/machine-id /etc/hostname /etc/ssh /etc/sudoers /run /var/lib /var/log "
        "/root/.bash_history /home /srv /mnt /boot /etc/gitconfig; do test -e $p && echo present:$p; done; "
        "grep -c . /etc/passwd",
    )
    assert "present:" not in output
    assert int(output.strip().splitlines()[-1]) <= 3  # root, nobody, the sandbox's user


def test_the_callers_key_rings_are_out_of_reach(tmp_path: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # add_key("user", name, payload, len, KEY_SPEC_SESSION_KEYRING) in the caller's session keyring.
    serial = libc.syscall(248, b"user", b"bf-canary", CANARY.encode(), len(CANARY), -3)
    if serial < 0:
        pytest.skip("this kernel gives the caller no session keyring")
    probe = (
        'python3 -c "import ctypes; libc=ctypes.CDLL(None, use_errno=True); '
        "buf=ctypes.create_string_buffer(200); "
        f'n=libc.syscall(250, 11, {serial}, buf, 200); print(n, ctypes.get_errno(), buf.value)"; '
        "cat /proc/keys"
    )
    try:
        output = sandboxed(tmp_path, probe)
        assert CANARY not in output and "bf-canary" not in output
    finally:
        libc.syscall(250, 21, serial)  # KEYCTL_INVALIDATE


@pytest.mark.parametrize(
    "command", ["unshare -U true", "unshare -Ur true", "unshare -m true", "unshare -n true"]
)
def test_no_new_namespaces(command: str, tmp_path: Path) -> None:
    output = sandboxed(tmp_path, f"{command} && echo CREATED")
    assert "CREATED" not in output


def test_setuid_programs_give_nothing(tmp_path: Path) -> None:
    programs = [
        p for p in ("/usr/bin/su", "/usr/bin/passwd", "/usr/bin/mount", "/usr/bin/chsh") if os.path.exists(p)
    ]
    assert programs
    output = sandboxed(tmp_path, "; ".join(f"{p} -c id 2>&1 </dev/null" for p in programs) + "; id -u")
    assert "uid=0" not in output


def test_what_a_build_writes_goes_back_to_the_projects_owner(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "kept").write_text("x")
    sandboxed(tmp_path, "mkdir -p out && echo built > out/artifact && echo edit >> kept && id -u > uid")
    uid = int((project / "uid").read_text())
    assert uid != 0
    for path in (project, project / "out", project / "out" / "artifact", project / "kept"):
        assert path.lstat().st_uid == 0, path
