"""The environment tests' instance: a small Python repository whose tests fail."""

from __future__ import annotations

from typing import Any

import pytest
from env_repo import make_instance


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_instance(tmp_path_factory.mktemp("env"))
