"""Build scripts are code the agent writes: each build system's hook runs an escape attempt.

The attack is the same shell payload, started the way each build system runs project code
(a Gradle build script, a Maven unit test, setup.py, a conftest.py, an npm script). It tries to
write a host file, read a hidden private key, print the caller's secrets and leave a process
behind. The build runs through `build_project` with default options, as `fix`, `run_build` and
the harness's verdict build do.
"""

import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project, stop_daemons

KEY = "sk-canary" + uuid.uuid4().hex
DB_PASSWORD = "pw" + uuid.uuid4().hex[:12]
PRIVATE = "private-" + uuid.uuid4().hex

PAYLOAD = """#!/bin/sh
{{
  echo PAYLOAD-RAN
  env
  cat {home}/.ssh/id_rsa
  umount -l {home}; cat {home}/.ssh/id_rsa
  mount -o remount,rw / ; echo pwned > {outside}/pwned
  echo pwned > {outside}/pwned2
  cat {gradle_home}/daemon/*/*.log 2>/dev/null | grep -c {key_head}
}} > "$1/attack-report.txt" 2>&1
setsid env -u BUILDFIXER_OWNER sleep {sleeper} </dev/null >/dev/null 2>&1 &
exit 0
"""

MAVEN_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId><artifactId>attack</artifactId><version>1</version>
  <properties><maven.compiler.source>8</maven.compiler.source><maven.compiler.target>8</maven.compiler.target></properties>
  <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version>
    <scope>test</scope></dependency></dependencies>
</project>
"""
MAVEN_TEST = """import org.junit.Test;
public class AttackTest {
  @Test public void attack() throws Exception {
    String dir = System.getProperty("user.dir");
    new ProcessBuilder("sh", dir + "/attack.sh", dir).inheritIO().start().waitFor();
  }
}
"""


def _gradle(project: Path) -> None:
    (project / "settings.gradle").write_text("rootProject.name = 'attack'\n")
    (project / "build.gradle").write_text(
        "apply plugin: 'base'\n"
        "def p = ['sh', file('attack.sh').path, projectDir.path].execute(null, projectDir)\np.waitFor()\n"
    )


def _maven(project: Path) -> None:
    (project / "pom.xml").write_text(MAVEN_POM)
    test = project / "src" / "test" / "java"
    test.mkdir(parents=True)
    (test / "AttackTest.java").write_text(MAVEN_TEST)


def _setup_py(project: Path) -> None:
    (project / "setup.py").write_text(
        "import os, subprocess\nfrom setuptools import setup\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "subprocess.run(['sh', os.path.join(here, 'attack.sh'), here])\n"
        "setup(name='attack', version='0', py_modules=[])\n"
    )


def _conftest(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "attack"\nversion = "0"\n[tool.setuptools]\npy-modules = []\n'
    )
    (project / "tests").mkdir()
    (project / "tests" / "conftest.py").write_text(
        "import os, pathlib, subprocess\nroot = pathlib.Path(__file__).resolve().parent.parent\n"
        "subprocess.run(['sh', str(root / 'attack.sh'), str(root)])\n"
    )
    (project / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")


def _npm(project: Path) -> None:
    (project / "package.json").write_text(
        '{"name": "attack", "version": "1.0.0", "private": true,\n'
        ' "scripts": {"build": "sh attack.sh \\"$PWD\\"", "test": "true"}}\n'
    )


HOOKS = {"gradle-build-script": _gradle, "maven-unit-test": _maven, "python-setup-py": _setup_py,
         "python-conftest": _conftest, "npm-script": _npm}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_build_script_escape(hook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(PRIVATE)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("DATABASE_URL", f"postgres://app:{DB_PASSWORD}@db.internal/app")
    outside = Path("/var/tmp") / f"bf-build-{uuid.uuid4().hex[:8]}"
    outside.mkdir()
    sleeper = f"89{uuid.uuid4().int % 10**6}"
    project = tmp_path / "project"
    project.mkdir()
    options = BuildOptions()  # the defaults every command uses (the shared test cache)
    payload = PAYLOAD.format(home=home, outside=outside, sleeper=sleeper, key_head=KEY[:20],
                             gradle_home=options.cache_dir / "gradle")  # fmt: skip
    (project / "attack.sh").write_text(payload)
    HOOKS[hook](project)
    try:
        result = build_project(project, options)
        report = (project / "attack-report.txt").read_text()
        log = Path(result.log_path).read_text(errors="replace")
        assert "PAYLOAD-RAN" in report, log[-3000:]  # the attack really ran, inside the build
        for secret in (PRIVATE, KEY, DB_PASSWORD):
            assert secret not in report and secret not in log
        assert not list(outside.iterdir())
        assert oct(Path(result.log_path).stat().st_mode & 0o777) == "0o600"
    finally:
        stop_daemons(project, options)  # the attempt ends: its sandbox session with it
        shutil.rmtree(outside, ignore_errors=True)
    _wait_until_gone(sleeper)


def _wait_until_gone(token: str) -> None:
    end = time.monotonic() + 15
    while _alive(token):
        assert time.monotonic() < end, f"a process the build detached is still running: {token}"
        time.sleep(0.2)


def _alive(token: str) -> bool:
    out = subprocess.run(["pgrep", "-f", f"sleep {token}"], capture_output=True, text=True)
    return bool(out.stdout.strip()) and str(os.getpid()) not in out.stdout.split()
