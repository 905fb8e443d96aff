"""`buildfixer bench run`: every (instance, sample) attempt in a fresh workspace, resumable, in parallel.

Each attempt runs in its own worker process (bench.worker) under a hard timeout. Results are
appended to `results.jsonl` one complete line at a time under a lock, so a run killed at any
moment (Ctrl-C, kill -9) is resumed by running the same command again: attempts with a line are
skipped, nothing is duplicated. A line a rerun cannot use (torn by a kill, edited, missing a
field) is set aside and its attempt run again (bench.resume); one run at a time holds the
directory (bench.runlock), so two runs never do the same attempt twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from buildfixer.bench.executor import BACKENDS, execute
from buildfixer.bench.resume import parse_results, set_aside_rejected
from buildfixer.bench.rundir import write_atomic
from buildfixer.bench.runlock import LOCK_FILE, RunLock
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.core.stops import INFRASTRUCTURE, Stop, StopKind
from buildfixer.harness.checks import MAX_SECONDS, check_output_path
from buildfixer.harness.config import AttemptConfig

MAX_SAMPLES = 1000  # attempts per instance: pass@k beyond this is a typo, and the list would not fit
MAX_WORKERS = 256

RESULTS = "results.jsonl"
RUN_MEMORY = "memory.sqlite3"  # a run's own fix memory, in its directory (see RunConfig.memory)
_log = logging.getLogger(__name__)


class RunConfig(BaseModel):
    """What a run compares; a rerun into the same directory must use the same configuration.

    Attributes:
        attempt: The attempt every (instance, sample) gets: agent, model, toolset, budget, model
            settings. Its build options are the template of each instance's (JDK and tasks come
            from the instance).
        samples: Attempts per instance (for pass@k).
        workers: Attempts at once (None: one per two cores).
        attempt_timeout_s: Hard limit of one attempt; the worker is killed after it.
        build_timeout_s: Limit of each build inside an attempt.
        backend: "local" (worker processes here) or "ray".
        memory: The fix memory the attempts read and write; None: `memory.sqlite3` in the run
            directory (`run_memory`), so a run on a dataset never writes to the memory `fix` reads.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    attempt: AttemptConfig
    samples: int = Field(default=1, ge=1, le=MAX_SAMPLES, strict=True)
    workers: int | None = Field(default=None, ge=1, le=MAX_WORKERS, strict=True)
    attempt_timeout_s: float = Field(default=3600.0, gt=0, le=MAX_SECONDS)
    build_timeout_s: float = Field(default=900.0, gt=0, le=MAX_SECONDS)
    backend: str = "local"
    memory: Path | None = None

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        if value not in BACKENDS:
            raise ValueError(f"unknown backend {value!r} (known: {', '.join(BACKENDS)})")
        return value

    @property
    def agent(self) -> str:
        """The agent run (a shorthand used in labels and result lines)."""
        return self.attempt.agent_name()

    def describe(self) -> dict[str, Any]:
        """The effective configuration, as written to config.json."""
        return {
            "agent": self.agent, "model": self.attempt.model, "toolset": self.attempt.toolset,
            "mask": self.attempt.mask, "attempt": self.attempt.describe(), "samples": self.samples,
            "workers": self.workers, "attempt_timeout_s": self.attempt_timeout_s,
            "build_timeout_s": self.build_timeout_s, "backend": self.backend,
            **({"memory": str(self.memory)} if self.memory is not None else {}),
        }  # fmt: skip

    def run_memory(self, out: Path) -> Path:
        """The fix memory of a run into `out`: the one named, else the run directory's own."""
        return self.memory if self.memory is not None else out / RUN_MEMORY

    def comparable(self) -> dict[str, Any]:
        """What defines the results (samples, workers, timeouts and backend may change on resumption)."""
        attempt = self.attempt.describe()
        attempt.pop("build")  # timeouts live there
        return attempt


def read_results(path: Path) -> list[dict[str, Any]]:
    """Complete lines of a results file, the last one per attempt (a rerun retries infrastructure failures).

    A line that does not stand (a torn last line from a kill, a line without `resolved`, wrong
    types: bench.resume.row_problem) is skipped; a resumed run sets such lines aside first.
    """
    if not path.exists():
        return []
    rows: dict[tuple[Any, Any], dict[str, Any]] = {}
    for row in parse_results(path.read_text(encoding="utf-8", errors="replace"))[0]:
        rows.pop((row["instance_id"], row["sample"]), None)  # keep file order of the survivors
        rows[(row["instance_id"], row["sample"])] = row
    return list(rows.values())


def is_settled(row: dict[str, Any]) -> bool:
    """True when an attempt's line stands; False for an infrastructure failure a rerun retries."""
    return row.get("stop") not in {kind.value for kind in INFRASTRUCTURE}


class ResultWriter:
    """Appends one JSON line per attempt under an exclusive lock (threads and other processes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._repair()

    def _repair(self) -> None:
        """Cut a torn last line (no newline at the end) so the next append starts clean."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    def append(self, row: dict[str, Any]) -> None:
        """Write the line in one write call and fsync it."""
        line = (json.dumps(row, ensure_ascii=False) + "\n").encode()
        with self._lock, self.path.open("ab") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


def check_run_dir(out: Path, config: RunConfig) -> None:
    """Refuse a run directory this run cannot use, before anything is written.

    It must be absent, empty, or a run directory (config.json) of the same configuration;
    a file, a path under a file, or a folder of other things is refused.

    Raises:
        BuildfixerError: One line saying what is wrong with `out`.
    """
    check_output_path("--out", out, directory=True)
    if not out.is_dir():
        return
    config_path = out / "config.json"
    if not config_path.is_file():
        # A run killed as it began leaves only these: they are ours.
        if any(entry.name not in (LOCK_FILE, "trajectories") for entry in out.iterdir()):
            raise BuildfixerError(
                f"--out {out} holds other files but no config.json: not a run directory; "
                "give a new or empty directory"
            )
        return
    try:
        saved = json.loads(config_path.read_text(encoding="utf-8"))
        old = dict(saved.get("attempt") or {})
    except (OSError, ValueError, AttributeError, TypeError):
        raise BuildfixerError(f"{config_path} is not a run configuration (unreadable JSON)") from None
    old.pop("build", None)
    new = config.comparable()
    if old != new:
        changed = sorted(key for key in {**old, **new} if old.get(key) != new.get(key))
        raise BuildfixerError(
            f"{out} holds a run with another configuration (differs in: {', '.join(changed)}); "
            "use a new --out directory"
        )


def prepare_out(out: Path, config: RunConfig, instances: list[dict[str, Any]]) -> None:
    """Create the run directory, or check that an existing one holds the same configuration."""
    check_run_dir(out, config)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "config.json", json.dumps(config.describe(), indent=2))
    (out / "trajectories").mkdir(exist_ok=True)
    write_atomic(out / "instances.jsonl", "".join(json.dumps(i) + "\n" for i in instances))


def run_benchmark(
    instances: list[dict[str, Any]],
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    workers: int | None = None,
    on_result: Callable[[dict[str, Any], int, int], None] | None = None,
    backend: str | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the missing attempts; returns every result line of the run directory (old and new).

    `backend` "local" runs up to `workers` attempts at once on this machine; "ray" hands each
    attempt to a Ray cluster (`RAY_ADDRESS`, else a local one); the run directory and the dataset
    must then be on storage every node sees. The run directory is locked for the whole run
    (bench.runlock): a second run on it is refused. Lines of an earlier run that cannot be
    resumed from are set aside (bench.resume) and said in one line to `on_warning` (else logged).

    Raises:
        BuildfixerError: Unknown backend, an unusable run directory, or one another run holds.
    """
    workers, backend = workers or config.workers, backend or config.backend
    if backend not in BACKENDS:
        raise BuildfixerError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    check_run_dir(out, config)
    with RunLock(out):
        prepare_out(out, config, instances)
        results_path = out / RESULTS
        warning = set_aside_rejected(results_path)
        if warning:
            (on_warning or _log.warning)(warning)
        return _run_missing(instances, dataset_dir, config, out, workers, backend, on_result)


def _run_missing(
    instances: list[dict[str, Any]],
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    workers: int | None,
    backend: str,
    on_result: Callable[[dict[str, Any], int, int], None] | None,
) -> list[dict[str, Any]]:
    """The attempts with no settled line yet, appended to results.jsonl as they finish."""
    results_path = out / RESULTS
    writer = ResultWriter(results_path)
    done = {(r["instance_id"], r["sample"]) for r in read_results(results_path) if is_settled(r)}
    wanted = [(instance, sample) for instance in instances for sample in range(config.samples)]
    todo = [(i, sample) for i, sample in wanted if (i["instance_id"], sample) not in done]
    total, finished = len(wanted), len(wanted) - len(todo)
    # Local attempts are worker processes this one tracks, to stop them on an interruption.
    active: set[subprocess.Popen[bytes]] | None = set() if backend == "local" else None
    job = functools.partial(_attempt, dataset_dir=dataset_dir, config=config, out=out, active=active)
    try:
        for row in execute(job, todo, workers, backend):
            writer.append(row)
            finished += 1
            if on_result:
                on_result(row, finished, total)
    except BaseException:
        _terminate(active or set())  # an attempt cut short writes no line: the rerun redoes it
        raise
    return read_results(results_path)


def _attempt(
    item: tuple[dict[str, Any], int],
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    active: set[subprocess.Popen[bytes]] | None,
) -> dict[str, Any]:
    instance, sample = item
    return run_one(instance, sample, dataset_dir, config, out, active)


def _terminate(active: set[subprocess.Popen[bytes]]) -> None:
    """Stop running attempts: SIGTERM (they kill their builds), then SIGKILL after a grace period."""
    for proc in list(active):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in list(active):
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


def run_one(
    instance: dict[str, Any],
    sample: int,
    dataset_dir: Path,
    config: RunConfig,
    out: Path,
    active: set[subprocess.Popen[bytes]] | None = None,
) -> dict[str, Any]:
    """One attempt in a worker process; a crash or a timeout becomes a status, never an exception."""
    name = f"{instance['instance_id']}__{sample}"
    trajectory = out / "trajectories" / f"{name}.json"
    attempt = config.attempt.portable()
    if attempt["budget"]["max_wall_s"] is None:  # the agent stops on its own before the hard kill
        attempt["budget"]["max_wall_s"] = config.attempt_timeout_s * 0.9
    task = {
        "instance": instance, "sample": sample, "dataset_dir": str(dataset_dir), "attempt": attempt,
        "build_timeout_s": config.build_timeout_s, "cache_dir": str(cache_root()),
        "trajectory": str(trajectory), "sandbox": config.attempt.options.sandbox,
        "memory": str(config.run_memory(out)),
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        task_path, result_path = Path(tmp) / "task.json", Path(tmp) / "result.json"
        task_path.write_text(json.dumps(task))
        env = {**os.environ, "BUILDFIXER_RUNNER_PID": str(os.getpid())}
        proc = subprocess.Popen(
            [sys.executable, "-m", "buildfixer.bench.worker", str(task_path), str(result_path)],
            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        if active is not None:
            active.add(proc)
        try:
            _, stderr = proc.communicate(timeout=config.attempt_timeout_s)
            outcome = _read_result(result_path, proc.returncode, stderr)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            stop = Stop(StopKind.TIMEOUT, f"attempt timed out after {config.attempt_timeout_s:g}s")
            outcome = {"status": "timeout", "resolved": False, **stop.to_dict()}
        finally:
            if active is not None:
                active.discard(proc)
    return {
        "instance_id": instance["instance_id"],
        "agent": config.agent,
        "toolset": config.attempt.toolset,
        "model": config.attempt.model,
        "sample": sample,
        "resolved": bool(outcome.get("resolved")),
        "status": outcome.get("status", "error"),
        "llm_calls": outcome.get("llm_calls", 0),
        "input_tokens": outcome.get("input_tokens", 0),
        "output_tokens": outcome.get("output_tokens", 0),
        "cost_usd": outcome.get("cost_usd", 0.0),
        "tool_counts": outcome.get("tool_counts", {}),
        "duration_s": outcome.get("duration_s", 0.0),
        **{key: outcome[key] for key in ("build_s", "validation_s", "verdict_reused") if key in outcome},
        "patch": outcome.get("patch", ""),
        "trajectory": str(trajectory.relative_to(out)),
        "origin": instance.get("origin"),
        "category": instance.get("category"),
        "stop": outcome.get("stop", StopKind.CRASHED.value),
        "stop_reason": outcome.get("stop_reason", ""),
        **({"error": outcome["error"]} if outcome.get("error") else {}),
        **({"judge": outcome["judge"]} if outcome.get("judge") else {}),  # a resolved attempt's verdict
    }


def _read_result(path: Path, code: int | None, stderr: bytes) -> dict[str, Any]:
    """The worker's result, or an error status saying how it died."""
    if path.exists():
        result: dict[str, Any] = json.loads(path.read_text())
        return result
    tail = stderr.decode(errors="replace")[-2000:]
    stop = Stop(StopKind.CRASHED, f"worker died (exit {code})")
    return {"status": "error", "resolved": False, **stop.to_dict(), "error": tail}
