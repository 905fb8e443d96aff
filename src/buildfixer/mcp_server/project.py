"""The project an MCP server serves: its tools' context, its toolset with `judge`, one call at a time.

Nothing here knows the protocol (`server.py` does): a call is a tool's name and its arguments in,
text and whether it failed out. The context is the one `harness.attempt.make_context` gives an
attempt, on the user's folder itself: builds sandboxed in the folder's own trust domain (as
`buildfixer build` runs them), results analyzed (`condensed`: root error, category, file:line,
the log around it), `ask_for_help` answered from the fix memory as `fix` reads it.
"""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Any

from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.project import detect_build_system, stop_daemons
from buildfixer.core import confined
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.harness.remember import knowledge_for, memory_path
from buildfixer.mcp_server.ignored import IgnoredFiles
from buildfixer.mcp_server.judge_tool import judge_tool
from buildfixer.memory.trust import DEFAULT_TRUST, check_trust, repository_domain
from buildfixer.tools.base import ToolError
from buildfixer.tools.context import ToolContext
from buildfixer.tools.presets import make_toolset, mask_tools
from buildfixer.tools.web import knowledge_from_env, search_from_env

DEFAULT_TOOLSET = "mcp"
# Tools that only read: a client may run them without asking (MCP's readOnlyHint).
READ_ONLY = {
    "list_directory", "glob", "search_file_content", "read_file", "find_files", "find_files_with_text",
    "search_google", "ask_for_help", "judge",
}  # fmt: skip

log = logging.getLogger(__name__)


class ServedProject:
    """A user's project served in place: the tools of a toolset (plus `judge`) on one shared context.

    Attributes:
        ctx: The tools' context; its options (the JDK `change_java_version` chose) last for the
            server's life, across clients.
        tools: The tools served, in order, masked as asked.
        read_only: Which of them only read (none when masked).
        ignored: The user's git-ignored files, which no tool writes.
    """

    def __init__(
        self, root: Path, toolset: str = DEFAULT_TOOLSET, mask: str = "none",
        options: BuildOptions | None = None, memory_trust: str = DEFAULT_TRUST,
    ) -> None:  # fmt: skip
        """Detect the build and make the tools (BuildfixerError, before anything runs, for bad input)."""
        if not root.is_dir():
            raise BuildfixerError(f"not a directory: {root}")
        root = root.resolve()
        system = detect_build_system(root)
        check_trust(memory_trust)
        if options is None:
            options = BuildOptions(trust_domain=project_domain(root))
        self.mask = mask
        self.ignored = IgnoredFiles(root)
        memory = knowledge_for(
            memory_path(options.cache_dir), system, None, domain=repository_domain(root), trust=memory_trust
        )
        self.ctx = ToolContext(
            root=root, build_system=system, options=options,
            installed_jdks=sorted({jdk.version for jdk in discover_jdks()}), build_output="condensed",
            search=search_from_env(), knowledge=knowledge_from_env() or memory,
        )  # fmt: skip
        plain = [*make_toolset(self.ctx, toolset), judge_tool(self.ctx)]
        self.tools = mask_tools(plain, mask)  # judge masked with the others: one set of labels
        # Masked, no hint either: which tools only read would tell what they are.
        self.read_only = {tool.name for tool in plain if tool.name in READ_ONLY} if mask == "none" else set()
        self._by_name = {tool.name: tool for tool in self.tools}
        self._one_at_a_time = threading.Lock()

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
        """Run one tool: (its text, whether it failed). Never raises for what a client sends.

        One call at a time, whichever thread asks: two builds of one folder at once would trample
        each other's outputs, and a call its client gave up on still holds the project until it
        ends. Every write the call makes is checked against the user's git-ignored files. The text
        has the controls a terminal would obey spelled out (`core.terminal.visible`): it comes
        from builds and the project's files, and clients show it.
        """
        tool = self._by_name.get(name)
        if tool is None:
            return f"unknown tool {name!r} (tools: {', '.join(self._by_name)})", True
        try:
            with self._one_at_a_time, confined.checking_writes(self.ignored.check):
                text, failed = tool.call(arguments), False
        except (ToolError, BuildfixerError) as exc:
            text, failed = str(exc), True
        except Exception as exc:  # a bug of ours: the client gets an error result, the log the trace
            log.exception("tool %s failed", name)
            text, failed = f"internal error in {name}: {type(exc).__name__}: {exc}", True
        return visible(text), failed

    def instructions(self) -> str:
        """What the server is for and what each tool does, from the tools served (never a list kept by hand).

        Masked, only the tools' own (masked) first sentences: a paragraph saying what builds and
        edits are would give away what the masking hides.
        """
        lines = [f"- {tool.name}: {first_sentence(tool.description)}" for tool in self.tools]
        if self.mask != "none":
            return "Tools:\n" + "\n".join(lines)
        sandboxed = (
            "unconfined on this machine (--no-sandbox)"
            if self.ctx.options.sandbox == "none"
            else "in a sandbox (only the project and its dependency caches writable, network only to "
            "the package registries)"
        )
        about = (
            f"buildfixer's build-repair tools for the {self.ctx.build_system} project at {self.ctx.root}, "
            f"working in place on its files. Builds and build-system commands run {sandboxed}; the "
            "file tools stay inside the project and never write its git-ignored files (the user's "
            "local settings and secrets). A build's result comes analyzed: status, failure category, "
            "the root error at its file and line, and the log around it. A repair: build, read the "
            "root error, edit, build again until the build succeeds, then judge the change. One tool "
            "call runs at a time; a build may take minutes."
        )
        return f"{about}\n\nTools:\n" + "\n".join(lines)

    def close(self) -> None:
        """Stop what the project's builds left running (the Gradle daemon, the sandbox session)."""
        stop_daemons(self.ctx.root, self.ctx.options)


def first_sentence(text: str) -> str:
    """The first sentence of a tool's description (all of it when it has one)."""
    return re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]
