"""What each build system decides to run (no builds here; real builds are in test_real_builds.py)."""

import json
from pathlib import Path

import pytest

from buildfixer.buildsys import gradle, maven, npm, python, test_requirements
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system
from buildfixer.core.errors import BuildfixerError

WRAPPER_PROPS = "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n"


def options(tmp_path: Path, **kw: object) -> BuildOptions:
    return BuildOptions(cache_dir=tmp_path / "cache", state_dir=tmp_path / "state", **kw)  # type: ignore[arg-type]


def gradle_project(tmp_path: Path, script: str = "apply plugin: 'java'\n") -> Path:
    project = tmp_path / "p"
    (project / "gradle" / "wrapper").mkdir(parents=True)
    (project / "build.gradle").write_text(script)
    (project / "gradlew").write_text("#!/bin/sh\n")
    (project / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(WRAPPER_PROPS)
    return project


def unpack_distribution(home: Path) -> Path:
    hash_dir = home / "wrapper" / "dists" / "gradle-8.5-bin" / "abc123"
    (hash_dir / "gradle-8.5" / "bin").mkdir(parents=True)
    (hash_dir / "gradle-8.5" / "bin" / "gradle").write_text("#!/bin/sh\n")
    (hash_dir / "gradle-8.5-bin.zip.ok").write_text("")
    return hash_dir / "gradle-8.5"


def test_gradle_uses_the_wrapper_only_when_its_distribution_is_here(tmp_path: Path) -> None:
    project = gradle_project(tmp_path)
    without = gradle.plan(project, options(tmp_path), None)
    assert without.command[0].endswith("gradle") and "gradlew" not in without.command
    assert without.tools["gradle"] != "8.5 (wrapper)"
    unpack_distribution(tmp_path / "cache" / "gradle")
    with_dist = gradle.plan(project, options(tmp_path), None)
    assert with_dist.command[:2] == ["sh", "gradlew"]
    assert with_dist.tools["gradle"] == "8.5 (wrapper)"


def test_unfinished_wrapper_download_is_not_used(tmp_path: Path) -> None:
    project = gradle_project(tmp_path)
    dist = unpack_distribution(tmp_path / "cache" / "gradle")
    (dist.parent / "gradle-8.5-bin.zip.ok").unlink()
    assert gradle.plan(project, options(tmp_path), None).command[:2] != ["sh", "gradlew"]


def test_gradle_default_tasks_flags_and_cold_protocol(tmp_path: Path) -> None:
    android = gradle_project(tmp_path, "plugins { id 'com.android.application' }\n")
    assert "assembleDebug" in gradle.plan(android, options(tmp_path), None).command
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "settings.gradle").write_text("rootProject.name = 'x'\n")
    warm = gradle.plan(plain, options(tmp_path, offline=True), None)
    assert {"build", "--offline", "--daemon", "--console=plain"} <= set(warm.command)
    cold = gradle.plan(plain, options(tmp_path, warm=False), None)
    assert cold.steps[0].argv[-1] == "--stop"
    assert cold.command[1:3] == ["clean", "build"] and "--no-daemon" in cold.command
    custom = gradle.plan(plain, options(tmp_path, tasks=["lint", "test"]), None)
    assert custom.command[1:3] == ["lint", "test"]


def test_gradle_cleans_after_a_jdk_switch(tmp_path: Path) -> None:
    from buildfixer.buildsys.jdk import Jdk

    project = gradle_project(tmp_path)
    opts = options(tmp_path)
    assert "clean" not in gradle.plan(project, opts, Jdk(17, "/jdk17")).command
    assert "clean" not in gradle.plan(project, opts, Jdk(17, "/jdk17")).command
    assert "clean" in gradle.plan(project, opts, Jdk(25, "/jdk25")).command


def test_gradle_states_the_system_fallback_for_a_missing_wrapper(tmp_path: Path) -> None:
    project = gradle_project(tmp_path)  # wrapper asks for 8.5, not unpacked anywhere
    plan = gradle.plan(project, options(tmp_path), None)
    assert gradle.wrapper_version(project) == "8.5"
    assert plan.tools["gradle_wrapper"] == "8.5 (distribution not available here)"
    assert plan.tools["gradle"].endswith("(system)")
    assert len(plan.notes) == 1 and "Gradle 8.5" in plan.notes[0]
    unpack_distribution(tmp_path / "cache" / "gradle")
    assert gradle.plan(project, options(tmp_path), None).notes == []


def test_maven_flags(tmp_path: Path) -> None:
    project = tmp_path / "m"
    project.mkdir()
    (project / "pom.xml").write_text("<project/>")
    plan = maven.plan(project, options(tmp_path, offline=True, warm=False), None)
    assert plan.command[-2:] == ["clean", "package"]
    assert "-o" in plan.command and "-B" in plan.command
    assert f"-Dmaven.repo.local={tmp_path / 'cache' / 'm2' / 'repository'}" in plan.command


def test_npm_install_scripts_and_placeholder_test(tmp_path: Path) -> None:
    project = tmp_path / "n"
    project.mkdir()
    scripts = {"build": "tsc", "test": 'echo "Error: no test specified" && exit 1'}
    (project / "package.json").write_text(json.dumps({"name": "n", "scripts": scripts}))
    plan = npm.plan(project, options(tmp_path), None)
    assert [s.argv[1:3] for s in plan.steps] == [["install", "--no-audit"], ["run", "build"]]
    (project / "package-lock.json").write_text("{}")
    scripts["test"] = "node --test"
    (project / "package.json").write_text(json.dumps({"name": "n", "scripts": scripts}))
    plan = npm.plan(project, options(tmp_path), None)
    assert [s.argv[1] for s in plan.steps] == ["ci", "run", "test"]
    assert plan.env["npm_config_cache"] == str(tmp_path / "cache" / "npm")  # no ~/.npm/_logs


@pytest.mark.parametrize(
    ("scripts", "expected"),
    [
        ({"build": "tsdown", "typecheck": "tsc --noEmit", "test": "jest"}, "typecheck"),
        ({"build": "vite build", "type-check": "vue-tsc --noEmit"}, "type-check"),
        ({"build": "tsc", "typecheck": "tsc --noEmit"}, None),  # the build checks types itself
        ({"build": "tsc -p . --noEmit && vite build", "typecheck": "tsc --noEmit"}, None),
        ({"build": "vite build", "typecheck": "tsc", "test": "npm run typecheck && vitest"}, None),
        ({"build": "esbuild src/index.ts", "lint": "eslint ."}, None),  # a linter is not the build
    ],
)
def test_npm_type_check_runs_when_build_and_test_do_not(
    tmp_path: Path, scripts: dict[str, str], expected: str | None
) -> None:
    assert npm.type_check_script(scripts) == expected
    project = tmp_path / "n"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "n", "scripts": scripts}))
    runs = [s.argv[2] for s in npm.plan(project, options(tmp_path), None).steps if s.argv[1] == "run"]
    assert runs == ["build"] + ([expected] if expected else [])


def test_python_installs_test_extra_and_runs_pytest(tmp_path: Path) -> None:
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "py"\n[project.optional-dependencies]\ntest = ["pytest"]\n'
    )
    plan = python.plan(project, options(tmp_path), None)
    argvs = [" ".join(s.argv) for s in plan.steps]
    assert any(a.endswith("-e .[test] pytest") for a in argvs)
    assert any("compileall" in a for a in argvs)
    assert argvs[-1].endswith("-m pytest -q -p no:cacheprovider")


def test_python_dependency_group_is_not_mistaken_for_an_extra(tmp_path: Path) -> None:
    # PEP 735 groups (pallets projects): `tests = [...]` there is no extra of the package.
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "py"\n[dependency-groups]\nbase = ["freezegun"]\n'
        'tests = [{include-group = "base"}, "pytest>=8"]\n'
    )
    argvs = [s.argv for s in python.plan(project, options(tmp_path), None).steps]
    install = next(a for a in argvs if "-e" in a)
    assert install[install.index("-e") + 1 :] == [".", "freezegun", "pytest>=8"]


def test_python_requirements_only_project(tmp_path: Path) -> None:
    # A script repository: requirements.txt and a tool-settings pyproject, nothing to pip install.
    project = tmp_path / "app"
    project.mkdir()
    (project / "requirements.txt").write_text("requests\n")
    (project / "test_app.py").write_text("def test_x():\n    pass\n")
    assert detect_build_system(project) == "python"
    (project / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    argvs = [s.argv for s in python.plan(project, options(tmp_path), None).steps]
    assert not any("-e" in a for a in argvs)
    assert argvs[1][-2:] == ["-r", "requirements.txt"] and argvs[2][-1] == "pytest"
    assert argvs[-1][-4:] == ["pytest", "-q", "-p", "no:cacheprovider"]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["build.gradle.kts"], "gradle"),
        (["settings.gradle", "package.json"], "gradle"),
        (["pom.xml"], "maven"),
        (["setup.cfg"], "python"),
        (["package.json"], "npm"),
    ],
)
def test_detection(tmp_path: Path, files: list[str], expected: str) -> None:
    for name in files:
        (tmp_path / name).write_text("{}" if name.endswith(".json") else "")
    assert detect_build_system(tmp_path) == expected


def test_detection_refuses_an_unknown_project(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n")
    with pytest.raises(BuildfixerError, match="no recognisable build"):
        detect_build_system(tmp_path)


def test_pnpm_and_yarn_projects_go_through_corepack(tmp_path: Path) -> None:
    project = tmp_path / "n"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "n", "scripts": {"test": "pnpm run /^t:/"}}))
    (project / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    assert npm.package_manager(project) == "pnpm"
    plan = npm.plan(project, options(tmp_path), None)
    if plan.tools.get("pnpm") != "via corepack":
        pytest.skip("corepack is not installed")
    assert plan.steps[0].argv[1:3] == ["enable", "--install-directory"]
    assert plan.steps[1].argv[0].endswith("/pnpm") and "--frozen-lockfile" in plan.steps[1].argv
    # Never a question before purging a node_modules made elsewhere: no terminal would answer it.
    assert "--config.confirmModulesPurge=false" in plan.steps[1].argv
    assert plan.command[0].endswith("/pnpm") and plan.command[1:] == ["test"]
    assert plan.env["COREPACK_HOME"].startswith(str(tmp_path / "cache"))
    assert plan.env["COREPACK_ENABLE_AUTO_PIN"] == "0"  # never edits package.json
    assert "pnpm" in plan.notes[0]
    (project / "package.json").write_text(json.dumps({"name": "n", "packageManager": "yarn@1.22.22"}))
    assert npm.package_manager(project) == "yarn"


def test_nested_projects_are_named_when_the_root_has_no_build(tmp_path: Path) -> None:
    for sub in ("complete", "initial"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "build.gradle").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "pom.xml").write_text("")
    with pytest.raises(BuildfixerError, match=r"one level down: complete, initial \(pass one as PATH\)"):
        detect_build_system(tmp_path)


def test_result_reports_the_failing_step_and_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from buildfixer.buildsys.plan import Plan
    from buildfixer.buildsys.project import build_project
    from buildfixer.buildsys.runner import BuildStep

    steps = [BuildStep(["sh", "-c", "exit 3"]), BuildStep(["true"])]
    monkeypatch.setattr(npm, "plan", lambda *_: Plan("npm", steps, notes=["a note"]))
    (tmp_path / "package.json").write_text("{}")
    result = build_project(tmp_path, options(tmp_path))
    assert result.status == "failure" and result.command == ["sh", "-c", "exit 3"]
    assert result.environment["notes"] == "a note"


def test_maven_states_the_system_fallback_for_a_missing_wrapper(tmp_path: Path) -> None:
    project = tmp_path / "m"
    (project / ".mvn" / "wrapper").mkdir(parents=True)
    (project / "pom.xml").write_text("<project/>")
    (project / "mvnw").write_text("#!/bin/sh\n")
    url = "https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.99/apache-maven-3.9.99-bin.zip"
    (project / ".mvn" / "wrapper" / "maven-wrapper.properties").write_text(f"distributionUrl={url}\n")
    plan = maven.plan(project, options(tmp_path), None)
    assert maven.wrapper_version(project) == "3.9.99" and plan.command[0] != "sh"
    assert plan.tools["maven_wrapper"] == "3.9.99 (distribution not downloaded)"
    assert "Maven 3.9.99" in plan.notes[0]


def test_gradle_says_when_system_gradle_cannot_read_kotlin_scripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gradle, "_system_has_kotlin_dsl", lambda: False)
    project = tmp_path / "k"
    project.mkdir()
    (project / "settings.gradle.kts").write_text('rootProject.name = "k"\n')
    assert "settings.gradle.kts cannot be evaluated" in gradle.plan(project, options(tmp_path), None).notes[0]


def test_gradle_notes_a_jdk_newer_than_it_runs_on(tmp_path: Path) -> None:
    from buildfixer.buildsys.jdk import Jdk

    project = gradle_project(tmp_path)
    unpack_distribution(tmp_path / "cache" / "gradle")  # wrapper Gradle 8.5: runs on Java 21 at most
    on_21 = gradle.plan(project, options(tmp_path), Jdk(21, "/jdk21"))
    assert not on_21.notes
    on_25 = gradle.plan(project, options(tmp_path), Jdk(25, "/jdk25"))
    assert any("Gradle 8.5 runs on Java 21 at most" in note for note in on_25.notes)


def test_python_installs_the_test_deps_tox_lists(tmp_path: Path) -> None:
    # Test tools listed only in tox.ini (pytest plugins, libraries the fixtures import).
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "setup.py").write_text("from setuptools import setup\nsetup(name='py')\n")
    (project / "tox.ini").write_text(
        "[tox]\nenvlist = py311-{cover,nocov}\n[testenv]\ndeps =\n    pytest-benchmark\n"
        "    objproxies==0.9.4  # pinned\n    cover: pytest-cov\n    py{37,38}: old\n"
        "    -r{toxinidir}/requirements/tests.txt\n    -e .\n    {env:EXTRA:}\n"
        "[testenv:docs]\ndeps = sphinx\n"
    )
    (project / "requirements").mkdir()
    (project / "requirements" / "tests.txt").write_text("pytest-timeout\n")
    plan = python.plan(project, options(tmp_path), None)
    install = next(s.argv for s in plan.steps if "-e" in s.argv)
    assert install[install.index("-e") + 1 :] == [
        ".",
        "pytest-benchmark",
        "objproxies==0.9.4",
        "pytest-timeout",
        "pytest",
    ]
    assert test_requirements.collect(tmp_path).requirements == []  # no tox.ini
    # The -r file takes part in the warm-state digest: changing it reinstalls.
    (project / "requirements" / "tests.txt").write_text("pytest==7.2.0\n")
    stamped = next(s.stamps for s in python.plan(project, options(tmp_path), None).steps if s.stamps)
    assert list(stamped.values()) != list(next(s.stamps for s in plan.steps if s.stamps).values())


def test_npm_install_without_lockfile_writes_none(tmp_path: Path) -> None:
    project = tmp_path / "n"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "n", "scripts": {"test": "mocha"}}))
    assert "--no-package-lock" in npm.plan(project, options(tmp_path), None).steps[0].argv
    (project / "package-lock.json").write_text("{}")
    assert "--no-package-lock" not in npm.plan(project, options(tmp_path), None).steps[0].argv


def test_missing_submodules_are_noted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from buildfixer.buildsys.plan import Plan, missing_submodules
    from buildfixer.buildsys.project import build_project
    from buildfixer.buildsys.runner import BuildStep

    (tmp_path / ".gitmodules").write_text(
        '[submodule "a"]\n\tpath = tests/toml-test\n\turl = https://example.org/a.git\n'
        '[submodule "b"]\n\tpath = vendor/b\n\turl = https://example.org/b.git\n'
    )
    (tmp_path / "tests" / "toml-test").mkdir(parents=True)  # empty: not checked out
    (tmp_path / "vendor" / "b").mkdir(parents=True)
    (tmp_path / "vendor" / "b" / "x.c").write_text("")
    assert missing_submodules(tmp_path) == ["tests/toml-test"]
    monkeypatch.setattr(npm, "plan", lambda *_: Plan("npm", [BuildStep(["true"])]))
    (tmp_path / "package.json").write_text("{}")
    notes = build_project(tmp_path, options(tmp_path)).environment["notes"]
    assert notes == "git submodules not checked out (the build may need them): tests/toml-test"


def test_python_installs_poetry_dev_dependencies_as_pip_requirements(tmp_path: Path) -> None:
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "py"\n[tool.poetry.dependencies]\npython = "^3.6"\n'
        '[tool.poetry.dev-dependencies]\npytest = "^6.2.5"\nPyYAML = "^0.920"\ncov = "~1.2.3"\n'
        'exact = "1.0"\nany = "*"\nrange = ">=1,<3"\nlocal = {path = "../x"}\n'
        'extra = {version = "^2.1", extras = ["a"], python = "^3.6.1"}\n'
        'mypy = "^0.920"\nSphinx = "^4.3.2"\npre-commit = "^2.1"\n'
        '[build-system]\nbuild-backend = "poetry.core.masonry.api"\n'
    )
    install = next(s.argv for s in python.plan(project, options(tmp_path), None).steps if "-e" in s.argv)
    assert install[install.index("-e") + 1 :] == [
        ".",
        "pytest>=6.2.5,<7",
        "PyYAML>=0.920,<0.921",
        "cov>=1.2.3,<1.3",
        "exact==1.0",
        "any",
        "range>=1,<3",
        "extra[a]>=2.1,<3",
    ]
    # Poetry 1.2+ groups; a `test` group wins over `dev` and is taken whole.
    (project / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "py"\n[tool.poetry.group.dev.dependencies]\nblack = "*"\n'
        '[tool.poetry.group.test.dependencies]\npytest-mock = "^3"\nmypy = "*"\n'
        '[build-system]\nbuild-backend = "poetry.core.masonry.api"\n'
    )
    install = next(s.argv for s in python.plan(project, options(tmp_path), None).steps if "-e" in s.argv)
    assert install[install.index("-e") + 1 :] == [".", "pytest-mock>=3,<4", "mypy", "pytest"]


def test_python_reinstalls_when_the_planned_requirements_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same files, but a buildfixer that reads them differently: the warm venv must not be reused.
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "setup.py").write_text("from setuptools import setup\nsetup(name='py')\n")

    def key(**kw: object) -> list[str]:
        steps = python.plan(project, options(tmp_path, **kw), None).steps
        return list(next(s.stamps for s in steps if s.stamps).values())

    first = key()
    assert key(offline=True) == first  # pip flags are no part of the key
    declared = python.test_requirements.Declared(requirements=["pytest-mock"])
    monkeypatch.setattr(python.test_requirements, "collect", lambda _: declared)
    assert key() != first
