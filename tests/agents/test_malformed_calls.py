"""Property test: whatever a model sends, the loop answers every call and never leaves the workspace."""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.chat import ModelReply, ToolCall, Usage
from buildfixer.tools.files import file_tools
from buildfixer.tools.web import web_tools
from support.tools import tool_context

TOOL_NAMES = [
    "read_file", "replace", "search_file_content", "glob", "list_directory", "write_file",
    "find_files", "find_files_with_text", "search_google", "ask_for_help",
]  # fmt: skip
PATHS = [
    "a.txt", "sub/b.txt", "../outside.txt", "../../etc/passwd", "/etc/passwd", "~/x", "link_out",
    "link_out/secret.txt", "dirlink", "dirlink/secret.txt", "sub/../../outside.txt", "", ".", "sub",
    "new/dir/file.txt", "a.txt\0", "loop",
]  # fmt: skip
PARAMS = [
    "path", "file_path", "old_string", "new_string", "expected_replacements", "pattern", "include",
    "offset", "limit", "ignore", "content", "text", "query", "question", "case_sensitive", "bogus",
]  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=True)
    | st.text(max_size=20) | st.sampled_from(PATHS),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip
arguments = st.one_of(
    st.dictionaries(st.sampled_from(PARAMS), json_values, max_size=5).map(json.dumps),
    st.text(max_size=40),  # not JSON at all
    st.sampled_from(["", "null", "[]", "{", '{"path": }', '"str"', "1e999", "[" * 5000]),
)
calls = st.lists(
    st.tuples(st.sampled_from(TOOL_NAMES) | st.text(max_size=12), arguments), min_size=1, max_size=12
)


class ListModel:
    name = "hypothesis"

    def __init__(self, batches):
        self.batches = list(batches)

    def complete(self, messages, tools, limits=None):
        if not self.batches:
            return ModelReply(content="done", usage=Usage(1, 1))
        batch = self.batches.pop(0)
        return ModelReply(
            tool_calls=[ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(batch)],
            usage=Usage(1, 1),
        )


def _snapshot(root):
    return {
        os.path.join(d, f): open(os.path.join(d, f), "rb").read()
        for d, _, files in os.walk(root, followlinks=False)
        for f in files
        if not os.path.islink(os.path.join(d, f))
    }


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(calls, min_size=1, max_size=3))
def test_malformed_calls_never_crash_nor_escape(tmp_path_factory, batches):
    base = tmp_path_factory.mktemp("case")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (outside / "outside.txt").write_text("keep")
    root = base / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "sub" / "b.txt").write_text("gamma\n")
    (root / "link_out").symlink_to(outside / "secret.txt")
    (root / "dirlink").symlink_to(outside)
    (root / "loop").symlink_to(root / "loop")
    before = _snapshot(outside)

    ctx = tool_context(root, "gradle")
    tools = file_tools(ctx) + web_tools(ctx)
    trajectory = Trajectory(None)
    result = ToolLoop(ListModel(batches), tools, Budget(max_calls=10)).run(trajectory, "sys", "first")

    assert result.stop_reason in {"model finished", "loop detected (the same call repeated)"}
    sent = sum(len(b) for b in batches)
    answered = [m for m in trajectory.messages if m["role"] == "tool"]
    assert len(answered) == sent if result.stop_reason == "model finished" else len(answered) <= sent
    assert all(isinstance(m["content"], str) for m in answered)
    assert _snapshot(outside) == before  # nothing outside the workspace changed
    assert sorted(os.listdir(base)) == ["outside", "ws"]  # nothing created next to it
    for message in answered:
        assert "secret" not in message["content"] or "secret.txt" in message["content"]
