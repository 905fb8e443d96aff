"""Run independent jobs in parallel: local threads by default, or Ray tasks on a cluster.

Benchmark attempts and curation candidates both go through `execute`, so both scale the same way.
Each job is CPU-heavy (builds run as subprocesses), hence threads locally and two CPUs per Ray task.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from buildfixer.core.errors import BuildfixerError

BACKENDS = ("local", "ray")
T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """One job per two cores (a build keeps about two busy), at least one.

    For jobs that also wait on a model: a single-slot local server would queue the rest.
    """
    return max(1, (os.cpu_count() or 2) // 2)


# Memory one build job may take at its peak (a build tool's JVM, a forked test JVM, javac).
_BUILD_JOB_BYTES = 3 * 2**30


def build_workers() -> int:
    """Jobs at once for work that only builds: one per core, as many as memory holds, at least one.

    Two builds on two cores finish sooner than one after the other (1.3x for the bundled
    dataset, docs/PERFORMANCE.md): a build waits on disk and JVM start-up as much as it computes.
    """
    cores = os.cpu_count() or 1
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: cores only
        return cores
    return max(1, min(cores, memory // _BUILD_JOB_BYTES))


def execute(
    job: Callable[[T], R], items: Iterable[T], workers: int | None = None, backend: str = "local"
) -> Iterator[R]:
    """Results of `job(item)` for every item, in the order they finish.

    Args:
        job: The work; for the ray backend it must be picklable (a module-level function or a
            `functools.partial` of one).
        items: What to run it on.
        workers: Jobs at once on this machine (default: `default_workers()`); Ray decides itself.
        backend: "local" or "ray" (`RAY_ADDRESS`, else a local Ray instance).

    Raises:
        BuildfixerError: Unknown backend, or Ray missing.
    """
    if backend not in BACKENDS:
        raise BuildfixerError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "ray":
        yield from _on_ray(job, list(items))
        return
    pool = ThreadPoolExecutor(max_workers=workers or default_workers())
    try:
        pending: set[Future[R]] = {pool.submit(job, item) for item in items}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    except BaseException:
        # Interrupted (Ctrl-C, a failed job, the caller stopped): return at once so the caller can
        # stop the running jobs' processes; their results are dropped.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _call(job: Callable[[T], R], item: T) -> R:
    """`job(item)`: Ray takes only plain functions, and a job may be a `functools.partial`."""
    return job(item)


def _on_ray(job: Callable[[T], R], items: list[T]) -> Iterator[R]:
    try:
        import ray  # lazy: an optional extra, and seconds to import
    except ImportError:
        raise BuildfixerError("the ray backend needs Ray: pip install 'buildfixer[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"), include_dashboard=False, log_to_driver=False)
    remote: Any = ray.remote(num_cpus=min(2, os.cpu_count() or 1))(_call)
    pending = [remote.remote(job, item) for item in items]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
