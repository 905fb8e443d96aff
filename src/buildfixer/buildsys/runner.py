"""Run build commands with a timeout, a full log file and no stray processes.

Output goes straight from the child to the log file (stdout and stderr merged, as
a user sees them), so a 10 MB Gradle log costs Python nothing while it runs.

Every process we start carries `BUILDFIXER_OWNER=<token>` in its environment.
Gradle daemons leave the process group (they call setsid), so a `killpg` alone
would leave them running; they do inherit the environment though, which lets
`kill_owned` find and stop everything a build started. A sandboxed build needs
neither: its PID namespace (a one-command sandbox, or a `SandboxSession` that a
timeout ends) takes every process with it, a detached one that dropped the tag too.

Logs are created mode 0600: a build's output can hold what only its owner may read.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from buildfixer.buildsys.activity import OWNER_VAR, StallWatch, owned_pids
from buildfixer.buildsys.sandbox.limits import sandbox_limits
from buildfixer.buildsys.sandbox.session import Session

_GRACE_S = 3.0


@dataclass
class BuildStep:
    """One command of a build, run in `cwd` (the project directory when None)."""

    argv: list[str]
    cwd: Path | None = None
    # Print this instead of the argv in the log header (e.g. to hide long paths).
    label: str | None = None
    # Warm-state stamps (file -> content) to write once this step has succeeded.
    stamps: dict[Path, str] = field(default_factory=dict)
    # Variables set for this step only, on top of the build's environment (an empty value is kept).
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    """What running the steps produced."""

    exit_code: int
    duration_s: float
    timed_out: bool
    log_path: Path
    failed_step: list[str] | None = None
    steps_run: list[list[str]] = field(default_factory=list)
    # The sandbox limit (a buildsys.sandbox.limits.Limits field) the failing step reached, if any.
    limit: str | None = None
    # The step printed nothing and used no CPU for `stall_s` and was stopped (also `timed_out`).
    stalled: bool = False

    @property
    def failed(self) -> bool:
        """A step failed or the run timed out."""
        return self.timed_out or self.exit_code != 0


def run_steps(
    steps: Sequence[BuildStep],
    *,
    cwd: Path,
    env: dict[str, str],
    log_path: Path,
    timeout_s: float,
    owner: str,
    session: Session | None = None,
    stall_s: float | None = None,
) -> RunResult:
    """Run steps in order until one fails or the overall timeout expires.

    The log file receives a `$ command` header per step followed by its output.
    On timeout the whole process group and every process tagged with `owner` are killed
    (with a `session`, the steps run inside it and a timeout ends the session). A step that
    prints nothing and uses no CPU for `stall_s` is stopped the same way (buildsys.activity).
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = {**env, OWNER_VAR: owner}
    start = time.monotonic()
    deadline = start + timeout_s
    result = RunResult(exit_code=0, duration_s=0.0, timed_out=False, log_path=log_path)
    with open_private(log_path) as log:
        for step in steps:
            shown = [
                *(f"{name}={value}" for name, value in step.env.items()),
                step.label or " ".join(step.argv),
            ]
            log.write(f"$ {' '.join(shown)}\n".encode())
            log.flush()
            result.steps_run.append(step.argv)
            if session is not None:
                remaining = deadline - time.monotonic()
                code, timed_out = session.run(
                    step.argv, step.cwd or cwd, {**env, **step.env}, log.fileno(), remaining, stall_s
                )
                result.stalled = session.stalled
                if timed_out:
                    kill_owned(owner)
                if session.limit_hit and code != 0:
                    result.limit = session.limit_hit
                    note = sandbox_limits().describe(session.limit_hit)
                    log.write(f"\n[buildfixer] stopped: the sandbox reached its limit of {note}\n".encode())
            else:
                code, timed_out, result.stalled = _run_one(step, cwd, env, log, deadline, owner, stall_s)
            if result.stalled:
                quiet = f"no output and no CPU for {stall_s:.0f}s"
                log.write(f"\n[buildfixer] stalled: {quiet}: stopped the build\n".encode())
                result.exit_code, result.timed_out, result.failed_step = -1, True, step.argv
                break
            if timed_out:
                log.write(f"\n[buildfixer] timeout after {timeout_s:.0f}s: killed the build\n".encode())
                result.exit_code, result.timed_out, result.failed_step = -1, True, step.argv
                break
            if code != 0:
                result.exit_code, result.failed_step = code, step.argv
                break
    result.duration_s = time.monotonic() - start
    return result


def open_private(path: Path) -> BinaryIO:
    """Open a file for writing (truncated) that only its owner can read, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode on open
    return os.fdopen(fd, "wb")


def _run_one(
    step: BuildStep, cwd: Path, env: dict[str, str], log: BinaryIO, deadline: float, owner: str,
    stall_s: float | None,
) -> tuple[int, bool, bool]:  # fmt: skip
    """Run one step on the host; (exit code, timed out, stalled)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return -1, True, False
    try:
        proc = subprocess.Popen(
            step.argv,
            cwd=step.cwd or cwd,
            env={**env, **step.env},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: killpg reaches every child
        )
    except OSError as exc:  # command not found, not executable
        log.write(f"[buildfixer] cannot run {step.argv[0]}: {exc.strerror}\n".encode())
        return 127, False, False
    # A watcher thread enforces the deadline (and notices a stall) so that the wait itself can
    # block: Popen.wait(timeout=...) polls with sleeps of up to 50 ms, which would add that much
    # to every build.
    done, expired = threading.Event(), threading.Event()
    watch = StallWatch(log.fileno(), owner, stall_s) if stall_s else None
    stalled = False

    def watcher() -> None:
        nonlocal stalled
        while not done.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
            stalled = bool(watch and watch.stalled())
            if time.monotonic() >= deadline or stalled:
                expired.set()
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGTERM)
                kill_owned(owner)  # every child carries the owner tag, daemons included
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                return

    thread = threading.Thread(target=watcher, daemon=True)
    thread.start()
    try:
        code = proc.wait()
    except BaseException:  # KeyboardInterrupt: never leave the build behind
        kill_group(proc)
        kill_owned(owner)
        raise
    finally:
        done.set()
    if expired.is_set():
        thread.join()  # the kill sequence finishes before we report
        return -1, not stalled, stalled
    return code, False, False


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, then SIGKILL what is left after a grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=_GRACE_S)
            # The leader is gone; members of its group may linger: finish them.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue


def kill_owned(owner: str, grace_s: float = _GRACE_S) -> int:
    """Terminate every process tagged with `owner`; returns how many there were."""
    pids = owned_pids(owner)
    count = len(pids)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace_s
    while pids and time.monotonic() < end:
        pids = [p for p in pids if _alive(p)]
        time.sleep(0.05)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return count


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().split(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        return False


def read_tail(log_path: Path, max_bytes: int = 64_000) -> str:
    """The last `max_bytes` of a log, decoded leniently (captured output is capped)."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > max_bytes:
        text = "[... earlier output in the log file ...]\n" + text.split("\n", 1)[-1]
    return text
