"""The keeper: a project's sandbox session outliving one command, with the same confinement.

Each "command" here is a separate Python process, as `buildfixer build` run twice would be.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.buildsys.sandbox import netns
from support.processes import processes_with, wait_for

pytestmark = pytest.mark.slow

# One command: the project's warm sandbox session, one step in it, the output on stdout.
_COMMAND = """
import os, sys
from pathlib import Path
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import sandbox_session
from buildfixer.buildsys.runner import BuildStep, run_steps
from buildfixer.buildsys.sandbox.backends import confinement_for
project, cache, script = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
options = BuildOptions(cache_dir=cache)
with sandbox_session(project, options, confinement_for(project, options), warm=True) as session:
    result = run_steps([BuildStep(["sh", "-c", script])], cwd=project, env={"PATH": os.environ["PATH"]},
                       log_path=cache / "step.log", timeout_s=60, owner="t-keeper", session=session)
print(type(session).__name__, result.exit_code)
print((cache / "step.log").read_text())
"""


def command(project: Path, cache: Path, script: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _COMMAND, str(project), str(cache), script],
        capture_output=True, text=True, timeout=120, **kwargs,
    )  # fmt: skip


@pytest.fixture
def project(tmp_path: Path):
    folder = tmp_path / "project"
    folder.mkdir()
    yield folder
    stop_daemons(folder.resolve(), BuildOptions(cache_dir=tmp_path / "cache"))


def sessions(cache: Path) -> list[Path]:
    return sorted((cache / "sessions").glob("*.sock"))


def test_a_second_command_runs_in_the_sandbox_the_first_one_left(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    token = uuid.uuid4().hex
    # The sandbox's /tmp is its own: only the same sandbox can see what the first command left there.
    first = command(project, cache, f"echo {token} > /tmp/left-by-first; setsid sleep 300 & echo done")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("KeptSession 0"), first.stdout
    keeper = sessions(cache)
    # Long enough for the sandboxes' network namespace holder to end had the keeper not kept it.
    time.sleep(netns._MIN_LIFE_S + 3)
    second = command(project, cache, "cat /tmp/left-by-first; echo $(id -u)")
    assert second.returncode == 0, second.stderr
    assert token in second.stdout
    assert f"\n{os.getuid()}\n" not in second.stdout  # still the sandbox's unprivileged user, not ours
    assert sessions(cache) == keeper  # the same keeper, not a new one in its place


def test_a_folder_made_again_at_the_same_path_gets_a_new_sandbox(project: Path, tmp_path: Path) -> None:
    # A user deletes the clone and clones again: the old sandbox's mount is of the deleted folder.
    cache = tmp_path / "cache"
    (project / "marker").write_text("old\n")
    assert command(project, cache, "cat marker").stdout.endswith("old\n\n")
    shutil.rmtree(project)
    project.mkdir()
    (project / "marker").write_text("new\n")
    again = command(project, cache, "cat marker")
    assert again.returncode == 0 and again.stdout.startswith("KeptSession 0"), again.stdout + again.stderr
    assert again.stdout.endswith("new\n\n"), again.stdout
    assert len(sessions(cache)) == 1  # the old keeper was stopped, not left beside the new one


def test_the_socket_is_ours_alone(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert command(project, cache, "true").returncode == 0
    folder = cache / "sessions"
    assert os.stat(folder).st_mode & 0o777 == 0o700
    (socket_path,) = sessions(cache)
    assert os.stat(socket_path).st_mode & 0o777 == 0o600
    # Another user of the machine cannot reach it (nobody, as the sandbox's builds would be).
    probe = (
        "import os, socket, sys\nos.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
        "try:\n    s.connect(sys.argv[1]); print('connected')\n"
        "except OSError as e:\n    print('refused', e.errno)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(socket_path)], capture_output=True, text=True)
    assert done.stdout.startswith("refused"), done.stdout + done.stderr


def test_stop_daemons_ends_the_keeper_and_its_sandbox(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    token = f"{uuid.uuid4().int % 10**6}"
    assert command(project, cache, f"setsid sleep 89{token} & echo started").returncode == 0
    assert processes_with(f"89{token}")
    assert stop_daemons(project.resolve(), BuildOptions(cache_dir=cache)) >= 1
    wait_for(lambda: not processes_with(f"89{token}") and not sessions(cache), 15)


def test_an_idle_keeper_ends_by_itself(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from buildfixer.buildsys.options import BuildOptions\n"
        "from buildfixer.buildsys.sandbox.backends import confinement_for\n"
        "from buildfixer.buildsys.sandbox.keeper import kept_session\n"
        "p, cache = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "o = BuildOptions(cache_dir=cache)\n"
        "print(kept_session(p, confinement_for(p, o), cache, idle_s=2.0) is not None)\n"
    )
    argv = [sys.executable, "-c", script, str(project.resolve()), str(cache)]
    done = subprocess.run(argv, capture_output=True)
    assert done.stdout.strip() == b"True", done.stderr
    assert sessions(cache)
    wait_for(lambda: not sessions(cache), 15)


def test_an_interrupted_command_ends_its_step(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    token = f"{uuid.uuid4().int % 10**6}"
    proc = subprocess.Popen(
        [sys.executable, "-c", _COMMAND, str(project), str(cache), f"exec sleep 90{token}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for(lambda: bool(processes_with(f"90{token}")), 60)
        proc.kill()  # the command goes away mid-build (Ctrl-C, a killed CI step)
        proc.wait()
        wait_for(lambda: not processes_with(f"90{token}"), 15)
    finally:
        proc.kill()


def test_a_workspace_of_buildfixer_keeps_an_in_process_session(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    workspace = cache / "workspaces" / "w1"
    workspace.mkdir(parents=True)
    try:
        done = command(workspace, cache, "true")
        assert done.stdout.startswith("SandboxSession 0"), done.stdout + done.stderr
        assert not sessions(cache)
    finally:
        stop_daemons(workspace.resolve(), BuildOptions(cache_dir=cache))


def test_records_name_the_project(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert command(project, cache, "true").returncode == 0
    (record,) = (cache / "sessions").glob("*.json")
    assert json.loads(record.read_text())["project"] == str(project.resolve())
