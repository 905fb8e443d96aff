"""Real builds of the bundled examples: every base builds, every variant fails as its manifest says."""

from pathlib import Path

import pytest

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system, stop_daemons
from buildfixer.core.build_result import BuildResult
from buildfixer.examples import load_examples, materialize, materialize_base

pytestmark = pytest.mark.slow  # every test builds a bundled example for real

EXAMPLES = load_examples()
PROJECTS = sorted({e.project for e in EXAMPLES})


def build(project: Path, **kw: object) -> BuildResult:
    options = BuildOptions(timeout_s=900, **kw)  # type: ignore[arg-type]
    try:
        result, _ = build_and_analyze(project, options)
    finally:
        stop_daemons(project, options)
    return result


@pytest.mark.parametrize("project", PROJECTS)
def test_base_project_builds(project: str, tmp_path: Path) -> None:
    root = materialize_base(project, tmp_path / project)
    result = build(root)
    assert result.status == "success", Path(result.log_path).read_text()[-3000:]
    assert result.errors == [] and result.category is None
    assert result.build_system == detect_build_system(root)
    assert Path(result.log_path).is_file()
    assert result.environment  # tool versions recorded
    assert result.output_tail and len(result.output_tail) <= 65_000
    assert Path(result.log_path).read_text(errors="replace").endswith(result.output_tail.split("\n", 1)[-1])


# Every variant failing with its root error, file and line: the first build of
# tests/delivery/test_fix_examples.py (one build per example serves both checks).


def test_switching_jdk_changes_what_compiles(tmp_path: Path) -> None:
    example = next(e for e in EXAMPLES if e.name == "maven-app/jdk-level")
    root = materialize(example, tmp_path / "project")
    on_default = build(root)
    assert on_default.status == "failure" and on_default.jdk == 17
    assert on_default.category == "configuration"
    on_25 = build(root, jdk=25)
    assert on_25.status == "success", Path(on_25.log_path).read_text()[-3000:]
    assert on_25.jdk == 25
    assert "temurin-25" in on_25.environment["java_home"]


def test_gradle_timeout_leaves_no_process_behind(tmp_path: Path) -> None:
    from buildfixer.buildsys.runner import owned_pids

    root = materialize_base("gradle-app", tmp_path / "project")
    # A build that hangs in its configuration phase, inside the Gradle daemon.
    with (root / "build.gradle").open("a") as script:
        script.write("\nThread.sleep(120000)\n")
    options = BuildOptions(timeout_s=8)
    result, _ = build_and_analyze(root, options)
    assert result.status == "timeout"
    assert owned_pids(options.owner_token(root)) == []


def test_warm_daemon_is_stopped_on_request(tmp_path: Path) -> None:
    from buildfixer.buildsys.runner import owned_pids

    root = materialize_base("gradle-app", tmp_path / "project")
    options = BuildOptions(timeout_s=600)
    result, _ = build_and_analyze(root, options)
    assert result.ok
    assert owned_pids(options.owner_token(root)), "the warm daemon stays up between builds"
    stop_daemons(root, options)
    assert owned_pids(options.owner_token(root)) == []
