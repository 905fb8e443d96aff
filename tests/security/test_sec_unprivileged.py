"""The sandbox for a caller that is not root (a developer's laptop): a user namespace of its own.

Run as `nobody` with the system's Python and this checkout's sources. Before, joining the shared
network namespace failed for such a caller ("reassociate to namespace 'ns/net' failed"), so no
sandboxed build could run at all without root.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
SYSTEM_PYTHON = Path("/usr/bin/python3")

SCRIPT = """
import sys; sys.path.insert(0, {src!r})
from pathlib import Path
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox
base = Path({base!r})
options = BuildOptions(offline={offline}, cache_dir=base / "cache")
command = "id -u; touch made && echo WROTE; unshare -U true && echo NESTED"
run = run_in_sandbox(base / "p", options, ["sh", "-c", command], env={{"PATH": "/usr/bin:/bin"}},
                     log_path=base / "log", timeout_s=60, owner="t-nobody")
print((base / "log").read_text())
"""


@pytest.mark.skipif(os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("setpriv"),
                    reason="needs root to become nobody, and the system's Python")  # fmt: skip
@pytest.mark.parametrize("offline", [True, False])
def test_a_caller_that_is_not_root_gets_a_working_sandbox(offline: bool) -> None:
    base = Path(tempfile.mkdtemp(prefix="bf-nobody-"))  # where nobody can reach it (not under root's tmp)
    (base / "p").mkdir(parents=True)
    subprocess.run(["chown", "-R", "nobody", str(base)], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(base), "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", str(SYSTEM_PYTHON), "-I", "-c",
         SCRIPT.format(src=str(SRC), base=str(base), offline=offline)],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-800:]
    output = done.stdout.split("\n", 1)[1]  # without the runner's "$ command" line
    assert output.splitlines()[0] == "65534" and "WROTE" in output, output  # as the caller, in its project
    assert (base / "p" / "made").exists()
    assert "NESTED" not in output
    shutil.rmtree(base, ignore_errors=True)
