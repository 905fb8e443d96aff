"""The sandboxed shell tool: confinement, network, timeout, and the shell agent's guidance."""

import os
import shutil
import time
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.tools import shell
from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.context import ToolContext
from support.tools import tool_context, tools_by_name

NET_PROBE = "timeout 5 bash -c 'echo > /dev/tcp/1.1.1.1/53' 2>/dev/null && echo NETWORK || echo NO-NETWORK"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    if shutil.which("bwrap") is None:
        pytest.fail("bwrap is required for this test (install bubblewrap: see .ci/run)")
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "build.gradle").write_text("apply plugin: 'java'\n")
    return root


def tools(ctx: ToolContext) -> dict[str, Tool]:
    return tools_by_name(ctx, shell.shell_tools)


def context(root: Path, cache_dir: Path, **kw: object) -> ToolContext:
    return tool_context(root, "gradle", cache_dir=cache_dir, **kw)


def test_both_names_share_one_implementation(workspace: Path, cache_dir: Path) -> None:
    found = tools(context(workspace, cache_dir))
    assert sorted(found) == ["run_sh", "run_shell"]
    assert found["run_shell"].parameters["required"] == ["shell_command"]
    assert found["run_sh"].parameters["required"] == ["command"]
    out = found["run_sh"].call({"command": "pwd; echo $HOME"})
    assert out.splitlines() == ["exit code 0", str(workspace), shell.SANDBOX_HOME]
    assert found["run_shell"].call({"shell_command": "exit 3"}) == "exit code 3\n(no output)"


def test_writes_only_inside_the_workspace(workspace: Path, cache_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    command = (
        f"echo inside > made.txt && mkdir -p sub && echo x > sub/f; "
        f"echo escaped > {outside}; echo escaped > /etc/buildfixer-shell-test; echo home > ~/h; "
        f"echo cache > {cache_dir}/gradle/c.txt"
    )
    out = tools(context(workspace, cache_dir))["run_shell"].call({"shell_command": command})
    assert (workspace / "made.txt").read_text() == "inside\n" and (workspace / "sub" / "f").is_file()
    assert not outside.exists()  # /tmp is a private tmpfs inside the sandbox
    assert not Path("/etc/buildfixer-shell-test").exists()
    assert "Read-only file system" in out or "Permission denied" in out  # as root: an unprivileged uid
    assert (cache_dir / "gradle" / "c.txt").read_text() == "cache\n"  # the shared caches are writable
    assert not (Path.home() / "h").exists() or (Path.home() / "h").read_text() != "home\n"


def test_network_follows_offline(workspace: Path, cache_dir: Path) -> None:
    ctx = context(workspace, cache_dir)
    ctx.options.offline = True
    assert "NO-NETWORK" in tools(ctx)["run_shell"].call({"shell_command": NET_PROBE})


def test_environment_uses_the_chosen_jdk_and_hides_secrets(
    workspace: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    newest = max(discover_jdks())
    ctx = context(workspace, cache_dir)
    ctx.options.jdk = newest.version
    command = "echo $JAVA_HOME; echo $GRADLE_USER_HOME; env | grep -c sk-secret; java -version 2>&1"
    out = tools(ctx)["run_shell"].call({"shell_command": command})
    lines = out.splitlines()
    assert lines[1] == newest.path and lines[2] == str(cache_dir / "gradle")
    assert lines[3] == "0"
    assert f'version "{newest.version}' in out


def test_timeout_kills_everything(workspace: Path, cache_dir: Path) -> None:
    ctx = context(workspace, cache_dir, shell_timeout_s=2)
    began = time.monotonic()
    out = tools(ctx)["run_shell"].call({"shell_command": "sleep 97.25 & sleep 97.75; echo never"})
    assert time.monotonic() - began < 15
    assert out.startswith("exit code -1 (timed out after 2s") and "never" not in out
    time.sleep(0.2)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert b"97.25" not in cmdline and b"97.75" not in cmdline


def test_output_is_capped(workspace: Path, cache_dir: Path) -> None:
    out = tools(context(workspace, cache_dir))["run_shell"].call({"shell_command": "seq 1 100000"})
    assert out.startswith("exit code 0\n1\n2\n") and out.rstrip().endswith("100000")
    assert "characters omitted" in out and len(out) <= 16_000


def test_refuses_without_bubblewrap(
    workspace: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell, "bubblewrap_problem", lambda: "bubblewrap is not installed")
    with pytest.raises(ToolError, match="never runs commands unconfined"):
        tools(context(workspace, cache_dir))["run_shell"].call({"shell_command": "touch x"})
    assert not (workspace / "x").exists()


def test_guidance_names_jdks_and_build_commands(workspace: Path, cache_dir: Path) -> None:
    ctx = context(workspace, cache_dir, installed_jdks=sorted({j.version for j in discover_jdks()}))
    text = shell.guidance(ctx)
    for jdk in discover_jdks():
        assert jdk.path in text
    assert "export JAVA_HOME=" in text and "`gradle <task>`" in text and "gradle build" in text
    (workspace / "gradlew").write_text("#!/bin/sh\n")
    assert "`./gradlew <task>`" in shell.guidance(ctx)
    maven = tool_context(workspace, "maven", cache_dir=cache_dir)
    assert "mvn -B package" in shell.guidance(maven)
    npm = tool_context(workspace, "npm", cache_dir=cache_dir, offline=True)
    assert "npm ci" in shell.guidance(npm) and "no network" in shell.guidance(npm)


def test_shell_cannot_see_home_or_other_workspaces(tmp_path, monkeypatch):
    from buildfixer.tools.shell import shell_tools

    cache = tmp_path / "cache"
    other = cache / "workspaces" / "other-ws"
    other.mkdir(parents=True)
    (other / "private.txt").write_text("other attempt's file")
    root = tmp_path / "ws"
    root.mkdir()
    ctx = tool_context(root, "maven", cache_dir=cache, offline=True)
    run = next(t for t in shell_tools(ctx) if t.name == "run_shell")
    out = run.call({"shell_command": f"cat {other / 'private.txt'}; ls ~ /root; python3 -c 'print(6*7)'"})
    assert "other attempt's file" not in out
    assert "42" in out  # the interpreter stays usable even when it lives under a home directory
    out = run.call({"shell_command": "echo hi > made.txt && cat made.txt"})
    assert "hi" in out and (root / "made.txt").read_text() == "hi\n"
