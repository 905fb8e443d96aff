import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "buildfixer"]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def assert_usage_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert fragment in lines[0]
    assert "Traceback" not in proc.stderr


def test_build_of_a_folder_without_a_build(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert_usage_error(run_cli("build", str(tmp_path)), "no recognisable build")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_build_with_a_jdk_that_is_not_installed(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    assert_usage_error(run_cli("build", str(tmp_path), "--jdk", "4"), "no JDK 4 installed")


def test_build_of_a_missing_path(tmp_path: Path) -> None:
    assert_usage_error(run_cli("build", str(tmp_path / "nope")), "not a directory")


def test_analyze_missing_binary_and_unreadable_logs(tmp_path: Path) -> None:
    assert_usage_error(run_cli("analyze", str(tmp_path / "missing.log")), "missing.log")
    binary = tmp_path / "app.apk"
    binary.write_bytes(bytes(range(256)) * 64)
    assert_usage_error(run_cli("analyze", str(binary)), "app.apk")
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.log"
        locked.write_text("error")
        locked.chmod(0)
        assert_usage_error(run_cli("analyze", str(locked)), "locked.log")
    assert_usage_error(run_cli("analyze", str(tmp_path)), str(tmp_path.name))


def test_jdks_json_lists_installed_jdks() -> None:
    proc = run_cli("jdks", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert {"version", "path"} <= set(listed[0])
    assert 17 in {j["version"] for j in listed}


def test_analyze_json_follows_the_contract(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text(
        "/w/src/main/java/demo/App.java:3: error: ';' expected\n"
        "    int x = 1\n             ^\n1 error\n\nFAILURE: Build failed with an exception.\n"
    )
    proc = run_cli("analyze", str(log), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"errors", "category", "build_system"}
    assert data["category"] == "syntax"
    root = data["errors"][0]
    assert set(root) == {"file", "line", "column", "message", "category", "tool"}
    assert (root["file"], root["line"], root["tool"]) == ("/w/src/main/java/demo/App.java", 3, "javac")


def test_version_is_printed_and_matches_the_package() -> None:
    from importlib.metadata import version

    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"buildfixer {version('buildfixer')}\n"


@pytest.mark.parametrize("command", ["build", "analyze", "jdks", "examples"])
def test_help_works(command: str) -> None:
    proc = run_cli(command, "--help")
    assert proc.returncode == 0
    assert "Usage" in proc.stdout


def test_the_agent_option_names_every_agent() -> None:
    """The help of --agent is written by hand (the CLI imports no agent): it must not fall behind."""
    from buildfixer.agents.registry import agent_names

    proc = run_cli("fix", "--help")
    flat = " ".join(proc.stdout.replace("│", " ").split())
    assert all(name in flat for name in agent_names()), flat


def test_build_with_a_patch_that_does_not_apply(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    bad = tmp_path / "fix.patch"
    bad.write_text("--- a/index.js\n+++ b/index.js\n@@ -1 +1 @@\n-old\n+new\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert_usage_error(run_cli("build", str(tmp_path), "--patch", str(bad)), "patch does not apply")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert_usage_error(run_cli("build", str(tmp_path), "--patch", str(tmp_path / "none.patch")), "none.patch")


@pytest.mark.slow
def test_build_with_a_patch_builds_a_snapshot_and_leaves_the_project_alone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = "if (!require('fs').existsSync('config.json')) { console.error('missing'); process.exit(1) }"
    (project / "package.json").write_text(
        json.dumps({"name": "x", "version": "1.0.0", "scripts": {"build": "node check.js"}})
    )
    (project / "check.js").write_text(script + "\n")
    fix = tmp_path / "fix.patch"
    fix.write_text("--- /dev/null\n+++ b/config.json\n@@ -0,0 +1 @@\n+{}\n")
    env_cache = {"BUILDFIXER_CACHE_DIR": str(tmp_path / "cache")}
    plain = subprocess.run(
        [*CLI, "build", str(project), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, **env_cache},
        timeout=300,
    )
    assert plain.returncode == 1, plain.stderr
    patched = subprocess.run(
        [*CLI, "build", str(project), "--patch", str(fix), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, **env_cache},
        timeout=300,
    )
    assert patched.returncode == 0, patched.stdout + patched.stderr
    assert json.loads(patched.stdout)["status"] == "success"
    assert not (project / "config.json").exists()


# ---- --no-sandbox ---------------------------------------------------------------------------------

FAILING_NPM = {"name": "tiny", "version": "1.0.0", "scripts": {"build": "node -e \"process.exit(1)\""}}
NO_SANDBOX_NOTE = "sandbox: none (--no-sandbox): the build ran unconfined on this machine"


@pytest.mark.slow
def test_build_says_when_it_ran_unconfined(tmp_path: Path) -> None:
    from buildfixer.buildsys.options import BuildOptions

    (tmp_path / "package.json").write_text(json.dumps(FAILING_NPM))
    unconfined = run_cli("build", str(tmp_path), "--no-sandbox", "--json")
    assert unconfined.returncode == 1, unconfined.stderr
    assert json.loads(unconfined.stdout)["sandbox"] == "none"
    default = run_cli("build", str(tmp_path), "--json")
    assert json.loads(default.stdout)["sandbox"] == BuildOptions().sandbox  # whatever the default is
    human = run_cli("build", str(tmp_path), "--no-sandbox")
    assert human.stdout.splitlines()[-1] == NO_SANDBOX_NOTE
    assert NO_SANDBOX_NOTE not in run_cli("build", str(tmp_path)).stdout
    old_flag = run_cli("build", "--sandbox", str(tmp_path))  # replaced by --no-sandbox
    assert old_flag.returncode == 2 and "No such option '--sandbox'" in old_flag.stderr


def test_toolsets_lists_per_build_system_and_says_where_the_others_apply() -> None:
    python = run_cli("toolsets", "--system", "python")
    maven = run_cli("toolsets", "--system", "maven")
    assert python.returncode == 0 and maven.returncode == 0
    rows = {line.split()[0]: line for line in python.stdout.splitlines() if line.strip()}
    gradlefixer = rows["gradlefixer"]
    assert "run_python_command" in gradlefixer and "change_java_version" not in gradlefixer
    assert "change_java_version" in maven.stdout.split("Offered only where they apply")[0]
    assert "change_java_version      Gradle and Maven projects" in python.stdout


# ---- hints after a failure ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_failure_hints_at_an_installed_jdk_and_at_the_projects_other_build(tmp_path: Path) -> None:
    from buildfixer.buildsys.jdk import discover_jdks
    from buildfixer.examples import materialize_base

    project = materialize_base("maven-app", tmp_path / "project")
    pom = project / "pom.xml"
    pom.write_text(pom.read_text().replace("<maven.compiler.release>17<", "<maven.compiler.release>25<"))
    newest = max(j.version for j in discover_jdks())
    built = run_cli("build", str(project), "--jdk", "17", "--json")
    assert built.returncode == 1, built.stderr
    assert "hint" not in json.loads(built.stdout)["environment"]  # --jdk was given: no hint to give it
    default = run_cli("build", str(project))
    if newest >= 25:
        assert "hint: the failure asks for JDK 25, which is installed: retry with --jdk 25" in default.stdout
    else:
        assert "hint:" not in default.stdout
    # A broken pom beside a package.json that builds: the other build is named.
    pom.write_text("<project><modelVersion>4.0.0</modelVersion>\n")
    (project / "package.json").write_text(json.dumps({"name": "x", "version": "1.0.0", "scripts": {}}))
    broken = run_cli("build", str(project), "--json")
    assert broken.returncode == 1, broken.stderr
    hint = json.loads(broken.stdout)["environment"]["hint"]
    assert hint == "the project has another build (npm): try --system npm"
    chosen = run_cli("build", str(project), "--system", "maven", "--json")
    assert "hint" not in json.loads(chosen.stdout)["environment"]  # the user chose that build
    # `fix` takes the same choice: the npm build already succeeds, so there is nothing to repair.
    fixed = run_cli("fix", str(project), "--system", "npm", "--json")
    assert fixed.returncode == 0 and json.loads(fixed.stdout)["stop_reason"] == "the build already succeeds"
    assert_usage_error(run_cli("fix", str(project), "--system", "gradle"), "--system gradle: no gradle build")
