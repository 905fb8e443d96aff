"""Pin a JVM state's dynamic versions to the commit's date, into a synthetic commit.

Maven and Gradle coordinates are pinned, except ranges, `1.+`, `latest.release`, LATEST/RELEASE
and SNAPSHOTs, which resolve to whatever is newest when the build runs. A curated instance must
fail and build the same way years later, so such versions are rewritten to the release that was
newest at the date, and the rewritten tree becomes the state the instance records. A version that
cannot be dated (a SNAPSHOT, a repository without listings) rejects the candidate.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.curate.filters import Rejected
from buildfixer.curate.history import History
from buildfixer.deps.asof import find_dynamic_versions, pin_dynamic_versions
from buildfixer.deps.manage import confined_to
from buildfixer.workspace.workspace import Workspace

JVM_SYSTEMS = ("maven", "gradle")


def pin_state(history: History, source: str, sha: str, as_of: str, cache_dir: Path) -> str:
    """`sha` itself when nothing is dynamic, else a child commit with the versions of `as_of`.

    Raises:
        Rejected: (filter `reproducible`) a dynamic version cannot be dated.
    """
    ws = Workspace.acquire(source, sha, cache_dir=cache_dir)
    try:
        with confined_to(ws.root):  # the project's build files may link out of it
            if not find_dynamic_versions(ws.root):
                return sha
            report = pin_dynamic_versions(ws.root, as_of, cache_dir)
        if report.unpinnable:
            reasons = sorted({f"{d.group}:{d.artifact}:{d.spec} ({why})" for d, why in report.unpinnable})
            raise Rejected("reproducible", "; ".join(reasons)[:300])
        tree = ws.write_tree()
    finally:
        ws.reset()
        ws.release()
    pins = ", ".join(f"{d.artifact} {d.spec} -> {v}" for d, v in report.pinned)
    return history.commit_tree(tree, sha, f"buildfixer: dynamic versions as of {as_of}\n\n{pins}")
