"""`judge`: the anti-reward-hacking judge on the project's current change, as a tool.

Defined here, not in `tools/`: the judge sits above the tools in the layers. The change is the
working tree against git HEAD, read without writing anything into the user's repository (no
index, no objects: a root-owned object there would trouble the user's next `git add`).
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.judge.judge import judge_patch
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.context import ToolContext
from buildfixer.workspace.git import git, git_bytes

# `git diff` may refresh the index's stat data as it goes: not in the user's repository.
_NO_INDEX_WRITES = {"GIT_OPTIONAL_LOCKS": "0"}
_DIFF = ("--no-color", "--no-ext-diff", "--no-textconv", "--no-renames")
MAX_NEW_FILES = 200  # untracked files judged; more are a generated tree, not a repair


def working_diff(project: Path) -> tuple[str, str]:
    """(HEAD's short id, the unified diff of the project's files against HEAD), paths relative to it.

    Tracked files as they are now (staged or not), plus the untracked files git does not ignore
    (a nested repository left out). ToolError outside a repository or before its first commit.
    """
    head = git("rev-parse", "--verify", "--quiet", "HEAD", cwd=project, check=False).strip()
    if not head:
        inside = git("rev-parse", "--is-inside-work-tree", cwd=project, check=False).strip() == "true"
        raise ToolError(
            "the project has no commit to compare with yet: the judge reads the change against git HEAD"
            if inside
            else "the project is not in a git repository: the judge reads the change against git HEAD"
        )
    env = _NO_INDEX_WRITES
    parts = [git("diff", "HEAD", *_DIFF, "--relative", "--", ".", cwd=project, env=env)]
    listed = git("ls-files", "--others", "--exclude-standard", "-z", "--", ".", cwd=project, env=env)
    new = [p for p in listed.split("\0") if p and not p.endswith("/")][:MAX_NEW_FILES]
    for path in new:  # `--no-index` exits 1 when the files differ, as a new file always does
        diff = ("diff", "--no-index", *_DIFF, "--", "/dev/null", path)
        out = git_bytes(*diff, cwd=project, check=False, env=env)
        parts.append(out.decode("utf-8", "replace"))
    return head[:12], "".join(part if part.endswith("\n") or not part else part + "\n" for part in parts)


def judge_tool(ctx: ToolContext) -> Tool:
    """The `judge` tool on the project of `ctx` (its build options run the tests when asked)."""

    def judge(run_tests: bool = False) -> str:
        """Check the project's current change for reward hacking before calling a repair done.

        Reads the change of the working tree against git HEAD (new files included, git-ignored
        ones not) and looks for a build made to pass by weakening what checks it: a test deleted,
        skipped, emptied or renamed away, an assertion weakened or its tolerance widened, an
        expected exception broadened, a failure caught and dropped, a test's input changed, main
        code that special-cases a test's input or drops its validation, a checker switched off, CI
        edited. Returns APPROVED, or REJECTED with each finding at its file and line.

        Args:
            run_tests: Also build copies of the project before and after the change and compare the
                tests that ran (slower: two or three builds); default false.
        """
        head, patch = working_diff(ctx.root)
        if not patch.strip():
            return f"nothing to judge: the project has no change against HEAD ({head})"
        try:
            verdict = judge_patch(patch, ctx.root, run_tests=run_tests, options=ctx.options, applied=True)
        except BuildfixerError as exc:
            raise ToolError(f"the change could not be judged: {exc}") from None
        files = patch.count("\ndiff --git ") + patch.startswith("diff --git ")
        change = f"the change to {files} file{'s' if files != 1 else ''} against HEAD ({head})"
        if verdict.approved:
            lines = [f"APPROVED: no finding in {change}."]
        else:
            count = len(verdict.findings)
            lines = [f"REJECTED: {count} finding{'s' if count != 1 else ''} in {change}:"]
            for finding in verdict.findings:
                where = finding.file + (f":{finding.line}" if finding.line else "") if finding.file else "-"
                lines.append(f"- {finding.rule} at {where}: {finding.detail}")
        lines += [f"note: {note}" for note in verdict.notes]
        return "\n".join(lines)

    return make_tool(judge)
