"""Simplified mode, one error per example, as in the second study's simplified pipeline.

An instance whose build fails with several distinct errors becomes one example per error: the
instance's row with `error_index` (and `error`, the error's text, for reading). Its episode starts
from the instance's failing commit and warm build state like any other; the first message is the
repair loop's, focused on that error, with the fix memory's best candidate for it; the reward asks
that this error be gone from the verdict build (the whole build need not pass: the other errors are
other examples) and that the judge approve. What an example starts from (the error, its candidate)
is prepared once per process and reused by every reset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.agents.prompts import PIPELINE_SYSTEM, pipeline_message
from buildfixer.agents.repair_loop import offer, similar
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.remember import knowledge_for, memory_path
from buildfixer.memory.trust import instance_domain
from buildfixer.tools.build_support import format_build_output
from buildfixer.tools.context import ToolContext

MAX_ERRORS = 6  # as the repair loop: the errors past the sixth are rarely distinct failures
# (repository, commit, JDK, error index) -> (the error, the first messages)
_STARTS: dict[tuple[str, str, int | None, int], tuple[BuildError, list[dict[str, Any]]]] = {}


def distinct_errors(failure: BuildResult, limit: int = MAX_ERRORS) -> list[BuildError]:
    """The failure's errors, root first, each unlike the ones before it (the loop's `similar`)."""
    kept: list[BuildError] = []
    for error in failure.errors:
        if not any(similar(error, other) for other in kept):
            kept.append(error)
        if len(kept) == limit:
            break
    return kept


def examples_of(
    instance: dict[str, Any], failure: BuildResult, limit: int = MAX_ERRORS
) -> list[dict[str, Any]]:
    """One row per distinct error of the instance's failure (none when the log has no error)."""
    base = str(instance.get("instance_id") or "instance")
    return [
        {**instance, "error_index": index, "error": error.headline(), "example_id": f"{base}#e{index}"}
        for index, error in enumerate(distinct_errors(failure, limit))
    ]


def focused_start(
    ctx: ToolContext, failure: BuildResult, key: tuple[str, str, int | None], index: int,
    instance: dict[str, Any],
) -> tuple[BuildError, list[dict[str, Any]]]:  # fmt: skip
    """The example's error and first messages (system, the loop's message on that error)."""
    cached = _STARTS.get((*key, index))
    if cached is not None:
        return cached
    errors = distinct_errors(failure)
    if not 0 <= index < len(errors):
        raise BuildfixerError(
            f"error_index {index} is out of range: the failure has {len(errors)} distinct error(s)"
        )
    error = errors[index]
    candidate = None
    domain = instance_domain(key[0])  # the episode's repository, as a dataset names it
    memory = knowledge_for(memory_path(ctx.options.cache_dir), ctx.build_system, instance, domain=domain)
    if memory is not None:
        others = "\n".join(e.headline() for e in errors if e is not error)
        found = memory.candidates(error.headline(), error.category, limit=1, context=others)
        candidate = found[0] if found else None
    repo = Path(str(instance.get("repo") or ctx.root)).name.removesuffix(".bundle")
    view = format_build_output(ctx, failure, "condensed")
    first = pipeline_message(repo, error.headline(), view, offer(candidate, domain))
    start = (error, [{"role": "system", "content": PIPELINE_SYSTEM}, {"role": "user", "content": first}])
    _STARTS[(*key, index)] = start
    return start


def error_gone(error: BuildError, verdict: BuildResult) -> bool:
    """Whether the verdict build no longer shows the error (it passes, or fails on others)."""
    if verdict.status == "success":
        return True
    return bool(verdict.errors) and not any(similar(error, e) for e in verdict.errors)
