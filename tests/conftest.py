import os
import shutil
import signal
from pathlib import Path

import pytest

# Fixtures shared by tests anywhere below (tests/support/fixtures.py).
pytest_plugins = ["support.fixtures"]

# Tests press Ctrl-C on the commands they start. A shell that starts the test run in the background
# ignores SIGINT, and an ignored signal is inherited by every child: give them a terminal's default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Every test run shares one cache (dependency downloads are slow) but never the user's own, and
# the fixture projects (all ours) share one set of dependency caches; the default, a set per
# project, is what tests/security/test_sec_cache_domains.py checks.
os.environ.setdefault("BUILDFIXER_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".cache" / "test"))
os.environ.setdefault("BUILDFIXER_CACHE_DOMAIN", "shared")


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A private cache for tests that must not see shared state (mirrors, workspaces)."""
    path = tmp_path / "cache"
    path.mkdir()
    return path


def require(program: str) -> str:
    found = shutil.which(program)
    if not found:
        pytest.fail(f"{program} is required for this test (install it: see .ci/run)")
    return found
