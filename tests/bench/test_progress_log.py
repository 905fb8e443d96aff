"""`bench run` with stderr in a log (a pipe, CI): one whole line per attempt with the bar's counts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_a_log_gets_whole_lines_with_the_counts(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "buildfixer", "bench", "run", "bundled", "--agent", "tool",
               "--model", "scripted:bundled", "--only", "semverkit-elif-colon", "--only",
               "semverkit-lexical-latest", "--out", str(out)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode in (0, 1), done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr  # no bar frame, no cut line
    whole = r"\[[12]/2\] [✓✗] semverkit-[a-z-]+ #0 \([a-z_, ]+\) · resolved [0-2] · \$0\.0000"
    for line in lines:
        assert re.fullmatch(whole, line), line
    assert lines[-1].startswith("[2/2]")
