"""Dependency caches are per trust domain: what one project's build plants never reaches another's.

The review's channels: a Gradle distribution planted in the shared Gradle home became another
project's launcher; a jar planted in the shared Maven repository by a sandboxed build ran on the
host in a later `--no-sandbox` build. Each project's builds now have caches of their own (the
commands' default), unsandboxed builds too, and a sandbox sees only its own domain's.
"""

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys import gradle
from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.project import build_project, stop_daemons
from buildfixer.deps.caches import maven_repositories

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm builds plant the payload")
MARK = "planted-" + uuid.uuid4().hex[:8]

# Run as an npm build script: plants a launcher for Gradle 8.5 and a jar in the domain's caches.
PLANT = """#!/bin/sh
caches=$(dirname "$npm_config_cache")
dist="$caches/gradle/wrapper/dists/gradle-8.5-bin/x/gradle-8.5"
mkdir -p "$dist/bin" && printf '#!/bin/sh\\necho {mark}\\n' > "$dist/bin/gradle"
chmod +x "$dist/bin/gradle"
touch "$caches/gradle/wrapper/dists/gradle-8.5-bin/x/gradle-8.5-bin.zip.ok"
jar="$caches/m2/repository/org/example/evil/1.0"
mkdir -p "$jar" && echo {mark} > "$jar/evil-1.0.jar" && echo planted
ls "$caches/.." 2>&1 | head -5
exit 0
"""


@pytest.fixture(autouse=True)
def per_project_domains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUILDFIXER_CACHE_DOMAIN", raising=False)  # the default a user gets


def hostile(tmp_path: Path) -> Path:
    project = tmp_path / "hostile"
    project.mkdir()
    (project / "plant.sh").write_text(PLANT.format(mark=MARK))
    package = {"name": "h", "version": "1.0.0", "scripts": {"build": "sh plant.sh"}}
    (project / "package.json").write_text(json.dumps(package))
    return project


def victim(tmp_path: Path) -> Path:
    project = tmp_path / "victim"
    (project / "gradle" / "wrapper").mkdir(parents=True)
    (project / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(
        "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n"
    )
    (project / "gradlew").write_text("#!/bin/sh\n")
    (project / "build.gradle").write_text("apply plugin: 'base'\n")
    return project


def test_a_planted_gradle_distribution_and_jar_stay_in_their_domain(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    attacker, target = hostile(tmp_path), victim(tmp_path)
    mine = BuildOptions(cache_dir=cache, offline=True, trust_domain=project_domain(attacker))
    theirs = BuildOptions(cache_dir=cache, offline=True, trust_domain=project_domain(target))
    theirs.gradle_home.mkdir(parents=True)  # the victim's caches exist already
    try:
        result = build_project(attacker, mine)
    finally:
        stop_daemons(attacker, mine)
    log = Path(result.log_path).read_text()
    assert result.status == "success" and "planted" in log, log
    assert (mine.gradle_home / "wrapper" / "dists" / "gradle-8.5-bin").is_dir()  # it did plant in its own
    plan = gradle.plan(target, theirs, None)
    assert MARK not in " ".join(plan.steps[-1].argv) and "gradle-8.5" not in plan.steps[-1].argv[0]
    assert gradle.wrapper_distribution(target, [theirs.gradle_home]) is None
    assert not any((repo / "org" / "example" / "evil").exists() for repo in maven_repositories(theirs))
    # Nor did the sandbox see the other domain's folder: only its own caches are mounted.
    assert theirs.gradle_home.parent.name not in log and mine.gradle_home.parent.name in log


def test_what_a_sandboxed_build_planted_never_runs_unsandboxed(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    attacker = hostile(tmp_path)
    boxed = BuildOptions(cache_dir=cache, offline=True, trust_domain=project_domain(attacker))
    try:
        assert build_project(attacker, boxed).status == "success"
    finally:
        stop_daemons(attacker, boxed)
    bare = BuildOptions(cache_dir=cache, offline=True, sandbox="none", trust_domain=project_domain(attacker))
    assert gradle.wrapper_distribution(victim(tmp_path), [bare.gradle_home]) is None
    assert not any((repo / "org" / "example" / "evil").exists() for repo in maven_repositories(bare))
    for name in ("gradle", "m2", "npm", "pip"):
        assert bare.shared_cache(name) != boxed.shared_cache(name)


@pytest.mark.slow
def test_the_build_command_gives_each_project_its_own_caches(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for name in ("one", "two"):
        project = tmp_path / name
        project.mkdir()
        (project / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
        env = {"BUILDFIXER_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "buildfixer", "build", str(project), "--offline"],
                              env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
    domains = sorted(p.name for p in (cache / "domains").iterdir())
    assert len(domains) == 2 and domains[0].startswith("one-") and domains[1].startswith("two-")
    assert all((cache / "domains" / d / "npm").is_dir() for d in domains)
