"""The llm mode's breakage generator: a model re-implements a commit from its message alone.

The model sees the repository as it was before the commit and the commit's message (plus release
notes when given), and edits files with the file tools. It cannot build or run anything, as a
developer writing the change from memory: the mistakes it makes are the instances. Its edits
become a synthetic commit on the commit's parent.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.agents.prompts import directory_tree
from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.chat import ModelError
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.candidates import Candidate
from buildfixer.curate.filters import Rejected
from buildfixer.curate.history import History
from buildfixer.llm.factory import make_model
from buildfixer.tools.context import ToolContext
from buildfixer.tools.files import file_tools
from buildfixer.workspace.workspace import Workspace

EDIT_TOOLS = ("list_directory", "glob", "search_file_content", "read_file", "replace", "write_file")

SYSTEM = """\
You are a software engineer working in a repository. Make the change a commit message describes, \
completely: code, build files and tests, as the project's own developers would. You can list, \
search, read and edit files; you cannot build, run or test anything. When the change is done, \
reply with a one-line summary and no tool call."""


def reimplement_request(root: Path, message: str, notes: str | None) -> str:
    """The task: the commit message, the release notes if any, and the project's files."""
    parts = [f"Implement this commit:\n\n{message.strip()}"]
    if notes:
        parts.append(f"Release notes of the version that contains it:\n\n{notes.strip()}")
    parts.append(f"The project's files:\n\n{directory_tree(root)}")
    return "\n\n".join(parts)


def reimplement(
    history: History,
    source: str,
    candidate: Candidate,
    model_spec: str,
    cache_dir: Path,
    trajectory_path: Path | None,
    notes: str | None = None,
    max_calls: int = 30,
) -> str:
    """Ask the model to redo `candidate.commit` on its parent; the synthetic commit of its edits.

    Raises:
        Rejected: (filter `model`) the model failed or changed nothing.
    """
    commit = history.commit(candidate.commit)
    parent = commit.parents[0]
    ws = Workspace.acquire(source, parent, cache_dir=cache_dir)
    try:
        ctx = ToolContext(root=ws.root, build_system="unknown")
        tools = [tool for tool in file_tools(ctx) if tool.name in EDIT_TOOLS]
        trajectory = Trajectory(trajectory_path, meta={"mode": "llm", "commit": commit.sha})
        try:
            loop = ToolLoop(make_model(model_spec), tools, Budget(max_calls=max_calls))
            loop.run(trajectory, SYSTEM, reimplement_request(ws.root, commit.message, notes))
        except (BuildfixerError, ModelError) as exc:
            raise Rejected("model", f"the model failed: {exc}") from None
        if not ws.changed_files():
            raise Rejected("model", "the model changed nothing")
        tree = ws.write_tree()
    finally:
        ws.release()
    message = f"buildfixer: {commit.sha[:12]} re-implemented by {model_spec}\n\n{commit.subject}"
    return history.commit_tree(tree, parent, message)
