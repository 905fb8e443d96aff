"""`buildfixer curate`: find candidates, run them through the filters in parallel, write the dataset.

Every candidate's outcome is appended to `<out>.state.jsonl` as soon as it is known (one locked,
fsynced line; curate.state), so a run killed at any point resumes where it stopped; builds are
cached by tree, so the resumed or a second run rebuilds nothing. The `duplicate` filter is decided
on the state as outcomes arrive, and written there too, so the progress line, the summary and the
state file tell the same story. The dataset itself is rewritten atomically from that state at the
end of each run: every kept instance of every mode and repository curated into the same file, in
history order, plus `repos/<name>.bundle` holding the commits the instances need (synthetic
states included), so the dataset is self-contained.
"""

from __future__ import annotations

import functools
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.bench.dataset import Instance, save_dataset
from buildfixer.bench.executor import execute
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import detect_build_system
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.progress import Progress, emit
from buildfixer.curate import candidates as found
from buildfixer.curate import filters
from buildfixer.curate.builds import BuildCache, StateBuilder
from buildfixer.curate.candidates import Candidate
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.filters import Outcome, Rejected, SizeLimits
from buildfixer.curate.history import History
from buildfixer.curate.pinning import JVM_SYSTEMS, pin_state
from buildfixer.curate.reimplement import reimplement
from buildfixer.curate.state import Standings, history_order, outcome_of
from buildfixer.curate.summary import Summary
from buildfixer.llm.factory import model_for_instance
from buildfixer.workspace.git import git
from buildfixer.workspace.workspace import Workspace, mirror_of, normalize_source

# Progress events (`progress(event, data)`), each with "done", "total" (of the stage) and
# "summary" (the run's Summary so far):
#   "build"    a branch commit was built (human mode, before the filters);
#   "filter"   the filter stage's count, without a candidate (as it starts, and once more at the end);
#   "outcome"  a candidate's standing was written; data["outcome"] is its Outcome. A candidate may
#              come twice: kept, then rejected when a duplicate earlier in history is found later.


@dataclass
class Setup:
    """Everything a candidate's evaluation needs; picklable, so it can travel to a Ray worker.

    Attributes:
        source: The repository as given.
        mirror: Its bare mirror in the cache.
        system: Build system of the repository.
        options: Build options (JDK, tasks, timeout, cache directory).
        limits: Size limits of a fix.
        repeats: Builds of each state (a flaky state is rejected).
        as_of: Resolve unpinned dependencies as of each commit's date.
        model: Model spec of the llm mode.
        notes: Release notes shown to the model (llm mode).
        max_calls: LLM-call budget of one re-implementation.
        trajectories: Where the llm mode's conversations are saved.
        build_cache: Where build results are kept (default: `curate-builds` in the cache).
        name: The repository's name in instance ids and bundle names (default: from `source`).
    """

    source: str
    mirror: Path
    system: str
    options: BuildOptions
    limits: SizeLimits = field(default_factory=SizeLimits)
    repeats: int = 2
    as_of: bool = True
    model: str | None = None
    notes: str | None = None
    max_calls: int = 30
    trajectories: Path | None = None
    build_cache: Path | None = None
    name: str = ""  # the repository's name in instance ids and its bundle's file name

    def __post_init__(self) -> None:
        self.name = self.name or repo_name(self.source)

    def builder(self) -> StateBuilder:
        """A builder over this repository's mirror and the shared build cache."""
        cache = BuildCache(self.build_cache or self.options.cache_dir / "curate-builds")
        return StateBuilder(self.source, History(self.mirror), self.options, cache, self.system, self.as_of)


def repo_name(source: str) -> str:
    """A short, file-name-safe name of a repository (its last path component)."""
    name = source.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git").removesuffix(".bundle")
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "repo"


def evaluate(candidate: Candidate, setup: Setup) -> Outcome:
    """Run one candidate through the filters; never raises for a rejection."""
    builder = setup.builder()
    history = builder.history
    outcome = Outcome(candidate.key, candidate.mode, accepted=False)
    try:
        # Both states build as of the failure's date: the world the developer (or model) saw.
        as_of = builder.date_of(candidate.commit)
        good, bad = candidate.good, candidate.bad
        if candidate.mode == "llm":
            parent = history.commit(candidate.commit).parents[0]
            filters.check_size(history.diff(parent, candidate.commit), setup.limits)
            filters.check_builds(builder, good, setup.repeats, as_of)
            bad = _reimplemented(candidate, setup, history)
        elif candidate.mode == "dependency":
            bad = found.revert_build_files(history, candidate.commit)
        assert bad is not None
        if as_of and setup.system in JVM_SYSTEMS:
            bad, good = (
                pin_state(history, setup.source, s, as_of, setup.options.cache_dir) for s in (bad, good)
            )
        gold = history.diff(bad, good)
        filters.check_size(gold, setup.limits)
        filters.check_applies(history, bad, gold)
        filters.check_builds(builder, good, setup.repeats, as_of)
        bad_builds = filters.check_fails(builder, bad, setup.repeats, as_of)
        outcome.accepted = True
        outcome.signature = filters.signature(bad_builds[0])
        instance = filters.make_instance(candidate, (bad, good), builder, gold, bad_builds[0], as_of)
        instance["instance_id"] = f"{setup.name}-{candidate.key}"
        instance["repo"] = _git_bundle_rel(setup.name)
        outcome.instance = instance
    except Rejected as exc:
        outcome.filter, outcome.reason = exc.filter, exc.reason
    except BuildfixerError as exc:  # a broken commit (unreadable tree, checkout failure)
        outcome.filter, outcome.reason = "error", str(exc)
    outcome.stats = asdict(builder.cache.stats)
    return outcome


def _reimplemented(candidate: Candidate, setup: Setup, history: History) -> str:
    if not setup.model:
        raise BuildfixerError("the llm mode needs --model")
    trajectory = setup.trajectories / f"{candidate.key}.json" if setup.trajectories else None
    model = model_for_instance(setup.model, candidate.key)  # scripted:DIR -> DIR/<key>.json
    return reimplement(
        history, setup.source, candidate, model, setup.options.cache_dir, trajectory,
        setup.notes, setup.max_calls,
    )  # fmt: skip


def curate(config: CurateConfig, progress: Progress | None = None) -> Summary:
    """Mine instances of `config.mode` from a repository into the dataset `config.out` (resumable).

    Args:
        config: What to mine, from where, how, into which dataset; validated when it was made.
        progress: Called with (event, data) as work finishes: the events `build`, `filter` and
            `outcome` described at the top of this module.

    Raises:
        BuildfixerError: An unknown repository or revision (a URL or bundle is only read here).
    """
    started = time.monotonic()
    options, out = config.options, config.out
    normalized = normalize_source(config.source)
    mirror = mirror_of(normalized, options.cache_dir, refresh=True)
    history = History(mirror)
    tip = history.resolve(config.rev)
    system = config.system or _system_at(normalized, tip, options)
    setup = Setup(
        normalized, mirror, system, options, config.limits, config.repeats, config.as_of, config.model,
        config.notes, trajectories=out.with_name(out.name + ".trajectories"), build_cache=config.build_cache,
        name=config.name or "",
    )  # fmt: skip
    workers, backend = config.workers, config.backend
    summary = Summary(config.mode, setup.name)
    if config.mode == "human":
        chains = found.branch_chains(history, tip, config.limit, config.ranges)
        builds = _build_all(sorted({sha for chain in chains for sha in chain}), setup, workers, backend,
                            progress, summary)  # fmt: skip
        candidates = found.human_candidates(chains, builds)
    elif config.mode == "dependency":
        candidates = found.dependency_candidates(history, tip, config.limit)
    else:
        candidates = found.llm_candidates(history, tip, config.limit)
    summary.candidates = len(candidates)
    run_filters(candidates, setup, out, workers, backend, progress, summary)
    write_dataset(out, setup, {c.key for c in candidates}, summary)
    summary.duration_s = time.monotonic() - started
    _emit(progress, "filter", len(candidates), len(candidates), summary)
    return summary


def _emit(
    progress: Progress | None, event: str, done: int, total: int, summary: Summary, **more: Any
) -> None:
    emit(progress, event, {"done": done, "total": total, "summary": summary, **more})


def _system_at(source: str, sha: str, options: BuildOptions) -> str:
    ws = Workspace.acquire(source, sha, cache_dir=options.cache_dir)
    try:
        return detect_build_system(ws.root)
    finally:
        ws.release()


def _builds_once(sha: str, setup: Setup) -> tuple[str, bool, dict[str, int]]:
    builder = setup.builder()
    ok = builder.build(sha, 1)[0].status == "success"
    return sha, ok, asdict(builder.cache.stats)


def _build_all(
    commits: list[str], setup: Setup, workers: int | None, backend: str, progress: Progress | None,
    summary: Summary,
) -> dict[str, bool]:  # fmt: skip
    """Whether each commit builds (once; the filters build the states they keep again)."""
    result: dict[str, bool] = {}
    for sha, ok, stats in execute(functools.partial(_builds_once, setup=setup), commits, workers, backend):
        result[sha] = ok
        summary.count(stats)
        _emit(progress, "build", len(result), len(commits), summary)
    return result


def run_filters(
    candidates: list[Candidate],
    setup: Setup,
    out: Path,
    workers: int | None,
    backend: str,
    progress: Progress | None,
    summary: Summary,
) -> None:
    """Evaluate the candidates the state does not have yet, recording each outcome as it comes."""
    state = Standings(out, setup.name, {c.key for c in candidates}, summary)
    done = state.done()
    todo = [c for c in candidates if c.key not in done]
    finished = len(candidates) - len(todo)
    _emit(progress, "filter", finished, len(candidates), summary)
    job = functools.partial(evaluate, setup=setup)
    for outcome in execute(job, todo, workers, backend):
        finished += 1
        summary.evaluated += 1
        summary.count(outcome.stats)
        for row in state.add(outcome):
            _emit(progress, "outcome", finished, len(candidates), summary, outcome=outcome_of(row))


def write_dataset(out: Path, setup: Setup, keys: set[str], summary: Summary) -> None:
    """Rewrite the dataset from the state: the kept instances, in history order.

    Every repository and mode curated into `out` is kept; this run's repository also gets its
    bundle rewritten. `summary` receives this run's counts (candidates in `keys`).
    """
    state = Standings(out, setup.name, keys, summary)  # read again: other runs may have appended
    kept = sorted((r for r in state.rows.values() if r["accepted"]), key=history_order)
    ours = [r["instance"] for r in kept if r["repo"] == setup.name]
    if ours:
        _write_git_bundle(out.parent / _git_bundle_rel(setup.name), setup.mirror, ours)
    save_dataset([Instance.model_validate(r["instance"]) for r in kept], out)
    summary.instances_in_file = len(kept)


def _git_bundle_rel(name: str) -> str:
    return f"repos/{name}.bundle"


def _write_git_bundle(path: Path, mirror: Path, instances: list[dict[str, Any]]) -> None:
    """A git bundle of the commits the instances name (and their history), made in a scratch repository."""
    commits = sorted({c for i in instances for c in (i["base_commit"], i["fix_commit"]) if c})
    with tempfile.TemporaryDirectory(prefix="curate-bundle-") as tmp:
        scratch = Path(tmp) / "r.git"
        git("init", "--bare", "--quiet", str(scratch))
        refspecs = [f"{sha}:refs/heads/instances/{sha}" for sha in commits]
        git("fetch", "--quiet", "--no-tags", str(mirror), *refspecs, git_dir=scratch)
        History(scratch).write_git_bundle(path, ["--all"])
