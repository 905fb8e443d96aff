"""Outside help: `search_google` (first study) and `ask_for_help` (second study).

The backends are pluggable (`ctx.search`, `ctx.knowledge`). Two simple ones come with buildfixer:

- `CommandSearchProvider`: runs a user-given command with `--` and then the query as its last two
  arguments and returns its output (`BUILDFIXER_SEARCH_CMD`, e.g. a script calling a search API).
- `DirectoryKnowledgeBase`: notes of past fixes (`*.md`, `*.txt`, `*.json`) in a directory
  (`BUILDFIXER_KNOWLEDGE_DIR`), the three sharing most words with the question returned.

Without a backend the tools say plainly that the service is unavailable in this run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from buildfixer.tools.base import Tool, ToolError, cap_output, make_tool
from buildfixer.tools.context import KnowledgeBase, SearchProvider, ToolContext
from buildfixer.tools.examples import examples_for, fill

NO_SEARCH = (
    "no search provider configured: web search is unavailable in this run; rely on the build output "
    "and the project files"
)
NO_KNOWLEDGE = (
    "no knowledge base configured: help is unavailable in this run; rely on the build output and the "
    "project files"
)
SEARCH_LIMIT = 8_000
SEARCH_COMMAND_VARIABLE = "BUILDFIXER_SEARCH_CMD"
_NOTE_SUFFIXES = (".md", ".txt", ".json")
_MAX_NOTES = 5_000
_MAX_NOTE_CHARS = 3_000
_WORD = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be but by can do does for from has have how i in is it its my not of on or "
        "so that the this to was what when where which why will with you your",
    )
)


class CommandSearchProvider:
    """Web search through a command: `<cmd...> -- <query>`, its standard output being the findings.

    The model writes the query: the `--` before it ends the command's options, so a query starting
    with `-` is never read as one (a command that parses no options sees `--` as an argument).
    """

    def __init__(self, command: str | list[str], timeout_s: float = 60.0, limit: int = SEARCH_LIMIT) -> None:
        """Configure the command (a string is split like a shell would), its timeout and output cap."""
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty search command")
        self.timeout_s = timeout_s
        self.limit = limit

    def search(self, query: str) -> str:
        """The command's output for the query; ToolError when it fails or times out."""
        try:
            proc = subprocess.run(
                [*self.argv, "--", query],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=self.timeout_s,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ToolError(
                f"the search did not answer within {self.timeout_s:g}s; try again or go on without it"
            ) from None
        except OSError as exc:
            raise ToolError(f"the search command cannot run ({exc.strerror or exc})") from None
        if proc.returncode != 0:
            detail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
            raise ToolError(f"the search failed: {detail[:300]}")
        found = cap_output(proc.stdout.strip(), self.limit, "search for something narrower")
        return found or f"no results for {query!r}"


def _words(text: str) -> set[str]:
    """Lower-case words and dotted names (`org.apache.commons`) plus their parts, without stopwords."""
    found: set[str] = set()
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        found.add(word)
        found.update(re.split(r"[._-]", word))
    return {w for w in found if len(w) > 1 and w not in _STOPWORDS}


class DirectoryKnowledgeBase:
    """Notes of past fixes in a directory, found by word overlap with the question (deterministic)."""

    def __init__(self, path: str | Path, top: int = 3) -> None:
        """Read the notes under `path` lazily, on the first question."""
        self.path = Path(path).expanduser()
        self.top = top
        self._notes: list[tuple[str, str, set[str]]] | None = None

    def notes(self) -> list[tuple[str, str, set[str]]]:
        """(relative path, text, words) of every note, in path order."""
        if self._notes is None:
            notes = []
            files = sorted(
                p for p in self.path.rglob("*") if p.suffix.lower() in _NOTE_SUFFIXES and p.is_file()
            )
            for file in files[:_MAX_NOTES]:
                try:
                    text = file.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                notes.append((str(file.relative_to(self.path)), text, _words(text)))
            self._notes = notes
        return self._notes

    def answer(self, question: str) -> str:
        """The notes sharing most words with the question, best first (ties by path)."""
        asked = _words(question)
        notes = self.notes()
        scored = sorted(
            ((len(asked & words), name, text) for name, text, words in notes),
            key=lambda item: (-item[0], item[1]),
        )
        best = [item for item in scored if item[0] > 0][: self.top]
        if not best:
            return f"the knowledge base ({len(notes)} notes) has nothing that matches the question"
        parts = [
            f"## {name} ({score} matching words)\n{cap_output(text.strip(), _MAX_NOTE_CHARS)}"
            for score, name, text in best
        ]
        return f"{len(best)} related note(s) from past fixes:\n\n" + "\n\n".join(parts)


def search_from_env() -> SearchProvider | None:
    """A CommandSearchProvider when `BUILDFIXER_SEARCH_CMD` is set, else None."""
    command = os.environ.get(SEARCH_COMMAND_VARIABLE, "").strip()
    return CommandSearchProvider(command) if command else None


def knowledge_from_env() -> KnowledgeBase | None:
    """A DirectoryKnowledgeBase when `BUILDFIXER_KNOWLEDGE_DIR` names a directory, else None."""
    directory = os.environ.get("BUILDFIXER_KNOWLEDGE_DIR", "").strip()
    return DirectoryKnowledgeBase(directory) if directory and Path(directory).expanduser().is_dir() else None


def web_tools(ctx: ToolContext) -> list[Tool]:
    """`search_google` and `ask_for_help`, answered by the context's backends when configured."""

    def search_google(query: str) -> str:
        """Search the web and return what the top results say (titles, snippets or a summary).

        Useful for error messages you do not recognise, for which versions of a library exist and
        go together, and for how others fixed the same failure. Search for the distinctive part of
        an error message together with the tool's name.

        Args:
            query: The search query, e.g. {query}.
        """
        if not query.strip():
            raise ToolError("the query is empty")
        return ctx.search.search(query) if ctx.search is not None else NO_SEARCH

    def ask_for_help(question: str) -> str:
        """Ask the team's knowledge base of past build fixes for help with a problem.

        Returns notes on how similar failures were fixed before. Ask about one problem at a time
        and include the exact error message, the build tool and the library or plugin involved.

        Args:
            question: The problem, e.g. {question}.
        """
        if not question.strip():
            raise ToolError("the question is empty")
        return ctx.knowledge.answer(question) if ctx.knowledge is not None else NO_KNOWLEDGE

    examples = examples_for(ctx.build_system)
    tools = [make_tool(search_google, more="search for something narrower"), make_tool(ask_for_help)]
    return [fill(tool, examples) for tool in tools]
