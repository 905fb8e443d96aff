"""`fix` on a git project whose build reads git-ignored user files and git history (real Gradle builds).

Whatever the outcome (repaired, declined, already building, interrupted), the user's ignored files
stay byte-identical, build side effects never land, and what lands is exactly the patch reported.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.git import Repo
from support.model import call, replace, scripted

CLI = [sys.executable, "-m", "buildfixer", "fix"]
SOURCE = "src/main/java/demo/Greeter.java"
BROKEN = "int count = 1 }"
FIXED = "int count = 1; }"

# The build reads a git-ignored properties file with the user's real value, derives its version
# from `git describe` (as version-from-git plugins do), and rewrites a tracked file (a side effect).
BUILD_GRADLE = """\
apply plugin: 'java'
def props = new Properties()
file('local.properties').withInputStream { props.load(it) }
if (props.getProperty('api.key') != 'the-users-real-key') {
    throw new GradleException('local.properties has no api.key')
}
def described = 'git describe --tags'.execute(null, projectDir).text.trim()
if (!described.startsWith('v1.')) { throw new GradleException("no version from git: '" + described + "'") }
file('version.txt').text = described + '\\n'
"""
IGNORED = {
    "local.properties": b"api.key=the-users-real-key\n",
    "signing.properties": b"storePassword=hunter2\n",
    "notes.log": b"my notes\n",
}


def files(root: Path) -> dict[str, bytes]:
    """Every file as the user sees it, build outputs and git's own data aside."""
    skip = {".git", "build", ".gradle"}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not skip & set(p.relative_to(root).parts)
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "greeter"
    (root / "src/main/java/demo").mkdir(parents=True)
    (root / "build.gradle").write_text(BUILD_GRADLE)
    (root / ".gitignore").write_text("build/\n.gradle/\nlocal.properties\nsigning.properties\n*.log\n")
    (root / SOURCE).write_text("package demo;\npublic class Greeter { int count = 1; }\n")
    (root / "version.txt").write_text("committed\n")
    repo = Repo(root)
    repo.commit("first")
    repo.git("tag", "v1.0")
    for name, data in IGNORED.items():
        (root / name).write_bytes(data)
    (root / "scratch.txt").write_text("untracked, not ignored\n")
    return root


def fix(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, str(project), *args], capture_output=True, text=True, timeout=900)


def break_source(project: Path) -> None:
    (project / SOURCE).write_text(f"package demo;\npublic class Greeter {{ {BROKEN}\n")


def build_logs(trajectory: dict) -> list[Path]:
    """The logs of the builds this attempt ran (they stay next to the discarded workspace state)."""
    return sorted(Path(trajectory["meta"]["initial"]["log_path"]).parent.glob("build-*.log"))


def assert_ignored_files_intact(project: Path) -> None:
    for name, data in IGNORED.items():
        assert (project / name).read_bytes() == data, name


@pytest.mark.slow
def test_a_repair_lands_exactly_its_patch_and_never_an_ignored_file(project: Path, tmp_path: Path) -> None:
    break_source(project)
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine, symlinks=True)
    steps = [
        replace(SOURCE, BROKEN, FIXED),
        # An edit of the user's git-ignored file: undone before the verdict, never written back.
        replace("local.properties", "api.key", "# edited\napi.key"),
        call("run_build"),
        {"content": "fixed the missing semicolon"},
    ]  # fmt: skip
    traj, model = tmp_path / "t.json", scripted(tmp_path / "script.json", steps)
    proc = fix(project, "--model", model, "--json", "--trajectory", str(traj))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] and out["applied"]
    assert out["patch"].startswith(f"diff --git a/{SOURCE} b/{SOURCE}")
    assert out["patch"].count("diff --git") == 1  # not version.txt (a build wrote it), not local.properties
    # What landed is the reported patch applied to the project as it was, and nothing else.
    subprocess.run(["git", "apply"], cwd=pristine, input=out["patch"], text=True, check=True)
    assert files(project) == files(pristine)
    assert_ignored_files_intact(project)
    assert (project / "version.txt").read_text() == "committed\n"
    verdict = json.loads(traj.read_text())["verdict"]
    assert verdict["refused"] == ["local.properties"] and verdict["edited"] == [SOURCE]
    assert verdict["status"] == "success"


@pytest.mark.slow
def test_a_declined_fix_changes_nothing_and_builds_once(project: Path, tmp_path: Path) -> None:
    break_source(project)
    before = files(project)
    traj = tmp_path / "t.json"
    proc = fix(project, "--model", "recipes", "--json", "--trajectory", str(traj))
    assert proc.returncode == 1, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert not out["applied"] and out["patch"] == ""
    assert files(project) == before
    saved = json.loads(traj.read_text())
    assert saved["verdict"]["stop_reason"].startswith("declined")
    # Nothing changed since the first build: its result is the verdict, no second build ran.
    assert len(build_logs(saved)) == 1
    assert saved["verdict"]["log_path"] == saved["meta"]["initial"]["log_path"]
    assert "verdict: the build after the last change is the verdict (not built again)" in proc.stderr


@pytest.mark.slow
def test_a_project_that_already_builds_is_left_as_it_is(project: Path, tmp_path: Path) -> None:
    before = files(project)
    proc = fix(project, "--model", "recipes")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "nothing to fix" in proc.stdout and "applied" not in proc.stdout
    # It builds in the snapshot only because the snapshot holds the ignored file and the tags;
    # its build rewrote version.txt there, which must not come back.
    assert files(project) == before


@pytest.mark.slow
def test_an_interrupted_fix_leaves_every_file_as_it_was(project: Path, tmp_path: Path) -> None:
    break_source(project)
    before = files(project)
    traj = tmp_path / "t.json"
    steps = [
        replace(SOURCE, BROKEN, FIXED),
        call("run_build"),
        call("run_build"),  # builds left after the edit: the interrupt lands in one, even on a loaded machine
        {"content": "done"},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [*CLI, str(project), "--model", scripted(tmp_path / "script.json", steps), "--trajectory", str(traj)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if len(json.loads(traj.read_text())["steps"]) >= 1:  # the edit is made
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        assert proc.poll() is None, "fix ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130
    assert files(project) == before
