"""The builds of an attempt, each with its log and the root error marked at its line.

An attempt builds at least twice: the harness's first build (the failure the agent is shown), the
builds the agent asks for through its tools, and the harness's verdict build. The harness's logs
live in a cache outside the run directory and may be gone; then the instance's recorded error log,
or the build tools' own output in the conversation, stands in for them.

A run directory is data, maybe someone else's, and its trajectories name the log files: a file is
read only when it is a regular file, reached through no symlink, inside the run directory or in a
build-log folder of buildfixer's own cache (`<cache>/state/<project>/logs`, see
buildsys.project). Anything else is "not available", never copied into a bundle nor served.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root, file_within
from buildfixer.logs.text import read_log
from buildfixer.view.texts import marked_log

# Tools whose output is a build's log. Any other tool whose output starts with a build's
# status line (`BUILD FAILED (exit 1) in ...`, see tools.build_support.status_line) is one too.
BUILD_TOOLS = frozenset({"run_build", "validate_and_build", "run_gradle_command"})
_STATUS = ("BUILD SUCCESSFUL", "BUILD FAILED", "BUILD TIMED OUT", "BUILD COULD NOT START")


def _log_file(path: Any, run_dir: Path | None) -> str | None:
    """The text of a harness build log, or None when it is gone (caches are pruned) or not readable.

    Readable: a `.log` the run directory holds (when there is one), or one in a build-log folder of the cache,
    `<cache>/state/<project>/logs/<name>.log`; never a file elsewhere, a symlink, a FIFO
    (`core.paths.file_within`).
    """
    if not isinstance(path, str) or not path.endswith(".log"):
        return None
    found = file_within(run_dir, path) if run_dir is not None else None
    if found is None:
        state = cache_root() / "state"
        found = file_within(state, path)
        if found is None or found.relative_to(state.resolve()).parts[1:-1] != ("logs",):
            return None
    try:
        return read_log(found, strict=False)  # a huge log is read as its head and tail only
    except BuildfixerError:
        return None


def _is_build(result: dict[str, Any]) -> bool:
    output = result.get("output")
    return result.get("name") in BUILD_TOOLS or (isinstance(output, str) and output.startswith(_STATUS))


def _call_label(result: dict[str, Any]) -> str:
    arguments = result.get("arguments")
    shown = "" if arguments in (None, "", "{}") else str(arguments)
    return f"{result.get('name')}({shown[:200]})"


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0][:300]


def builds(
    trajectory: dict[str, Any], instance: dict[str, Any], run_dir: Path | None
) -> list[dict[str, Any]]:
    """Every build of an attempt, in order: the harness's first build, the agent's, the verdict build.

    A build the agent ran through a tool refers to its tool call (`call_id`) instead of repeating
    the output, which the conversation already holds; the page takes the text from there.

    Args:
        trajectory: The attempt's trajectory document (empty when it is missing).
        instance: The instance's dataset row (empty when unknown).
        run_dir: The run directory (a log is read only from there or buildfixer's cache, see above);
            None for a trajectory file, whose folder is no run's: then only from the cache.

    Returns:
        Dicts with `label`, `status`, `source`, and `text`/`root`/`mark` (see `marked_log`).
    """
    meta = trajectory.get("meta") or {}
    initial = meta.get("initial") or {}
    out: list[dict[str, Any]] = []
    first = _log_file(initial.get("log_path"), run_dir)
    recorded = initial.get("top_error") if isinstance(initial.get("top_error"), dict) else None
    if first is not None:
        log = marked_log(first, f"harness log {initial.get('log_path')}", recorded)
    else:
        log = marked_log(str(instance.get("error_log") or ""), "the instance's recorded error log "
                         "(harness log not available: gone, or not a log file of this run or of "
                         "buildfixer's cache)", recorded)  # fmt: skip
    out.append({"label": "first build (before the agent)", "status": initial.get("status"), **log})
    for step in trajectory.get("steps") or []:
        for result in step.get("tool_results") or []:
            if not isinstance(result, dict) or not _is_build(result):
                continue
            log = marked_log(str(result.get("output") or ""), f"output of tool call {result.get('id')}")
            status = _first_line(log["text"])
            del log["text"]  # the conversation holds it (see call_id)
            out.append({"label": f"step {step.get('index')}: {_call_label(result)}", "status": status,
                        "call_id": result.get("id"), "step": step.get("index"), **log})  # fmt: skip
    verdict = trajectory.get("verdict") or {}
    if verdict:
        last = _log_file(verdict.get("log_path"), run_dir)
        recorded = verdict.get("top_error") if isinstance(verdict.get("top_error"), dict) else None
        if last is not None:
            log = marked_log(last, f"harness log {verdict.get('log_path')}", recorded)
        else:
            note = (
                "log not available (gone, or not a log file of this run or of buildfixer's cache); "
                "the agent's builds above show the output"
            )
            log = {"source": note, "text": "", "root": recorded, "mark": None, "errors": 0}
        out.append({"label": "verdict build (the harness's own)", "status": verdict.get("status"), **log})
    return out
