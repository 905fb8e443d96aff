"""The README's commands from a non-editable install in a fresh virtual environment, outside the source tree.

A user installs the package (a wheel built from this checkout), not the source tree: the bundled
examples, the bundled dataset and its scripts must come with it, and every path a command prints must
point into the installed package. The environment gets the test run's own dependencies through a
plain path entry (so nothing is downloaded but the build backend), never the source tree.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("installed")
    env_dir = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    # The dependencies of this test run, as a plain path: its .pth files (the editable install of
    # the checkout among them) are not read from there, so only the wheel provides buildfixer.
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    wheels = home / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    wheel = next(wheels.glob("buildfixer-*.whl"))
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", purelib, str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    return env_dir


def run(venv: Path, *args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(venv / "bin" / "python"), "-m", "buildfixer", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


@pytest.mark.slow
def test_installed_package_runs_the_readme_commands(venv: Path, tmp_path: Path) -> None:
    where = run(venv, "-c", "x", cwd=tmp_path)  # not a command: just proves `-m buildfixer` starts
    assert where.returncode == 2
    probe = [str(venv / "bin" / "python"), "-c", "import buildfixer; print(buildfixer.__file__)"]
    located = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert located.startswith(str(venv)) and str(ROOT) not in located

    assert run(venv, "--version", cwd=tmp_path).stdout.strip() == f"buildfixer {version('buildfixer')}"

    listed = json.loads(run(venv, "bench", "datasets", "--json", cwd=tmp_path).stdout)
    paths = {entry["name"]: Path(entry["path"]) for entry in listed}
    assert paths["bundled"].is_file() and str(paths["bundled"]).startswith(str(venv))
    assert len(list(paths["scripted:bundled"].glob("*.json"))) >= 17

    # The README's first command, on one example (all of them take minutes).
    fixed = run(venv, "examples", "--fix", "--only", "python-app/missing-version", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    assert "python-app/missing-version" in fixed.stdout
    # the diff of the repair is shown, and the repaired copy is where the output says
    assert "\n+++ b/" in fixed.stdout and "\n@@ " in fixed.stdout, fixed.stdout
    copies = re.search(r"^the copies, repaired or not, are in (\S+) ", fixed.stdout, re.MULTILINE)
    assert copies, fixed.stdout
    try:
        copy = Path(copies[1]) / "python-app__missing-version"
        patched = [line[6:] for line in fixed.stdout.splitlines() if line.startswith("+++ b/")]
        assert patched and all((copy / name).is_file() for name in patched)
        assert (Path(copies[1]) / "trajectories" / "python-app__missing-version.json").is_file()
    finally:
        shutil.rmtree(copies[1], ignore_errors=True)

    # The benchmark commands of the README, by name, from the installed package.
    out = tmp_path / "runs" / "scripted"
    bench = run(venv, "bench", "run", "bundled", "--agent", "tool", "--model", "scripted:bundled",
                "--only", "semverkit-elif-colon", "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert bench.returncode == 0, bench.stderr[-2000:]
    assert "1/1 attempts resolved" in bench.stdout
    report = run(venv, "bench", "report", str(out), "--format", "html", cwd=tmp_path)
    assert report.stdout == f"wrote the html report to {out / 'report.html'}\n"
    # The viewer's page comes with the package: the report's links open it.
    bundle = run(venv, "view", "bundle", str(out), "--out", str(out / "view"), cwd=tmp_path)
    assert bundle.returncode == 0, bundle.stderr
    assert {"index.html", "app.js", "data.js"} <= {p.name for p in (out / "view").iterdir()}
