"""A Python project's test requirements, read from every place a project declares them."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.buildsys import python
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.test_requirements import collect


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# tox's configuration embedded in pyproject.toml, as tox 3 reads it.
TOX_TABLE = '''[tool.tox]
legacy_tox_ini = """
[tox]
envlist = py311
[testenv]
deps =
    -r tests/requirements.txt
    cover: pytest-cov
    {[base]deps}
commands = pytest
"""
'''
LEGACY_TOX = '[project]\nname = "p"\nversion = "1"\n\n' + TOX_TABLE


def test_legacy_tox_ini_reads_requirement_files_relative_to_the_file_naming_them(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": LEGACY_TOX,
            # Relative to the file that names it (tests/), as pip reads it; comments, hashes, continuations.
            "tests/requirements.txt": "-r ../requirements/base.txt  # shared\n-c constraints.txt\n"
            "# a comment\nsix==1.16.0 \\\n    --hash=sha256:abc\nfreezegun ; python_version >= '3.8'\n",
            "requirements/base.txt": "iniconfig\n-r ../tests/requirements.txt\n",  # a loop ends
            "tests/constraints.txt": "six<2\n",
        },
    )
    found = collect(root)
    assert found.requirements == [
        "iniconfig",
        "-c",
        "tests/constraints.txt",
        "six==1.16.0",
        "freezegun ; python_version >= '3.8'",
    ]
    assert found.notes == [] and found.extras == []
    assert {"tests/requirements.txt", "requirements/base.txt", "tests/constraints.txt"} <= set(found.files)


def test_native_tox_toml_in_pyproject_and_tox_toml(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\n[tool.tox.env_run_base]\n'
            'deps = ["pytest-mock>=3", {replace = "ref", of = ["x"]}, "-r requirements-test.in"]\n'
            'extras = ["testing"]\ncommands = [["pytest"]]\n',
            "requirements-test.in": "hypothesis\n",
            "tox.toml": '[env_run_base]\ndeps = ["attrs"]\n',
        },
    )
    found = collect(root)
    assert found.requirements == ["pytest-mock>=3", "hypothesis", "attrs"]
    assert found.extras == ["testing"]


def test_tox_ini_testenv_deps_and_extras(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "setup.py": "from setuptools import setup\nsetup(name='p')\n",
            "tox.ini": "[testenv]\nextras =\n    testing\n    cover: cov\n"
            "deps =\n    pytest-benchmark\n    py{37,38}: old\n    -r{toxinidir}/ci/test.txt\n"
            "    -c {toxinidir}/ci/pins.txt\n    {env:EXTRA:}\n    .[speedups]\n    --pre\n"
            "[testenv:docs]\ndeps = sphinx\n",
            "ci/test.txt": "responses\n-e ./plugins/x\n",
            "ci/pins.txt": "responses<1\n",
        },
    )
    found = collect(root)
    assert found.requirements == ["pytest-benchmark", "responses", "-c", "ci/pins.txt"]
    assert found.extras == ["testing", "speedups"]
    assert found.notes == [
        "ci/test.txt: editable install left out: ./plugins/x",
        "tox.ini: pip option left out: --pre",
    ]


def test_hatch_environments_inherit_from_their_template(tmp_path: Path) -> None:
    pyproject = (
        '[project]\nname = "p"\n[tool.hatch.envs.default]\ndependencies = ["coverage", "mypy"]\n'
        '[tool.hatch.envs.test]\nextra-dependencies = ["pytest-mock"]\nfeatures = ["cli"]\n'
        '[tool.hatch.envs.lint]\ndependencies = ["ruff"]\n'
    )
    root = project(tmp_path, {"pyproject.toml": pyproject})
    found = collect(root)
    # `test` has default's dependencies (inherited), then its own extra ones.
    assert found.requirements == ["coverage", "mypy", "pytest-mock"]
    assert found.extras == ["cli"]
    # Only `default`: its linters are left out, as no test imports them.
    (root / "pyproject.toml").write_text(pyproject.split("[tool.hatch.envs.test]")[0])
    assert collect(root).requirements == ["coverage"]
    # Hatch's own test environment inherits nothing; `{root:uri}` context formatting is not evaluated.
    (root / "pyproject.toml").write_text(
        f"{pyproject}[tool.hatch.envs.hatch-test]\n"
        'extra-dependencies = ["time-machine", "x @ {root:uri}/x"]\n'
    )
    assert collect(root).requirements == ["time-machine"]


def test_pdm_pep735_and_poetry_groups(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\n'
            '[dependency-groups]\nbase = ["freezegun"]\ntests = [{include-group = "base"}, "pytest>=8"]\n'
            '[tool.pdm.dev-dependencies]\nlint = ["ruff"]\n'
            'test = ["-e file:///${PROJECT_ROOT}/sub", "pytest-httpserver"]\n'
            '[tool.poetry.group.test.dependencies]\nrequests-mock = "^1.9"\n'
            '[tool.poetry.dev-dependencies]\nblack = "*"\n',
        },
    )
    found = collect(root).requirements
    assert found == ["freezegun", "pytest>=8", "pytest-httpserver", "requests-mock>=1.9,<2"]
    # uv's dev-dependencies are a `dev` group: without the linters, as every `dev` entry.
    (root / "pyproject.toml").write_text('[tool.uv]\ndev-dependencies = ["ruff", "pytest-asyncio"]\n')
    assert collect(root).requirements == ["pytest-asyncio"]
    # Poetry's dev-dependencies when there is no test group: without the linters.
    (root / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "p"\n[tool.poetry.dev-dependencies]\nblack = "*"\npytest-cov = "~2.10"\n'
    )
    assert collect(root).requirements == ["pytest-cov>=2.10,<2.11"]


def test_every_place_in_order_each_requirement_once(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\n[project.optional-dependencies]\ntest = ["x"]\n'
            '[dependency-groups]\ndev = ["Pytest_Mock>=3", "mypy"]\n'
            '[tool.hatch.envs.test]\ndependencies = ["pytest-mock", "hypothesis"]\n',
            "tox.ini": "[testenv]\ndeps =\n    hypothesis==6.0\n    attrs\n    attrs; python_version<'3.9'\n",
        },
    )
    found = collect(root)
    assert found.extras == ["test"]
    # The group's pin wins over hatch's bare name (same project, spelled otherwise); a marker makes another.
    assert found.requirements == ["Pytest_Mock>=3", "hypothesis", "attrs", "attrs; python_version<'3.9'"]


def test_requirement_files_are_read_only_inside_the_project(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("leaked-package\n")
    root = project(
        tmp_path / "p",
        {
            "tox.ini": f"[testenv]\ndeps =\n    -r ../secret.txt\n    -r {secret}\n    -r link.txt\n"
            "    -r missing.txt\n    -c ../secret.txt\n    -r https://example.org/r.txt\n    attrs\n",
            "setup.py": "",
        },
    )
    (root / "link.txt").symlink_to(secret)
    found = collect(root)
    assert found.requirements == ["attrs"]
    assert "leaked-package" not in repr(found)
    assert found.notes == [
        "tox.ini: ../secret.txt is outside the project",
        f"tox.ini: {secret} is outside the project",
        "cannot read link.txt (missing, outside the project, or no regular file)",
        "cannot read missing.txt (missing, outside the project, or no regular file)",
        "tox.ini: ../secret.txt is outside the project",
        "1 more such notes",
    ]


@pytest.mark.parametrize(
    ("files", "note"),
    [
        ({"tox.ini": "[testenv\ndeps = x\n"}, "tox.ini cannot be parsed"),
        ({"pyproject.toml": "[project\n"}, "pyproject.toml is not valid TOML"),
        ({"pyproject.toml": "[tool.tox]\nlegacy_tox_ini = 3\n"}, "legacy_tox_ini is not a string"),
        ({"pyproject.toml": "[tool.tox.env_run_base]\ndeps = 'x'\n"}, "env_run_base] deps is not a list"),
        ({"tox.ini": "[testenv]\ndeps = not a requirement!\n"}, "not a requirement, left out"),
    ],
)
def test_what_cannot_be_parsed_is_a_build_note(files: dict[str, str], note: str, tmp_path: Path) -> None:
    root = project(tmp_path / "p", {**files, "tests/test_x.py": ""})
    plan = python.plan(root, BuildOptions(cache_dir=tmp_path / "cache", state_dir=tmp_path / "state"), None)
    assert any(n.startswith("test requirements: ") and note in n for n in plan.notes), plan.notes


def test_the_plan_installs_what_was_collected(tmp_path: Path) -> None:
    root = project(
        tmp_path / "p",
        {
            "pyproject.toml": LEGACY_TOX + '[tool.hatch.envs.test]\nfeatures = ["cli"]\n',
            "tests/requirements.txt": "six\npytest<9\n",
            "tests/test_x.py": "",
        },
    )
    plan = python.plan(root, BuildOptions(cache_dir=tmp_path / "cache", state_dir=tmp_path / "state"), None)
    install = next(step.argv for step in plan.steps if "-e" in step.argv)
    # pytest is named already: no second, unpinned one.
    assert install[install.index("-e") + 1 :] == [".[cli]", "six", "pytest<9"]
    shutil.rmtree(root / "tests")  # no tests: nothing is read or installed for them
    plan = python.plan(root, BuildOptions(cache_dir=tmp_path / "cache", state_dir=tmp_path / "state"), None)
    assert next(step.argv for step in plan.steps if "-e" in step.argv)[-2:] == ["-e", "."]
    assert plan.notes == []  # tests/requirements.txt, now missing, was not read


@pytest.mark.slow
def test_a_test_dependency_declared_only_in_legacy_tox_ini_is_installed(tmp_path: Path) -> None:
    # Before, this build failed as library_unavailable: nothing else declares six (small, pure Python,
    # and no dependency of pytest, as iniconfig is). A pyproject of tool settings only: nothing to
    # build and install but the requirements, which keeps the build short.
    root = project(
        tmp_path / "p",
        {
            "pyproject.toml": TOX_TABLE,
            "tests/requirements.txt": "six\n",
            "tests/test_six.py": "import six\n\n\ndef test_six():\n    assert six.PY3\n",
        },
    )
    proc = subprocess.run(
        [sys.executable, "-m", "buildfixer", "build", str(root), "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    result = json.loads(proc.stdout)
    assert (proc.returncode, result["status"], result["category"]) == (0, "success", None), result
