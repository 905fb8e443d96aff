"""Every agent, registered once by name: the harness, `fix`, `bench run` and the config read this table."""

from __future__ import annotations

from buildfixer.agents.cascade import CascadeAgent
from buildfixer.agents.coding_assistant import CodingAssistantAgent
from buildfixer.agents.hierarchical import HierarchicalAgent
from buildfixer.agents.recipes.agent import RecipesAgent
from buildfixer.agents.repair_loop import PipelineAgent
from buildfixer.agents.selfcheck import NoneAgent, OracleAgent
from buildfixer.agents.tool_agent import ToolAgent
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Agent

_AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        ToolAgent(), RecipesAgent(), CodingAssistantAgent(), HierarchicalAgent(), CascadeAgent(),
        PipelineAgent(), OracleAgent(), NoneAgent(),
    )
}  # fmt: skip


def register_agent(agent: Agent) -> None:
    """Add an agent (a plugin, or a test's own) under its name; a taken name is an error."""
    if agent.name in _AGENTS:
        raise BuildfixerError(f"an agent named {agent.name!r} is already registered")
    _AGENTS[agent.name] = agent


def unregister_agent(name: str) -> None:
    """Remove an agent added with register_agent (tests clean up with this)."""
    _AGENTS.pop(name, None)


def agent_names() -> list[str]:
    """Names of every registered agent."""
    return list(_AGENTS)


def get_agent(name: str) -> Agent:
    """The agent registered as `name`; BuildfixerError naming the known ones otherwise."""
    try:
        return _AGENTS[name]
    except KeyError:
        raise BuildfixerError(f"unknown agent {name!r} (known: {', '.join(_AGENTS)})") from None
