import os
import sys
from pathlib import Path

from buildfixer.buildsys.runner import BuildStep, run_steps
from buildfixer.buildsys.sandbox import Bubblewrap
from buildfixer.core.protocols import Confinement

PROBE = r"""
import pathlib, socket, sys
here = pathlib.Path.cwd()
(here / "inside.txt").write_text("ok")
try:
    pathlib.Path(sys.argv[1]).write_text("escaped")
    print("WROTE-OUTSIDE")
except OSError:
    print("outside-readonly")
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    print("NETWORK")
except OSError:
    print("no-network")
"""


def test_sandbox_allows_only_the_project_and_no_network(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    argv = Bubblewrap().wrap(
        [sys.executable, "-c", PROBE, str(outside)], Confinement(writable=(project,), network=False)
    )
    log = tmp_path / "log.txt"
    result = run_steps(
        [BuildStep(argv)], cwd=project, env=dict(os.environ), log_path=log, timeout_s=60, owner="t-sb"
    )
    text = log.read_text()
    assert result.exit_code == 0, text
    assert (project / "inside.txt").read_text() == "ok"
    assert "outside-readonly" in text and not outside.exists()
    assert "no-network" in text
