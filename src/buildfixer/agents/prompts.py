"""The agent's prompts: a Gemini-CLI-style system prompt and the study's first message.

The first message carries what the study gave its agents: the project's full path, its
directory tree, and the current build error.
"""

from __future__ import annotations

import os
from pathlib import Path

SYSTEM_PROMPT = """\
You are an interactive command-line agent that specializes in software engineering tasks. Your \
job now is to make the project's build succeed, using only the tools you are given.

# Core mandates
- Follow the project's conventions: look at surrounding code, build files and configuration before \
changing anything, and make changes that fit in.
- Never assume a library, plugin or version is available: check how the project declares its \
dependencies and what the build output says.
- Keep changes minimal and focused on the build failure. Do not delete or disable tests, checks or \
validation to make the build pass; fix the cause.
- Read a file before you edit it; edits must match the file's text exactly.
- Paths are relative to the project root unless they are absolute paths inside it.

# Workflow
1. Understand: read the error, then find and read the files it points at.
2. Plan: decide the smallest change that fixes the cause.
3. Implement: edit with the tools.
4. Verify: build again (when a build tool is available) and read the new output; a fix can reveal \
the next error. Repeat until the build succeeds.
5. When the build succeeds, or you cannot make progress, stop calling tools and say briefly what \
you changed.

Be concise: no long explanations between tool calls.{guidance}
"""

_GUIDANCE_HEADER = "\n\n# Tool usage guidance\n"

FIRST_MESSAGE = """\
** Current project full path. **
=====
{path}

**Directory tree:**
=====
{tree}

** Current State (Build Error):**
=====
{error}
"""

_SKIP_DIRS = {
    ".git", ".gradle", ".idea", "build", "target", "node_modules", "__pycache__", ".venv", "venv",
    "dist", ".pytest_cache", ".mypy_cache", ".tox", ".cxx", ".externalNativeBuild",
}  # fmt: skip


def system_prompt(guidance: str | None = None) -> str:
    """The system prompt, with the tool usage guidance appended for that prompt variant."""
    return SYSTEM_PROMPT.format(guidance=_GUIDANCE_HEADER + guidance.strip() if guidance else "")


def first_message(root: Path, error: str, max_entries: int = 300) -> str:
    """The study's first message: full path, directory tree, current build error."""
    return FIRST_MESSAGE.format(path=root, tree=directory_tree(root, max_entries), error=error.strip())


def directory_tree(root: Path, max_entries: int = 300) -> str:
    """An indented tree of the project (build outputs and VCS folders left out), capped in size."""
    lines: list[str] = []
    omitted = 0
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not os.path.islink(Path(current, d)))
        depth = len(Path(current).relative_to(root).parts)
        if depth:
            if len(lines) >= max_entries:
                omitted += 1 + len(files)
                continue
            lines.append(f"{'  ' * (depth - 1)}{Path(current).name}/")
        for name in sorted(files):
            if len(lines) >= max_entries:
                omitted += 1
                continue
            lines.append(f"{'  ' * depth}{name}")
    if omitted:
        lines.append(f"... ({omitted} more entries not shown)")
    return "\n".join(lines)


PIPELINE_SYSTEM = """\
You repair one build error at a time in a software repository, as one step of an automated repair \
loop. You get the error, the repository's name, and often a fix that worked for a similar error \
before; it may not fit this repository as it is, so adapt it rather than copy it blindly.

# Tools
Read and search the repository (read_file, find_files, find_files_with_text), change declared \
dependencies (dependency_upgrade, remove_dependency) or, on Gradle projects, the Gradle wrapper \
(upgrade_gradle), ask the fix memory for more past fixes (ask_for_help), run a shell command \
(run_sh), write whole files (write_file: the complete new content, never a fragment) and build \
(validate_and_build).

# Rules
- Fix the cause of the error. Never delete, disable, skip or weaken tests, assertions, linters or \
other validation, and never edit CI configuration: such a change is rejected and discarded.
- Keep the change as small as the fix allows and in the style of the surrounding code.
- Build with validate_and_build after your change. When the build succeeds, or when a different \
error remains that is not the one you were given, stop calling tools and say in one or two \
sentences what you changed.
"""

PIPELINE_FIRST = """\
Repository: {repo}

# The error to fix
{error}

# The build's errors (analysed)
{build}

# {candidate_title}
{candidate}
"""


def pipeline_message(repo: str, error: str, build: str, candidate: str | None) -> str:
    """The repair loop's first message: repository, selected error, the build, a remembered fix."""
    title = "A fix that worked for a similar error before" if candidate else "Past fixes"
    return PIPELINE_FIRST.format(
        repo=repo, error=error.strip(), build=build.strip(), candidate_title=title,
        candidate=(candidate or "The fix memory has no fix for a similar error.").strip(),
    )  # fmt: skip
