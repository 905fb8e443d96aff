"""One benchmark attempt, run in its own process: `python -m buildfixer.bench.worker TASK.json RESULT.json`.

A separate process per attempt lets the runner enforce a hard per-attempt timeout (the whole
process group is killed) and record a crash as a status instead of losing the run. The worker
exits by itself when the runner dies (kill -9), so no attempt outlives its run.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.buildsys.project import stop_daemons
from buildfixer.buildsys.runner import kill_owned
from buildfixer.core.stops import Stop, StopKind
from buildfixer.harness.attempt import AttemptConfig, run_attempt
from buildfixer.harness.remember import remember
from buildfixer.llm.factory import model_for_instance
from buildfixer.memory.trust import instance_domain
from buildfixer.triage import Triage
from buildfixer.workspace.workspace import Workspace

# The owner token of the builds this attempt runs (see buildsys.runner.kill_owned), once known.
_OWNER: list[str] = []


def _die(code: int) -> None:
    """Kill this attempt's builds (Gradle daemons included), then exit at once."""
    for owner in _OWNER:
        kill_owned(owner, grace_s=0.5)
    os._exit(code)


def _watch_parent(parent: int) -> None:
    """Exit, and take our builds with us, as soon as the runner is gone (it was killed with -9)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    _die(1)


def _source(task: dict[str, Any]) -> str:
    """The instance's repository: a URL, or a path (relative ones are in the dataset's folder)."""
    repo = str(task["instance"]["repo"])
    if "://" not in repo and not Path(repo).is_absolute():
        repo = str((Path(task["dataset_dir"]) / repo).resolve())
    return repo


def _workspace(task: dict[str, Any]) -> Workspace:
    """The instance's failing commit, checked out from the shared mirror."""
    instance, cache_dir = task["instance"], Path(task["cache_dir"])
    return Workspace.acquire(_source(task), instance["base_commit"], cache_dir=cache_dir)


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Check out the instance, run the agent, build for the verdict; the result line."""
    instance = task["instance"]
    began = time.monotonic()
    options = BuildOptions(
        jdk=instance.get("jdk"),
        timeout_s=task["build_timeout_s"],
        tasks=_tasks(instance.get("build_command")),
        cache_dir=Path(task["cache_dir"]),
        as_of=instance.get("as_of"),  # the world the instance was curated in
        trust_domain=cache_domain(instance_domain(_source(task))),  # caches of its repository's runs
    )
    if task.get("sandbox"):  # the run's choice (--no-sandbox gives "none"); else the default
        options.sandbox = task["sandbox"]
    portable = dict(task["attempt"])
    portable["model"] = model_for_instance(portable["model"], instance["instance_id"])  # per-instance scripts
    # The run's own memory (never the one `fix` reads, unless the run was told so: `--memory`),
    # and the instance's trust domain (memory.trust): what it learns is never `fix`'s "same".
    # The first build is triaged from its log alone (no build): an infrastructure failure ends the
    # attempt as `infra_error`, which a rerun of the run retries and no report scores.
    config = AttemptConfig.from_portable(
        portable, options=options, trajectory_path=Path(task["trajectory"]), memory_path=Path(task["memory"]),
        memory_domain=instance_domain(_source(task)), triage="log",
    )  # fmt: skip
    workspace = _workspace(task)
    _OWNER.append(options.owner_token(workspace.root))
    try:
        meta = {"instance_id": instance["instance_id"], "sample": task["sample"]}
        # The repair alone, judged by the attempt: resolved by removing tests or checks is `hacked`.
        attempt = run_attempt(
            workspace.root, config, meta=meta, instance=instance, system=instance.get("build_system"),
            diff=workspace.diff,
        )  # fmt: skip
        patch = attempt.patch
        remember(
            attempt.initial, attempt.resolved, attempt.edited, patch, Path(task["memory"]), instance,
            origin=config.memory_domain,
        )  # fmt: skip
    finally:
        stop_daemons(workspace.root, options)
        workspace.release()
    trajectory, usage = attempt.trajectory, attempt.trajectory.usage
    return {
        "status": attempt.verdict.status,
        "resolved": attempt.resolved,
        **attempt.stop.to_dict(),
        "llm_calls": trajectory.llm_calls(),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": round(usage.cost_usd, 6),
        "cost_known": usage.cost_known,
        "tool_counts": trajectory.tool_counts(),
        "jdk": attempt.jdk,
        "patch": patch,
        "judge": attempt.judge,
        "duration_s": round(time.monotonic() - began, 3),
        "build_s": round(attempt.build_s, 3),  # every build of the attempt, the verdict's included
        "validation_s": round(attempt.verdict_s, 3),  # the harness's verdict build (0: reused)
        "verdict_reused": attempt.verdict_reused,
        "triage": _triage(attempt.triage),
    }


def _triage(found: Triage | None) -> dict[str, Any] | None:
    """The first build's triage as a result line records it: class, confidence, basis, signals."""
    if found is None:
        return None
    kept = ("class", "confidence", "basis")
    record = found.to_dict()
    return {**{key: record[key] for key in kept}, "signals": record["evidence"]["signals"]}


def _tasks(command: Any) -> list[str] | None:
    """An instance's build_command as tasks/goals (a string split as a shell would: quotes hold together)."""
    if not command:
        return None
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def main(argv: list[str]) -> int:
    """Run the task in argv[0] and write its result to argv[1] (atomically)."""
    task_path, result_path = Path(argv[0]), Path(argv[1])
    signal.signal(signal.SIGTERM, lambda *_: _die(143))  # the runner was interrupted
    threading.Thread(
        target=_watch_parent, args=(int(os.environ["BUILDFIXER_RUNNER_PID"]),), daemon=True
    ).start()
    task = json.loads(task_path.read_text())
    try:
        result = run_task(task)
    except Exception as exc:  # noqa: BLE001 - any failure of the attempt is recorded, never lost
        stop = Stop(StopKind.CRASHED, f"attempt crashed: {exc!r}")
        result = {"status": "error", "resolved": False, **stop.to_dict(),
                  "error": traceback.format_exc()[-4000:]}  # fmt: skip
    tmp = result_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(result))
    os.replace(tmp, result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
