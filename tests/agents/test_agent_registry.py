"""A new agent is one class registered once: the harness, `fix` and the config then know it."""

from pathlib import Path

import pytest

from buildfixer.agents.attempt_context import AttemptContext
from buildfixer.agents.registry import agent_names, get_agent, register_agent, unregister_agent
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Agent
from buildfixer.core.stops import Stop, StopKind
from buildfixer.delivery.fix import fix_project
from buildfixer.examples import get_example, materialize
from buildfixer.harness.config import AttemptConfig


class AppendCommentAgent:
    """A test-only policy: adds a comment line to the file the root error names, then stops."""

    name = "append-comment"
    uses_model = False
    builds_first = True

    def run(self, context: AttemptContext) -> Stop:
        error = context.initial.errors[0]
        text = (context.ctx.root / error.file).read_text()
        context.all_tools()["write_file"].call({"path": error.file, "content": "# seen\n" + text})
        return Stop(StopKind.MODEL_FINISHED, f"commented {error.file}")


@pytest.fixture
def registered():
    agent = AppendCommentAgent()
    register_agent(agent)
    yield agent
    unregister_agent(agent.name)


def test_every_built_in_agent_satisfies_the_protocol():
    built_in = {"tool", "recipes", "coding-assistant", "hierarchical", "cascade", "oracle", "none"}
    assert built_in <= set(agent_names())
    assert all(isinstance(get_agent(name), Agent) for name in agent_names())


def test_a_taken_name_is_refused(registered):
    with pytest.raises(BuildfixerError, match="already registered"):
        register_agent(AppendCommentAgent())


@pytest.mark.slow
def test_a_registered_agent_runs_through_the_harness_and_its_stop_is_recorded(registered, tmp_path: Path):
    project = materialize(get_example("python-app/syntax-error"), tmp_path / "project")
    config = AttemptConfig(agent="append-comment", model="none", trajectory_path=tmp_path / "t.json")
    outcome = fix_project(project, config, dry_run=True)
    attempt = outcome.attempt
    assert attempt.stop.kind is StopKind.MODEL_FINISHED and attempt.stop_reason.startswith("commented ")
    assert attempt.resolved is False  # a comment does not repair a syntax error: the verdict build says so
    assert "+# seen" in outcome.patch  # its edit is the reported patch
    assert attempt.trajectory.meta["agent"] == "append-comment"
