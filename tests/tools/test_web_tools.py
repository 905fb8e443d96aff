"""search_google and ask_for_help, with and without backends."""

import json
import sys
from pathlib import Path

import pytest

from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.context import ToolContext
from buildfixer.tools.web import (
    NO_KNOWLEDGE,
    NO_SEARCH,
    CommandSearchProvider,
    DirectoryKnowledgeBase,
    knowledge_from_env,
    search_from_env,
    web_tools,
)
from support.tools import tool_context, tools_by_name


def tools(ctx: ToolContext) -> dict[str, Tool]:
    return tools_by_name(ctx, web_tools)


def test_without_backends_the_answer_is_plain(tmp_path: Path) -> None:
    found = tools(tool_context(tmp_path, "gradle"))
    assert found["search_google"].call({"query": "gradle 4.4 java 17"}) == NO_SEARCH
    assert "web search is unavailable in this run" in NO_SEARCH
    assert found["ask_for_help"].call({"question": "how?"}) == NO_KNOWLEDGE
    with pytest.raises(ToolError, match="empty"):
        found["search_google"].call({"query": "  "})


class FixedSearch:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def search(self, query: str) -> str:
        self.queries.append(query)
        return f"results for {query}"


def test_backends_from_the_context(tmp_path: Path) -> None:
    search = FixedSearch()
    found = tools(tool_context(tmp_path, "maven", search=search, knowledge=DirectoryKnowledgeBase(tmp_path)))
    assert found["search_google"].call({"query": "mvn error"}) == "results for mvn error"
    assert search.queries == ["mvn error"]
    assert "nothing that matches" in found["ask_for_help"].call({"question": "anything"})


def test_command_search_provider(tmp_path: Path) -> None:
    script = tmp_path / "search.py"
    script.write_text("import sys\nprint('found:', sys.argv[-1])\n")
    provider = CommandSearchProvider(f"{sys.executable} {script}")
    assert provider.search("a b; c") == "found: a b; c"  # one argument, never a shell
    failing = CommandSearchProvider([sys.executable, "-c", "import sys; sys.exit('quota exceeded')"])
    with pytest.raises(ToolError, match="quota exceeded"):
        failing.search("x")
    slow = CommandSearchProvider([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.5)
    with pytest.raises(ToolError, match="did not answer"):
        slow.search("x")
    long = CommandSearchProvider([sys.executable, "-c", "print('x' * 50000)"], limit=1000)
    assert len(long.search("q")) < 1200


def test_directory_knowledge_base_ranks_by_overlap(tmp_path: Path) -> None:
    (tmp_path / "gradle-java17.md").write_text(
        "Gradle 4.4 cannot run on Java 17: Could not determine java version from 17.0.2. "
        "Fix: upgrade the Gradle wrapper to 7.3 or newer."
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "npm.txt").write_text(
        "npm ERR! No matching version found for typescript: pin a version"
    )
    (tmp_path / "maven.json").write_text(
        json.dumps({"error": "release version 21 not supported", "fix": "JDK 21"})
    )
    (tmp_path / "ignored.py").write_text("gradle java version 17 upgrade wrapper")
    kb = DirectoryKnowledgeBase(tmp_path)
    answer = kb.answer("Could not determine java version from 17.0.2 with Gradle 4.4")
    assert answer.index("gradle-java17.md") < answer.index("maven.json")
    assert "ignored.py" not in answer
    assert answer == kb.answer(
        "Could not determine java version from 17.0.2 with Gradle 4.4"
    )  # deterministic
    npm_answer = kb.answer("No matching version found for typescript")
    assert npm_answer.splitlines()[2].startswith("## sub/npm.txt")
    assert answer.count("## ") <= 3


def test_backends_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUILDFIXER_SEARCH_CMD", raising=False)
    monkeypatch.delenv("BUILDFIXER_KNOWLEDGE_DIR", raising=False)
    assert search_from_env() is None and knowledge_from_env() is None
    monkeypatch.setenv("BUILDFIXER_SEARCH_CMD", "echo searched")
    monkeypatch.setenv("BUILDFIXER_KNOWLEDGE_DIR", str(tmp_path))
    provider = search_from_env()
    assert provider is not None and provider.search("q") == "searched -- q"
    assert isinstance(knowledge_from_env(), DirectoryKnowledgeBase)
    monkeypatch.setenv("BUILDFIXER_KNOWLEDGE_DIR", str(tmp_path / "missing"))
    assert knowledge_from_env() is None
