"""Attacks from inside the sandbox, as root: capabilities, mounts, hidden files, the network, daemons.

Each test is one attack a model's shell command (or a build script) could make. The sandbox holds
when the attack changes nothing outside and reads nothing hidden.
"""

import os
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox
from buildfixer.buildsys.runner import BuildStep, run_steps
from buildfixer.buildsys.sandbox.backends import Bubblewrap, confinement_for
from buildfixer.buildsys.sandbox.session import SandboxSession
from buildfixer.tools.context import ToolContext
from buildfixer.tools.shell import shell_tools
from support.processes import processes_with, wait_for
from support.tools import tool_context

CANARY = "canary-" + uuid.uuid4().hex


@pytest.fixture
def outside() -> Path:
    """A host directory the sandbox sees read-only (not under /tmp, which it replaces)."""
    path = Path("/var/tmp") / f"bf-sec-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory holding a private key: hidden from every sandbox."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_rsa").write_text(CANARY)
    monkeypatch.setenv("HOME", str(path))
    return path


def shell(tmp_path: Path, offline: bool = False) -> tuple[ToolContext, object]:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    ctx = tool_context(root, "maven", cache_dir=tmp_path / "cache", offline=offline)
    run = next(t for t in shell_tools(ctx) if t.name == "run_shell")
    return ctx, run


# Escalations a root shell would use: each must fail, and the hidden key must stay unread.
ESCALATIONS = {
    "umount-tmp-then-read-home": "umount -l /tmp; umount -l {home}; cat {home}/.ssh/id_rsa",
    "remount-root-rw": "mount -o remount,rw / && echo pwned > {outside}/pwned",
    "bind-mount-over": "mount --bind / /mnt && echo pwned > /mnt{outside}/pwned",
    "nested-user-namespace": "unshare -Urm sh -c 'mount -o remount,rw / && echo pwned > {outside}/pwned'",
    "nested-mount-namespace": "unshare -m sh -c 'umount -l {home}; cat {home}/.ssh/id_rsa'",
    "chroot": "chroot / sh -c 'echo pwned > {outside}/pwned'",
    "write-host-file": "echo pwned > {outside}/pwned",
    "read-home-directly": "cat {home}/.ssh/id_rsa",
    "find-the-key": "find / -name id_rsa -xdev 2>/dev/null | xargs cat",
    "read-shadow": "cat /etc/shadow | grep -c ':' ; cat /etc/shadow",
    "proc-root-of-host-pid1": "cat /proc/1/root{home}/.ssh/id_rsa",
    "kill-host-process": "kill -9 {pid}; echo sent",
    "mknod-disk": "mknod /tmp/sda b 8 0 && cat /tmp/sda | head -c 100",
    "load-kernel-module": "insmod /nonexistent.ko; modprobe dummy && echo loaded",
    "change-hostname-of-host": "hostname pwned && echo renamed",
    "setuid-binary": "cp /bin/sh {outside}/sh && chmod u+s {outside}/sh",
}


@pytest.mark.parametrize("attack", sorted(ESCALATIONS))
def test_root_shell_cannot_escape(attack: str, tmp_path: Path, home: Path, outside: Path) -> None:
    _, run = shell(tmp_path)
    host_pid = os.getpid()
    command = ESCALATIONS[attack].format(home=home, outside=outside, pid=host_pid)
    output = run.call({"shell_command": command})
    assert CANARY not in output
    assert not any(outside.iterdir()), output
    assert socket.gethostname() != "pwned"
    os.kill(host_pid, 0)  # still alive


def test_shadow_is_unreadable_inside(tmp_path: Path, home: Path) -> None:
    _, run = shell(tmp_path)
    assert Path("/etc/shadow").read_text().startswith("root:")  # the host's is readable to us, root
    output = run.call({"shell_command": "cat /etc/shadow /etc/gshadow"})
    assert "root:" not in output, output


def test_shell_has_no_capabilities(tmp_path: Path, home: Path) -> None:
    _, run = shell(tmp_path)
    output = run.call({"shell_command": "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status"})
    assert output.count("0000000000000000") == 3, output


def test_frozen_gradle_hooks_cannot_be_planted(tmp_path: Path, home: Path) -> None:
    ctx, run = shell(tmp_path)
    gradle_home = ctx.options.cache_dir / "gradle"
    output = run.call({"shell_command": (
        f"echo 'println 1' > {gradle_home}/init.d/evil.gradle; echo x >> {gradle_home}/gradle.properties; "
        f"echo 'println 1' > {gradle_home}/init.gradle; touch {gradle_home}/ok-file && echo CACHE-WRITABLE"
    )})  # fmt: skip
    assert "CACHE-WRITABLE" in output  # the cache itself stays usable
    assert not (gradle_home / "init.d" / "evil.gradle").exists()
    assert (gradle_home / "gradle.properties").read_text() == ""
    assert (gradle_home / "init.gradle").read_text() == ""


@pytest.mark.slow
def test_other_workspaces_trajectories_and_mirrors_are_hidden(tmp_path: Path, home: Path) -> None:
    ctx, run = shell(tmp_path)
    cache = ctx.options.cache_dir
    for part in (
        "workspaces/other/secret.txt",
        "trajectories/t.json",
        "repos/r.git/config",
        "daemons/x/registry.bin",
    ):
        (cache / part).parent.mkdir(parents=True, exist_ok=True)
        (cache / part).write_text(CANARY)
    # The pattern is split so that the command line itself (kept in the shell's log) never matches.
    search = f"grep -r '{CANARY[:5]}''{CANARY[5:]}' {cache} /root /home /tmp 2>/dev/null | head"
    output = run.call({"shell_command": f"cat {cache}/*/* {cache}/*/*/* 2>&1; {search}"})
    assert CANARY not in output


@pytest.mark.parametrize("offline", [True, False], ids=["offline", "online"])
def test_shell_cannot_reach_host_loopback(offline: bool, tmp_path: Path, home: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(server.accept()[0]), daemon=True).start()
    _, run = shell(tmp_path, offline=offline)
    run.call({"shell_command": f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo IN; curl -m 5 127.0.0.1:{port}"})
    server.close()
    assert not accepted


def test_shell_cannot_see_the_project_daemon_registry(tmp_path: Path, home: Path) -> None:
    ctx, run = shell(tmp_path)
    registry = ctx.options.sandbox_state_for(ctx.root) / "gradle-daemons" / "4.4.1" / "registry.bin"
    registry.parent.mkdir(parents=True)
    registry.write_text(CANARY)
    assert CANARY not in run.call({"shell_command": f"cat {registry}; ls -R {registry.parent.parent}"})


def test_sandbox_processes_die_with_the_sandbox_even_detached(tmp_path: Path, home: Path) -> None:
    token = f"{uuid.uuid4().int % 10**6}"
    project = tmp_path / "p"
    project.mkdir()
    options = BuildOptions(cache_dir=tmp_path / "cache")
    argv = ["sh", "-c", f"setsid env -u BUILDFIXER_OWNER sleep 86{token} & sleep 1; echo started"]
    result = run_in_sandbox(project, options, argv, env={"PATH": os.environ["PATH"]},
                            log_path=tmp_path / "log", timeout_s=60, owner=f"t-{token}")  # fmt: skip
    assert result.exit_code == 0 and "started" in (tmp_path / "log").read_text()
    wait_for(lambda: not processes_with(f"86{token}"), 10)  # the namespace's teardown is asynchronous


def test_session_timeout_kills_detached_children(tmp_path: Path, home: Path) -> None:
    token = f"{uuid.uuid4().int % 10**6}"
    project = tmp_path / "p"
    project.mkdir()
    prefix = Bubblewrap().wrap([], confinement_for(project, BuildOptions(cache_dir=tmp_path / "cache")))
    session = SandboxSession(prefix)
    try:
        step = BuildStep(["sh", "-c", f"setsid env -u BUILDFIXER_OWNER sleep 87{token} & exec sleep 600"])
        result = run_steps([step], cwd=project, env={"PATH": os.environ["PATH"]}, log_path=tmp_path / "log",
                           timeout_s=3, owner=f"t-{token}", session=session)  # fmt: skip
        assert result.timed_out
        wait_for(lambda: not processes_with(f"87{token}"), 10)
        assert not session.alive()
    finally:
        session.close()


def test_killing_buildfixer_kills_its_sandboxes(tmp_path: Path, home: Path) -> None:
    token = f"{uuid.uuid4().int % 10**6}"
    project = tmp_path / "p"
    project.mkdir()
    marker = project / "started"
    script = (
        "import sys, os\nfrom pathlib import Path\n"
        "from buildfixer.buildsys.options import BuildOptions\n"
        "from buildfixer.buildsys.project import run_in_sandbox\n"
        f"p = Path({str(project)!r})\n"
        f"argv = ['sh', '-c', 'setsid sleep 88{token} & touch started; exec sleep 600']\n"
        f"run_in_sandbox(p, BuildOptions(cache_dir=Path({str(tmp_path / 'cache')!r})), argv, "
        "env={'PATH': os.environ['PATH']}, log_path=p.parent / 'log', timeout_s=600, owner='t-kill')\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        wait_for(marker.exists, 120)
        assert processes_with(f"88{token}")
        proc.kill()  # kill -9: no cleanup code of ours runs
        proc.wait()
        wait_for(lambda: not processes_with(f"88{token}"), 15)
    finally:
        proc.kill()


@pytest.mark.parametrize("target", ["home-ssh", "cache-trajectories", "relative-escape"])
def test_a_planted_git_pointer_exposes_nothing(target: str, tmp_path: Path, home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    options = BuildOptions(cache_dir=tmp_path / "cache")
    trajectories = options.cache_dir / "trajectories"
    trajectories.mkdir(parents=True)
    (trajectories / "HEAD").write_text(CANARY)  # looks like a git directory
    named = {"home-ssh": str(home / ".ssh"), "cache-trajectories": str(trajectories),
             "relative-escape": "../home/.ssh"}[target]  # fmt: skip
    (project / ".git").write_text(f"gitdir: {named}\n")
    assert confinement_for(project, options).readable == confinement_for(tmp_path / "none", options).readable
    argv = ["sh", "-c", f"cat {home}/.ssh/id_rsa {trajectories}/HEAD"]
    run_in_sandbox(project, options, argv, env={"PATH": os.environ["PATH"]}, log_path=tmp_path / "log",
                   timeout_s=60, owner="t-gitdir")  # fmt: skip
    assert CANARY not in (tmp_path / "log").read_text()
