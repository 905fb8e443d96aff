"""`fix` with the recipes policy on every bundled example, as a git project with ignored user files.

Each example becomes what a user has: a git repository, committed, with git-ignored files of the
user's own (config with real values, notes) in the folder. The recipes either repair it with the
expected recipe or decline; in every case the ignored files stay byte-identical, and what lands is
exactly the patch `fix` reports (applied to a pristine copy, it gives the same tree).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.build_result import BuildResult
from buildfixer.delivery.fix import fix_project
from buildfixer.examples import Example, load_examples, materialize, materialize_base
from buildfixer.harness.attempt import AttemptConfig
from support.git import Repo

EXAMPLES = load_examples()
REPAIRED = {
    "gradle-app/undeclared-dependency": "undeclared-dependency",
    "gradle-app/missing-version": "missing-version",
    "gradle-app/hardcoded-path": "hardcoded-path",
    "maven-app/undeclared-dependency": "undeclared-dependency",
    "maven-app/missing-version": "missing-version",
    "maven-app/jdk-level": "jdk-level",
    "kotlin-app/missing-version": "missing-version",
    "python-app/undeclared-dependency": "undeclared-dependency",
    "python-app/missing-version": "missing-version",
    "npm-app/missing-version": "missing-version",
}
# Declined, not repaired: gradle-app/missing-properties and maven-app/missing-config lost a
# properties file whose values (the version, the report's title) the project has nowhere else,
# and the recipes make up no value (a placeholder version would become the artifact's).
ADVANCED: dict[str, str] = {}  # example -> the category the build reaches after a partial repair
USER_FILES = {
    "user-notes.txt": b"things I keep next to my project\n",
    ".env.local": b"API_TOKEN=the-users-own-token\n",
    "config/signing.properties": b"storePassword=hunter2\n",
}
OUTPUTS = {".git", "build", "target", ".gradle", "node_modules", "__pycache__", ".pytest_cache"}


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not OUTPUTS & set(p.relative_to(root).parts) and ".egg-info" not in str(p)
    }


def as_user_project(example: Example, dest: Path) -> Path:
    """The broken example as a committed git project holding git-ignored files of the user's."""
    root = materialize(example, dest)
    with (root / ".gitignore").open("a") as ignore:
        ignore.write("\nuser-notes.txt\n.env.local\nconfig/signing.properties\n")
    Repo(root).commit("broken")
    for name, data in USER_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def filled_caches(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Build the JVM bases once: their builds bring gson and commons-lang3 into the caches."""
    from buildfixer.deps.package_index import artifact_for_package

    needed = {"gradle-app": "com.google.gson", "maven-app": "org.apache.commons.lang3"}
    for project, package in needed.items():
        if artifact_for_package(package, BuildOptions()) is not None:
            continue  # already cached (a warm machine): the base build would only cost time
        root = materialize_base(project, tmp_path_factory.mktemp("bases") / project)
        options = BuildOptions(timeout_s=600)
        try:
            result, _ = build_and_analyze(root, options)
        finally:
            stop_daemons(root, options)
        assert result.ok, Path(result.log_path).read_text()[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_fix_repairs_or_declines_and_keeps_the_users_files(
    example: Example, tmp_path: Path, filled_caches: None
) -> None:
    project = as_user_project(example, tmp_path / "project")
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine, symlinks=True)
    recipes: list[str] = []

    def progress(event: str, data: dict[str, Any]) -> None:
        if event == "step":
            recipes.append(data["recipe"])

    config = AttemptConfig(model="recipes", options=BuildOptions(timeout_s=600, jdk=example.jdk))
    config.trajectory_path = tmp_path / "trajectory.json"
    outcome = fix_project(project, config, progress=progress)
    attempt = outcome.attempt
    assert_root_error(example, attempt.initial)
    for name, data in USER_FILES.items():
        assert (project / name).read_bytes() == data, name
    if outcome.applied:
        subprocess.run(["git", "apply"], cwd=pristine, input=outcome.patch.encode(), check=True)
    assert files(project) == files(pristine)  # what landed is the reported patch, nothing else
    if example.name not in REPAIRED:
        assert not recipes and attempt.stop_reason.startswith("declined"), attempt.stop_reason
        assert not outcome.applied and outcome.patch == ""
        assert attempt.verdict.log_path == attempt.initial.log_path  # no second build
        return
    assert recipes[:1] == [REPAIRED[example.name]], (recipes, attempt.initial.errors[:2])
    if example.name in ADVANCED:
        assert attempt.verdict.category == ADVANCED[example.name], attempt.verdict.errors[:3]
        assert not outcome.applied
        return
    assert attempt.resolved, (attempt.stop_reason, attempt.verdict.errors[:3])
    assert outcome.applied == bool(outcome.changed_files)  # a JDK switch alone changes no file


def assert_root_error(example: Example, result: BuildResult) -> None:
    """The example's build fails with the category, root error, file and line its manifest names."""
    log = Path(result.log_path).read_text(errors="replace")
    assert result.status == "failure", log[-3000:]
    assert result.exit_code != 0
    assert result.build_system == example.build_system
    assert result.category == example.category, (result.errors[:3], log[-3000:])
    top = result.errors[0]
    assert example.message_contains.lower() in top.message.lower(), (top, result.errors[:4])
    if example.root_file:
        assert top.file is not None and top.file.replace("\\", "/").endswith(example.root_file), top
    if example.root_line:
        assert top.line == example.root_line, top
