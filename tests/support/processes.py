"""Watching processes a sandbox started, from the host: by a token in their command line."""

import os
import time
from pathlib import Path


def processes_with(token: str) -> list[int]:
    """PIDs of live processes (other than this one) whose command line holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_for(condition, seconds: float) -> None:
    """Poll `condition` until it holds; fail the test after `seconds`."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.2)
