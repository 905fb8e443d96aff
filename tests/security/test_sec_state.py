"""buildfixer's own files about a project are out of its builds' reach.

The review's attack, without any model: a hostile npm project whose build script replaces the
warm-state stamps and the logs folder of its build state with links to host files; `buildfixer
build` twice then made buildfixer (root, outside the sandbox) overwrite those files. Now the
sandbox sees only the `sandbox/` folder inside the state; stamps and logs live above it.
"""

import json
import os
import shutil
import uuid
from pathlib import Path

import pytest

from buildfixer.buildsys import gradle, maven, npm, python, test_requirements
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import files_digest
from buildfixer.buildsys.project import build_project, stop_daemons

VICTIM = "victim-" + uuid.uuid4().hex

ATTACK = """#!/bin/sh
state={state}
for name in node-modules.sha256 node-modules.as-of gradle-last-jdk venv-deps.sha256; do
  rm -f "$state/$name" 2>/dev/null; ln -sf {victim} "$state/$name" 2>/dev/null && echo planted:$name
  ln -sf {victim} "$state/sandbox/$name" 2>/dev/null
done
rm -rf "$state/logs" 2>/dev/null; ln -s {outside} "$state/logs" 2>/dev/null && echo planted:logs
ls "$state" 2>&1 | head -3
exit 0
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_planted_links_in_the_build_state_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = tmp_path / "victim"
    victim.write_text(VICTIM)
    project = tmp_path / "hostile"
    project.mkdir()
    options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
    state = options.state_for(project)
    (project / "attack.sh").write_text(ATTACK.format(state=state, victim=victim, outside=outside))
    package = {"name": "hostile", "version": "1.0.0", "scripts": {"build": "sh attack.sh"}}
    (project / "package.json").write_text(json.dumps(package))
    try:
        logs = [build_project(project, options) for _ in range(2)]
    finally:
        stop_daemons(project, options)
    assert all(result.status == "success" for result in logs), logs[-1].output_tail
    assert victim.read_text() == VICTIM
    assert not os.listdir(outside)
    assert (state / "logs").is_dir() and not (state / "logs").is_symlink()
    assert "planted:" not in "".join(Path(result.log_path).read_text() for result in logs)
    assert Path(logs[-1].log_path).parent == state / "logs"


@pytest.mark.parametrize("kind", ["link-out", "fifo"])
def test_build_planning_reads_no_file_through_a_link_or_a_fifo(kind: str, tmp_path: Path) -> None:
    """Planning a build reads the project's files on the host: a link out is absent, a FIFO never blocks."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"scripts": {"build": "' + VICTIM + '"}, "packageManager": "' + VICTIM + '"}')
    project = tmp_path / "p"
    (project / "gradle" / "wrapper").mkdir(parents=True)
    (project / ".mvn" / "wrapper").mkdir(parents=True)
    names = ["package.json", "pyproject.toml", "gradle/wrapper/gradle-wrapper.properties",
             ".mvn/wrapper/maven-wrapper.properties", "build.gradle", "tox.ini", "setup.cfg"]  # fmt: skip
    for name in names:
        if kind == "fifo":
            os.mkfifo(project / name)
        else:
            (project / name).symlink_to(secret)
    seen = [
        npm.scripts(project), npm.package_manager(project), python.installable(project),
        test_requirements.collect(project), gradle.wrapper_zip(project), gradle.is_android(project),
        maven.wrapper_version(project),
        files_digest(project, names),
    ]  # fmt: skip
    assert VICTIM not in repr(seen)
    assert seen[0] == {} and seen[1] == "npm"

