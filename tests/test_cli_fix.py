"""`buildfixer fix` as a user runs it: a subprocess, real builds, only the model scripted."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from buildfixer.core.paths import cache_root
from buildfixer.examples import get_example, materialize, materialize_base
from support.model import call, replace, scripted
from support.projects import maven_release_project

CLI = [sys.executable, "-m", "buildfixer", "fix"]
REPORT = "src/main/java/com/example/wordstats/Report.java"
BROKEN_CALL = "counter.top(topCount())"
FIXED_CALL = "counter.top(topCount(), 1)"
REPAIR = [
    {"content": "Reading the caller.", "tool_calls": [{"name": "read_file", "arguments": {"path": REPORT}}]},
    replace(REPORT, BROKEN_CALL, FIXED_CALL),
    {"content": "Report.render now passes a minimum count."},
]  # fmt: skip


def fix(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, env=env)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def processes_mentioning(text: str) -> list[int]:
    """Live processes (other than this one) whose command line or environment mentions text."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for part in ("cmdline", "environ"):
            try:
                if text.encode() in (entry / part).read_bytes():
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return found


def left_behind(cache: Path, since: set[str] | None = None) -> list[str]:
    """Workspaces, snapshots and mirrors in a cache (those not in `since`)."""
    names = [
        f"{kind}/{p.name}"
        for kind in ("workspaces", "snapshots", "repos")
        if (cache / kind).is_dir()
        for p in (cache / kind).iterdir()
    ]
    return sorted(set(names) - (since or set()))


def workspace_of(trajectory: Path) -> Path:
    return Path(json.loads(trajectory.read_text())["meta"]["project"])


def example(name: str, tmp_path: Path) -> Path:
    """The example in a folder of its own name, so its snapshot and mirror can be found in the cache."""
    return materialize(get_example(name), tmp_path / f"proj-{uuid.uuid4().hex[:10]}")


def assert_cleaned_up(project: Path, trajectory: Path) -> None:
    """No workspace, snapshot or mirror of this run is left in the cache."""
    assert not workspace_of(trajectory).exists()
    assert not list((cache_root() / "snapshots").glob(f"{project.name}-*"))
    assert not list((cache_root() / "repos").glob(f"{project.name}-*"))


# ---- repairs ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_dry_run_json_prints_the_patch_and_changes_nothing(tmp_path):
    project = example("maven-app/missing-parameter", tmp_path)
    before = tree(project)
    traj, model = tmp_path / "t.json", scripted(tmp_path / "script.json", REPAIR)
    proc = fix(str(project), "--model", model, "--dry-run", "--json", "--trajectory", str(traj))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)  # stdout is the JSON document and nothing else
    assert {"resolved", "patch", "llm_calls", "trajectory", "applied", "jdk", "stop_reason"} <= set(out)
    assert out["resolved"] is True and out["applied"] is False and out["llm_calls"] == 3
    assert out["stop_reason"] == "model finished" and out["trajectory"] == str(traj)
    assert f"-        for (Map.Entry<String, Integer> entry : {BROKEN_CALL}) {{" in out["patch"]
    assert f"+        for (Map.Entry<String, Integer> entry : {FIXED_CALL}) {{" in out["patch"]
    assert tree(project) == before
    assert "step 1" in proc.stderr and "verdict build" in proc.stderr  # progress on stderr
    saved = json.loads(traj.read_text())
    assert saved["verdict"]["resolved"] is True and saved["meta"]["source"] == str(project)
    assert_cleaned_up(project, traj)


@pytest.mark.slow
def test_repair_applies_and_human_output_shows_verdict_diff_and_trajectory(tmp_path):
    project = example("maven-app/missing-parameter", tmp_path)
    before = tree(project)
    traj, model = tmp_path / "t.json", scripted(tmp_path / "script.json", REPAIR)
    proc = fix(str(project), "--model", model, "--trajectory", str(traj))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RESOLVED" in proc.stdout and "NOT RESOLVED" not in proc.stdout
    assert f"+        for (Map.Entry<String, Integer> entry : {FIXED_CALL}) {{" in proc.stdout
    assert f"applied to 1 file(s): {REPORT}" in proc.stdout
    assert f"trajectory: {traj}" in proc.stdout.replace("\n", "")
    # Progress goes to stderr only.
    assert "step 1" in proc.stderr and "read_file" in proc.stderr and "verdict build" in proc.stderr
    assert "step 1" not in proc.stdout and "verdict build" not in proc.stdout
    after = tree(project)
    assert FIXED_CALL in after[REPORT].decode()
    assert {k for k in after if after[k] != before.get(k)} == {REPORT}  # nothing else written
    assert_cleaned_up(project, traj)


@pytest.mark.slow
def test_human_output_of_a_failed_repair(tmp_path):
    project = materialize(get_example("maven-app/syntax-error"), tmp_path / "project")
    before = tree(project)
    proc = fix(str(project), "--model", "recipes", "--trajectory", str(tmp_path / "t.json"))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "NOT RESOLVED (declined: no recipe for this failure" in proc.stdout.replace("\n", "")
    assert "still failing:" in proc.stdout
    assert f"trajectory: {tmp_path / 't.json'}" in proc.stdout.replace("\n", "")
    assert tree(project) == before


@pytest.mark.slow
def test_a_project_that_already_builds(tmp_path):
    project = materialize_base("maven-app", tmp_path / "project")
    before = tree(project)
    model = scripted(tmp_path / "script.json", REPAIR)
    proc = fix(str(project), "--model", model, "--json", "--trajectory", str(tmp_path / "t.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] is True and out["patch"] == "" and out["llm_calls"] == 0
    assert out["applied"] is False and out["stop_reason"] == "the build already succeeds"
    assert tree(project) == before


@pytest.mark.slow
def test_recipes_switch_the_jdk_for_maven_jdk_level(tmp_path):
    project = materialize(get_example("maven-app/jdk-level"), tmp_path / "project")
    proc = fix(str(project), "--model", "recipes", "--json", "--trajectory", str(tmp_path / "t.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    installed = sorted({j.version for j in discover_jdks()})
    assert out["resolved"] is True and out["llm_calls"] == 0
    assert out["jdk"] == (25 if 25 in installed else installed[-1]) and out["jdk"] >= 21
    assert out["stop_reason"].startswith("repaired by recipe(s)")
    # The JDK chosen is pinned where the next build (and the user's version manager) reads it.
    assert "+++ b/.java-version" in out["patch"] and f"\n+{out['jdk']}\n" in out["patch"]
    assert out["applied"] is True and (project / ".java-version").read_text() == f"{out['jdk']}\n"


@pytest.mark.slow
def test_recipes_put_a_release_out_of_step_back_instead_of_switching_the_jdk(tmp_path):
    # Release 17 made 25 in one place while source and target stay 17: a slip, not a move to Java 25.
    project = materialize_base("maven-app", tmp_path / "project")
    pom = project / "pom.xml"
    levels = "".join(f"<maven.compiler.{k}>17</maven.compiler.{k}>" for k in ("source", "target"))
    release = "<maven.compiler.release>"
    pom.write_text(pom.read_text().replace(f"{release}17<", f"{levels}{release}25<"))
    trajectory = str(tmp_path / "t.json")
    proc = fix(str(project), "--model", "recipes", "--jdk", "17", "--json", "--trajectory", trajectory)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] and out["applied"] and out["jdk"] == 17, out["stop_reason"]
    assert ".java-version" not in out["patch"] and "+++ b/pom.xml" in out["patch"]
    assert "<maven.compiler.release>17</maven.compiler.release>" in pom.read_text()


@pytest.mark.slow
def test_the_jdk_a_repair_chose_is_pinned_in_the_diff_and_the_next_build_uses_it(tmp_path):
    newer = min((v for v in (j.version for j in discover_jdks()) if v >= 21), default=None)
    default = default_jdk()
    if newer is None or default is None or default.version >= 21:
        pytest.skip("needs a default JDK older than 21 and a JDK 21 or newer")
    project = maven_release_project(tmp_path / "shapes")
    steps = [
        call("change_java_version", version=newer),
        call("run_build"),
        {"content": f"The project builds on JDK {newer}."},
    ]  # fmt: skip
    model, trajectory = scripted(tmp_path / "script.json", steps), tmp_path / "t.json"
    proc = fix(str(project), "--model", model, "--trajectory", str(trajectory))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout.replace("\n", " ")
    assert "RESOLVED" in out and "+++ b/.java-version" in proc.stdout and f"\n+{newer}\n" in proc.stdout
    assert f"JDK {newer} is pinned in .java-version (in the diff), where `buildfixer build` and jenv" in out
    assert "export JAVA_HOME" not in out  # nothing machine-local to copy by hand
    assert "applied to 1 file(s): .java-version" in out
    assert (project / ".java-version").read_text() == f"{newer}\n"
    told = [m["content"] for m in json.loads(trajectory.read_text())["messages"] if m["role"] == "tool"]
    assert "; pinned in .java-version, which later builds and the developers' jenv" in told[0]
    build = [sys.executable, "-m", "buildfixer", "build", str(project)]
    again = subprocess.run(build, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stdout.startswith(f"SUCCESS maven, JDK {newer} (.java-version)")


@pytest.mark.slow
def test_the_pin_follows_the_jdk_the_verdict_builds_on(tmp_path):
    """The agent switched JDKs, then set the pin back by hand: the pin delivered is the verdict's JDK."""
    newer = min((v for v in (j.version for j in discover_jdks()) if v >= 21), default=None)
    default = default_jdk()
    if newer is None or default is None or default.version >= 21:
        pytest.skip("needs a default JDK older than 21 and a JDK 21 or newer")
    project = maven_release_project(tmp_path / "shapes")
    steps = [
        call("change_java_version", version=newer),
        replace(".java-version", str(newer), str(default.version)),
        {"content": "Done."},
    ]
    model, trajectory = scripted(tmp_path / "script.json", steps), tmp_path / "t.json"
    proc = fix(str(project), "--model", model, "--dry-run", "--json", "--trajectory", str(trajectory))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] is True and out["jdk"] == newer
    assert f"\n+{newer}\n" in out["patch"] and f"+{default.version}\n" not in out["patch"]
    assert not (project / ".java-version").exists()  # a dry run


@pytest.mark.slow
def test_recipes_decline_a_syntax_error(tmp_path):
    project = materialize(get_example("gradle-app/syntax-error"), tmp_path / "project")
    before = tree(project)
    proc = fix(str(project), "--model", "recipes", "--json", "--trajectory", str(tmp_path / "t.json"))
    assert proc.returncode == 1, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] is False and out["applied"] is False and out["patch"] == ""
    assert out["stop_reason"].startswith("declined")
    assert out["llm_calls"] == 0
    assert tree(project) == before


# ---- bad usage ----------------------------------------------------------------------------------


def _usage_cases(tmp_path: Path) -> dict[str, list[str]]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pom.xml").write_text("<project/>")
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("no build here")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"content": "unterminated')
    return {
        "missing path": [str(tmp_path / "nope"), "--model", "recipes"],
        "file as path": [str(tmp_path / "file.txt"), "--model", "recipes"],
        "no build": [str(tmp_path / "empty"), "--model", "recipes"],
        "unknown toolset": [str(project), "--model", "recipes", "--toolset", "nope"],
        "unknown agent": [str(project), "--model", "recipes", "--agent", "nope"],
        "unknown mask": [str(project), "--model", "recipes", "--mask", "nope"],
        "max calls 0": [str(project), "--model", "recipes", "--max-calls", "0"],
        "missing script": [str(project), "--model", "scripted:/nonexistent.json"],
        "malformed script": [str(project), "--model", f"scripted:{bad}"],
        "empty scripted": [str(project), "--model", "scripted:"],
        "missing script in cascade": [str(project), "--agent", "cascade",
                                      "--model", f"scripted:{bad}, scripted:/nonexistent.json"],
    }  # fmt: skip


EXPECTED = {
    "missing path": "not a directory",
    "file as path": "not a directory",
    "no build": "no recognisable build",
    "unknown toolset": "unknown toolset 'nope'",
    "unknown agent": "unknown agent 'nope'",
    "unknown mask": "unknown mask 'nope'",
    "max calls 0": "max_calls must be at least 1",
    "missing script": "script not found: /nonexistent.json",
    "malformed script": "is not valid JSON",
    "empty scripted": "needs a script path",
    "missing script in cascade": "is not valid JSON",
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_bad_usage_is_one_line_exit_2_and_leaves_nothing(tmp_path, case):
    cache = tmp_path / "cache"
    cache.mkdir()
    env = {**os.environ, "BUILDFIXER_CACHE_DIR": str(cache)}
    args = _usage_cases(tmp_path)[case]
    began = time.monotonic()
    proc = fix(*args, env=env)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("buildfixer: error: "), proc.stderr
    assert EXPECTED[case] in lines[0]
    assert proc.stdout == ""
    # Refused before any snapshot, build or trajectory: nothing in the cache, nothing running.
    assert left_behind(cache) == []
    assert not (cache / "state").exists() and not (cache / "trajectories").exists()
    assert processes_mentioning(str(cache)) == []
    assert time.monotonic() - began < 30


# ---- Ctrl-C -------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "group", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)],
    ids=["ctrl-c", "sigterm"],
)
def test_interrupt_leaves_the_project_untouched_and_cleans_up(tmp_path, signum, group, code):
    project = example("maven-app/missing-parameter", tmp_path)
    before = tree(project)
    traj = tmp_path / "t.json"
    steps = [
        replace(REPORT, BROKEN_CALL, FIXED_CALL),
        call("run_build"),
        {"content": "done"},
    ]  # fmt: skip
    model = scripted(tmp_path / "script.json", steps)
    # Its own session, like a foreground job: Ctrl-C signals the whole group, `kill` one process.
    proc = subprocess.Popen(
        [*CLI, str(project), "--model", model, "--json", "--trajectory", str(traj)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if len(json.loads(traj.read_text())["steps"]) >= 1:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        workspace = workspace_of(traj)
        while (
            time.monotonic() < deadline and proc.poll() is None and not processes_mentioning(str(workspace))
        ):
            time.sleep(0.05)  # until the second step's run_build is under way
        assert proc.poll() is None, "fix ended before it could be interrupted"
        assert workspace.is_dir() and processes_mentioning(str(workspace))
        (os.killpg if group else os.kill)(proc.pid, signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == code, stderr[-3000:]
    assert "Traceback" not in stderr and stdout == ""
    assert "step 2" in stderr and "run_build" not in stderr  # interrupted in the middle of the build
    assert tree(project) == before
    assert not workspace.exists()
    saved = json.loads(traj.read_text())  # valid JSON, up to the last finished step
    assert len(saved["steps"]) == 1 and saved["tool_counts"] == {"replace": 1}
    assert saved["verdict"] == {"resolved": False, "stop": "infra_error", "stop_reason": "interrupted"}
    deadline = time.monotonic() + 10
    while processes_mentioning(str(workspace)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_mentioning(str(workspace)) == []
    assert_cleaned_up(project, traj)


# ---- --no-sandbox -------------------------------------------------------------------------------


NO_SANDBOX_NOTE = "sandbox: none (--no-sandbox): the build ran unconfined on this machine"


@pytest.mark.slow
def test_the_verdict_says_when_builds_ran_unconfined(tmp_path):
    from buildfixer.buildsys.options import BuildOptions

    project = tmp_path / "project"
    project.mkdir()
    package = {"name": "t", "version": "1.0.0", "scripts": {"build": 'node -e "process.exit(1)"'}}
    (project / "package.json").write_text(json.dumps(package))
    model = scripted(tmp_path / "script.json", [{"content": "I cannot fix this."}])
    args = [str(project), "--agent", "tool", "--model", model]
    proc = fix(*args, "--no-sandbox", "--json")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["sandbox"] == "none"
    assert fix(*args, "--no-sandbox").stdout.splitlines()[-1] == NO_SANDBOX_NOTE
    assert json.loads(fix(*args, "--json").stdout)["sandbox"] == BuildOptions().sandbox
    assert NO_SANDBOX_NOTE not in fix(*args).stdout
