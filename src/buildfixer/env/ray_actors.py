"""Rollouts on Ray actors: one environment per actor, anywhere in a cluster, builds capped per node.

A trainer on GPU machines keeps many rollouts in flight, most of them waiting on the model; the
builds they start are what loads a CPU machine. So actors are not sized by CPUs (they ask for
none) but every build takes one of the node's build slots (buildsys.slots): by default one per two
cores of the node the actor runs on, as the bench runs one worker per two cores.

    actors = env_actors(instances, copies=4)
    first = ray.get([a.reset.remote() for a in actors])
    obs, reward, done, info = ray.get(actor.step.remote(assistant_message))
"""

from __future__ import annotations

import os
from typing import Any

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.errors import BuildfixerError
from buildfixer.env.episode import BuildRepairEnv


def node_build_cap() -> int:
    """Concurrent builds on this machine by default: one per two cores."""
    return max(1, (os.cpu_count() or 2) // 2)


class NodeEnv(BuildRepairEnv):
    """The environment as an actor: its builds share the node's build slots."""

    def __init__(self, instance: dict[str, Any], builds_per_node: int | None = None, **settings: Any) -> None:
        options = settings.pop("options", None) or BuildOptions()
        options.max_builds = builds_per_node or node_build_cap()  # read on the node, not the driver
        super().__init__(instance, options=options, **settings)


def env_actors(
    instances: list[dict[str, Any]], copies: int = 1, builds_per_node: int | None = None, **settings: Any
) -> list[Any]:
    """`copies` actors per instance (a rollout group), spread over the cluster's nodes.

    `settings` are BuildRepairEnv's (mode, judge, toolset, max_turns, ...). Ray is started here when
    it is not yet (`RAY_ADDRESS` joins a cluster).
    """
    if copies < 1 or (builds_per_node is not None and builds_per_node < 1):
        raise BuildfixerError("copies and builds_per_node must be at least 1")
    try:
        import ray  # lazy: an optional extra, and seconds to import
    except ImportError:
        raise BuildfixerError("Ray actors need Ray: pip install 'buildfixer[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"), include_dashboard=False, log_to_driver=False)
    actor = ray.remote(num_cpus=0, scheduling_strategy="SPREAD")(NodeEnv)
    return [
        actor.remote(instance, builds_per_node=builds_per_node, **settings)
        for instance in instances
        for _ in range(copies)
    ]
