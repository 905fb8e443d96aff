"""Running one tool call the way every agent does: a model's mistake becomes an error text, never a crash.

A call may run under a deadline (the attempt's time budget). It then runs on a worker thread and
the caller stops waiting when the deadline passes: the call comes back as an error result, and
the loop ends the attempt with the time-budget stop. Python cannot stop a
thread, so the abandoned call runs on in its daemon thread until it returns by itself: file tools
are bounded (linear-time patterns, size caps), and tools that run processes have their own
limits (the build runner's and the shell's timeouts kill the process group). The worker is never
reused; it does not keep the interpreter from exiting.

Workers are kept in a small pool so the normal path costs a queue hand-off (tens of
microseconds), not a new thread per call; without a deadline the call runs on the caller's
thread, as before.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from buildfixer.agents.trajectory import ToolResult
from buildfixer.llm.redact import redact
from buildfixer.tools.base import Tool, ToolError


@dataclass
class _Job:
    """One call handed to a worker, and what came of it."""

    run: Callable[[], str]
    done: threading.Event = field(default_factory=threading.Event)
    output: str = ""
    error: BaseException | None = None


class _Worker:
    """A daemon thread running the jobs put in its queue, one at a time."""

    def __init__(self) -> None:
        """Start the thread."""
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="buildfixer-tool", daemon=True).start()

    def _serve(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                job.output = job.run()
            except BaseException as exc:  # handed to the caller, who re-raises it
                job.error = exc
            finally:
                job.done.set()


_idle: list[_Worker] = []
_idle_lock = threading.Lock()


class Overrun(Exception):
    """The call did not finish before its deadline (it goes on in an abandoned thread)."""


def call_before(run: Callable[[], str], deadline: float) -> str:
    """`run()` on a pooled worker; Overrun when `deadline` (time.monotonic) passes first.

    Exceptions of `run` are raised here, in the caller's thread.
    """
    with _idle_lock:
        worker = _idle.pop() if _idle else None
    worker = worker or _Worker()
    job = _Job(run)
    worker.jobs.put(job)
    if not job.done.wait(max(0.0, deadline - time.monotonic())):
        raise Overrun  # the worker stays busy with the call: it is dropped, not pooled again
    with _idle_lock:
        _idle.append(worker)
    if job.error is not None:
        raise job.error
    return job.output


def execute_call(
    tools: Mapping[str, Tool],
    call_id: str,
    name: str,
    arguments: str | dict[str, Any],
    deadline: float | None = None,
) -> ToolResult:
    """Run `name(arguments)`; an unknown tool, a ToolError or an overrun comes back as an error result.

    Only ToolError is caught: anything else is a bug of ours and fails the attempt loudly.
    `deadline` (time.monotonic) bounds the wait for the tool (see the module docstring).
    """
    began = time.monotonic()
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(tools) or "none"
        output, failed = f"Error: unknown tool {name!r}. Available tools: {known}", True
    else:
        try:
            if deadline is None:
                output = tool.call(arguments)
            else:
                output = call_before(lambda: tool.call(arguments), deadline)
            failed = False
        except ToolError as exc:
            output, failed = f"Error: {exc}", True
        except Overrun:
            output = (
                f"Error: {name} did not finish before the attempt's time budget ran out (stopped "
                f"waiting after {time.monotonic() - began:.1f}s); the attempt ends here"
            )
            failed = True
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    # What a tool read (a project's .env, a log) goes to the model: secrets never do.
    return ToolResult(call_id, name, text, redact(output), failed, time.monotonic() - began)
