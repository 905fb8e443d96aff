"""The viewer tests' fixtures: two small run directories (see view_runs.py), and a real `fix`'s trajectory."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from view_runs import make_run_a, make_run_b

from support.model import call, replace, scripted
from support.projects import FIXED_JS, npm_project


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """Run A and run B (see the module docstring)."""
    return make_run_a(tmp_path), make_run_b(tmp_path)


@pytest.fixture
def fixed(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(project, trajectory) of `buildfixer fix` repairing an npm project: a real build, a scripted model.

    The trajectory is where `fix` puts it unless told (buildfixer's cache), as it printed: the file a
    user hands to `buildfixer view`. It is removed afterwards.
    """
    project = npm_project(tmp_path / "cart-app")
    model = scripted(tmp_path / "script.json", [
        call("run_build"),
        replace("app.js", "}}\n", "}\n"),
        {"content": "The stray brace is gone."},
    ])  # fmt: skip
    command = [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", model, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "app.js").read_text() == FIXED_JS
    trajectory = Path(json.loads(done.stdout)["trajectory"])
    yield project, trajectory
    trajectory.unlink(missing_ok=True)
