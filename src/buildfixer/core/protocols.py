"""The swappable parts, in one place: a model, an agent, a build system, a sandbox.

Each has one registry next to its implementations (`agents.registry`, `buildsys.project`,
`buildsys.sandbox.backends`); a new implementation is one module plus one registry entry. This module
sits at the bottom of the import graph, so the records of higher layers an implementation takes
(the attempt environment, build options, a build plan) appear here as `Any`; each
implementation names the concrete type and is checked against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from buildfixer.core.chat import CallLimits, Message, ModelReply
from buildfixer.core.stops import Stop


@runtime_checkable
class Model(Protocol):
    """A chat model that may call tools: the conversation and the tool schemas in, one reply out.

    Attributes:
        name: The model's name as recorded with results.

    A model may also have `context_window` (tokens, or None): the tool loop then fits the
    conversation it sends into it (`agents.window`); without it the conversation goes as it is.
    """

    name: str

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], limits: CallLimits | None = None
    ) -> ModelReply:
        """One call (tools are OpenAI function schemas; [] offers none) within `limits`.

        Raises core.chat.ModelError on failure, its subclass ModelTimeout when `limits.timeout_s`
        (or the model's own timeout) passed first.
        """
        ...


@runtime_checkable
class Agent(Protocol):
    """A repair policy: works in an attempt environment until it stops, and says why.

    The verdict is never the agent's: the harness builds once more afterwards.

    Attributes:
        name: The name it is registered and reported under.
        uses_model: False for policies that call no model (their `--model` is ignored).
        builds_first: True when the agent starts from the failure: the harness builds first, hands
            it the result, and skips it when the project already builds. False for the
            self-check agents, whose work does not depend on the failure (one build: the verdict).

    An agent may also have `declines(ctx, initial, source) -> bool`: True when it knows from the
    first failure alone that it will decline (the recipes, with none for it). The harness then
    triages without building the base commit.
    """

    name: str
    uses_model: bool
    builds_first: bool

    def run(self, context: Any) -> Stop:
        """Repair what `context.initial` shows with its tools (an `agents.attempt_context.AttemptContext`)."""
        ...


@runtime_checkable
class BuildSystem(Protocol):
    """One kind of build (Gradle, Maven, Python, npm): recognise a project and plan its build."""

    name: str

    def detect(self, project: Path) -> bool:
        """True when `project` is built by this system."""
        ...

    def plan(self, project: Path, options: Any, jdk: Any) -> Any:
        """The commands (a buildsys.plan.Plan) that build `project` with these BuildOptions on this Jdk."""
        ...


@dataclass(frozen=True)
class Confinement:
    """What a sandboxed command may reach.

    Attributes:
        writable: Directories it may write (the workspace, the build's state, the shared caches).
        network: Whether it may reach the network, and then only `allowed_hosts` (the package
            registries) over HTTP(S); without, it has loopback only.
        allowed_hosts: Hosts a command with network may reach (`.suffix` entries match subdomains).
        hidden: Directories and files replaced by empty ones (home directories, buildfixer's
            cache, host secrets such as /etc/shadow).
        readable: Paths inside hidden ones that stay visible read-only (a JDK under a home directory).
        frozen: Paths inside writable ones that stay read-only: files there would run in later
            builds (Gradle init scripts in the shared Gradle home).
        home: HOME inside the sandbox, on its private /tmp.
        accounts: A folder holding the sandbox's own `passwd` and `group` (shown as /etc/passwd and
            /etc/group): the host's accounts are not shown.
    """

    writable: tuple[Path, ...]
    network: bool
    allowed_hosts: tuple[str, ...] = ()
    hidden: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    frozen: tuple[Path, ...] = ()
    home: str = "/tmp/home"
    accounts: Path | None = None


@runtime_checkable
class Sandbox(Protocol):
    """Where a build step runs: its command line wrapped to reach only what a `Confinement` allows."""

    name: str

    def wrap(self, argv: Sequence[str], confinement: Confinement, cwd: Path | None = None) -> list[str]:
        """The command line that runs `argv` confined, in `cwd` when given."""
        ...
