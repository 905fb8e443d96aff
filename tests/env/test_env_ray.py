"""Rollouts on Ray actors (a local Ray instance here; RAY_ADDRESS would join a cluster)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from buildfixer.env.ray_actors import env_actors

pytestmark = pytest.mark.slow  # rollouts on Ray actors, real builds

ARGUMENTS = json.dumps({"file_path": "stats.py", "old_string": "//", "new_string": "/"})
CALL = {"id": "c1", "type": "function", "function": {"name": "replace", "arguments": ARGUMENTS}}
FIX = {"role": "assistant", "content": None, "tool_calls": [CALL]}
DONE = {"role": "assistant", "content": "Done."}


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_rollout_group_on_actors(ray: Any, instance: dict[str, Any]) -> None:
    actors = env_actors([instance], copies=2, builds_per_node=1)
    first = ray.get([actor.reset.remote() for actor in actors])
    assert all("assert" in obs["messages"][1]["content"] for obs in first)
    ray.get([actor.step.remote(FIX) for actor in actors[:1]])  # one rollout repairs, the other gives up
    told = ray.get(actors[1].step.remote(DONE))  # giving up before acting is answered once
    assert told[2] is False and "Nothing has been changed" in told[0][-1]["content"]
    ends = ray.get([actor.step.remote(DONE) for actor in actors])
    assert [(reward, done) for _, reward, done, _ in ends] == [(1.0, True), (0.0, True)]
    assert ends[0][3]["build_ok"] is True and ends[1][3]["build_ok"] is False
    # Each actor has its own workspace: the repair of one is not in the other.
    roots = ray.get([actor.__ray_call__.remote(lambda env: str(env.workspace.root)) for actor in actors])
    assert roots[0] != roots[1]
    ray.get([actor.close.remote() for actor in actors])
