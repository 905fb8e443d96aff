"""`buildfixer curate`: find candidates, run them through the filters in parallel, write the dataset.

Every candidate's outcome is appended to `<out>.state.jsonl` as soon as it is known (one locked,
fsynced line; curate.state), so a run killed at any point resumes where it stopped; builds are
cached by tree, so the resumed or a second run rebuilds nothing. The `duplicate` filter is decided
on the state as outcomes arrive, and written there too, so the progress line, the summary and the
state file tell the same story. A kept instance is appended to the dataset at once (so an error
later in the run loses none), and the dataset is rewritten atomically from the state at the end of
each run: every kept instance of every mode and repository curated into the same file, in history
order. Then `repos/<dataset file name>/<name>.bundle` is written, holding the commits the
instances need (synthetic states included), so the dataset is self-contained; each dataset has its
own bundle, so curating another dataset into the same folder never changes this one's.

A commit git cannot read (a partial or shallow clone, a damaged object) is skipped and named in
the summary; it ends no run.
"""

from __future__ import annotations

import functools
import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.bench.dataset import Instance, save_dataset
from buildfixer.bench.executor import execute
from buildfixer.bench.run import ResultWriter
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
from buildfixer.curate.state import Row, Standings, history_order, outcome_of
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
        bundle: Where the instances' git bundle goes, relative to the dataset's folder
            (`bundle_path`); their `repo` field.
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
    bundle: str = ""

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


def bundle_path(out: Path, name: str) -> str:
    """The git bundle of repository `name`'s instances in dataset `out`, relative to its folder.

    Named after the dataset too: two datasets of one folder never write each other's bundle.
    """
    return f"repos/{out.name}/{name}.bundle"


def evaluate(candidate: Candidate, setup: Setup) -> Outcome:
    """Run one candidate through the filters; never raises for a rejection."""
    builder = setup.builder()
    history = builder.history
    outcome = Outcome(candidate.key, candidate.mode, accepted=False, commit=candidate.commit)
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
        else:
            filters.check_span(candidate.span, setup.limits)  # before any build of its own
        assert bad is not None
        if as_of and setup.system in JVM_SYSTEMS:
            bad, good = (
                pin_state(history, setup.source, s, as_of, setup.options.cache_dir) for s in (bad, good)
            )
        gold = history.diff(bad, good)
        filters.check_size(gold, setup.limits)
        filters.check_applies(history, bad, gold)
        good_builds = filters.check_builds(builder, good, setup.repeats, as_of)
        bad_builds = filters.check_fails(builder, bad, setup.repeats, as_of)
        outcome.accepted = True
        outcome.signature = filters.signature(bad_builds[0])
        jdk = filters.ran_on(bad_builds + good_builds)
        instance = filters.make_instance(candidate, (bad, good), builder, gold, bad_builds[0], as_of, jdk)
        instance["instance_id"] = f"{setup.name}-{candidate.key}"
        instance["repo"] = setup.bundle
        outcome.instance = instance
    except Rejected as exc:
        outcome.filter, outcome.reason = exc.filter, exc.reason
    except BuildfixerError as exc:  # a commit git cannot read, a checkout that failed
        unreadable = history.unreadable(candidate.commit)
        outcome.filter = "unreadable" if unreadable else "error"
        outcome.reason = unreadable or str(exc)
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
    name = config.name or repo_name(normalized)
    setup = Setup(
        normalized, mirror, system, options, config.limits, config.repeats, config.as_of, config.model,
        config.notes, trajectories=out.with_name(out.name + ".trajectories"), build_cache=config.build_cache,
        name=name, bundle=bundle_path(out, name),
    )  # fmt: skip
    workers, backend = config.workers, config.backend
    summary = Summary(config.mode, setup.name)
    skipped = summary.unreadable  # commits git cannot read, left out wherever they are met
    if config.mode == "human":
        chains = found.branch_chains(history, tip, config.limit, config.ranges, skipped)
        if not chains and config.ranges is None:
            # A repository that squashes or rebases its pull requests has no merged branch.
            summary.notes.append(
                "no merged branch in the history to look into (squashed or rebased pull requests?): "
                "name the commits with --ranges BASE..HEAD"
            )
        builds = _build_all(sorted({sha for chain in chains for sha in chain}), setup, workers, backend,
                            progress, summary)  # fmt: skip
        candidates = found.human_candidates(chains, builds)
    elif config.mode == "dependency":
        candidates = found.dependency_candidates(history, tip, config.limit, skipped)
    else:
        candidates = found.llm_candidates(history, tip, config.limit, skipped)
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


def _builds_once(sha: str, setup: Setup) -> tuple[str, bool | None, dict[str, int], str]:
    """Whether a commit builds (once), its build requests, and why not.

    Why: how it failed, or why it cannot be read (then ok is None).
    """
    builder = setup.builder()
    try:
        record = builder.build(sha, 1)[0]
    except BuildfixerError:
        unreadable = builder.history.unreadable(sha)
        if unreadable is None:
            raise  # the commit reads well: something else failed, and that ends the run
        return sha, None, asdict(builder.cache.stats), unreadable
    ok = record.status == "success"
    return sha, ok, asdict(builder.cache.stats), "" if ok else record.how_failed


def _build_all(
    commits: list[str], setup: Setup, workers: int | None, backend: str, progress: Progress | None,
    summary: Summary,
) -> dict[str, bool]:  # fmt: skip
    """Whether each commit builds (once; the filters build the states they keep again).

    A commit git cannot read is left out (neither a failure nor a fix) and named in the summary.
    """
    result: dict[str, bool] = {}
    job = functools.partial(_builds_once, setup=setup)
    for done, (sha, ok, stats, why) in enumerate(execute(job, commits, workers, backend), 1):
        if ok is None:
            summary.unreadable[sha] = why
        else:
            result[sha] = ok
        if ok is False:
            summary.failures[why] = summary.failures.get(why, 0) + 1
        summary.count(stats)
        _emit(progress, "build", done, len(commits), summary, sha=sha, ok=ok, why=why)
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
    """Evaluate the candidates the state does not have yet, recording each outcome as it comes.

    An instance is appended to the dataset as soon as it is kept (`KeptLines`).
    """
    keys = {c.key for c in candidates}
    state = Standings(out, setup.name, keys, summary, History(setup.mirror).is_ancestor)
    lines = KeptLines(out)
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
            lines.add(row)
            _emit(progress, "outcome", finished, len(candidates), summary, outcome=outcome_of(row))


class KeptLines:
    """Kept instances appended to the dataset as they come, one locked, fsynced line each.

    So an error or a kill later in the run loses no instance: the file holds every instance kept
    so far (in the order they were kept; `write_dataset` puts it in history order at the end).
    """

    def __init__(self, out: Path) -> None:
        self.writer = ResultWriter(out)  # cuts a line torn by a kill
        self.ids = _instance_ids(out)

    def add(self, row: Row) -> None:
        """Append the row's instance when it stands kept and is not in the file yet."""
        if row["accepted"] and row["instance"]["instance_id"] not in self.ids:
            self.writer.append(Instance.model_validate(row["instance"]).to_dict())
            self.ids.add(row["instance"]["instance_id"])


def _instance_ids(out: Path) -> set[str]:
    """The instance ids in a dataset file (lines that are no instance are passed over)."""
    ids = set()
    for line in out.read_text(encoding="utf-8").splitlines() if out.is_file() else []:
        try:
            ids.add(str(json.loads(line)["instance_id"]))
        except (ValueError, TypeError, KeyError):
            continue
    return ids


def write_dataset(out: Path, setup: Setup, keys: set[str], summary: Summary) -> None:
    """Rewrite the dataset from the state: the kept instances, in history order; then this run's bundle.

    Every repository and mode curated into `out` is kept; this run's repository also gets its
    bundle rewritten, after the dataset, so a bundle that cannot be written loses no instance.
    `summary` receives this run's counts (candidates in `keys`).

    Raises:
        BuildfixerError: The bundle cannot be written (an object of the history cannot be read).
    """
    # Read again: other runs may have appended.
    state = Standings(out, setup.name, keys, summary, History(setup.mirror).is_ancestor)
    rows = sorted((r for r in state.rows.values() if r["accepted"]), key=history_order)
    # This repository's instances name this dataset's bundle, those of an older run too, which
    # named the bundle every dataset of the folder shared then (`repos/<name>.bundle`).
    kept = [{**r["instance"], "repo": setup.bundle} if r["repo"] == setup.name else r["instance"]
            for r in rows]  # fmt: skip
    save_dataset([Instance.model_validate(i) for i in kept], out)
    summary.instances_in_file = len(kept)
    mine = [i for r, i in zip(rows, kept, strict=True) if r["repo"] == setup.name]
    if not mine:
        return
    try:
        _write_git_bundle(out.parent / setup.bundle, setup.mirror, mine)
    except BuildfixerError as exc:
        raise BuildfixerError(
            f"{len(mine)} instance(s) of {setup.name} are in {out}, but their git bundle {setup.bundle} "
            f"cannot be written: {exc}. An object of the history that cannot be read (a partial or "
            "shallow clone) is the usual cause: complete the clone and run again (it resumes)"
        ) from None


def _write_git_bundle(path: Path, mirror: Path, instances: list[dict[str, Any]]) -> None:
    """A git bundle of the commits the instances name (and their history), made in a scratch repository."""
    commits = sorted({c for i in instances for c in (i["base_commit"], i["fix_commit"]) if c})
    with tempfile.TemporaryDirectory(prefix="curate-bundle-") as tmp:
        scratch = Path(tmp) / "r.git"
        git("init", "--bare", "--quiet", str(scratch))
        refspecs = [f"{sha}:refs/heads/instances/{sha}" for sha in commits]
        git("fetch", "--quiet", "--no-tags", str(mirror), *refspecs, git_dir=scratch)
        History(scratch).write_git_bundle(path, ["--all"])
