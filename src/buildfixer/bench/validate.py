"""Validate benchmark instances: the base build fails as recorded, the gold patch makes it build.

Each instance is checked in a pooled workspace at its base commit, `repeats` times: build (must
fail, with the recorded category), apply the gold patch, build (must succeed); the rule itself is
`harness.grading.validity`. An outcome that changes between repeats makes the instance invalid as
flaky. The gold patch is also compared
with the diff base_commit -> fix_commit (a mismatch is only a warning). The workspace is released
and every process its builds left running is stopped before the next instance starts.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from buildfixer.bench import timings
from buildfixer.bench.dataset import Instance, checkout
from buildfixer.bench.executor import execute
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.progress import Progress, emit
from buildfixer.harness import grading
from buildfixer.memory.trust import instance_domain
from buildfixer.workspace.workspace import Workspace

_MESSAGE_CAP = 300  # characters of a root error message kept in an observation


@dataclass
class BuildObservation:
    """One build of a validation.

    Attributes:
        stage: `base` (the failing state) or `gold` (with the gold patch applied).
        repeat: 0-based repetition.
        status: The build's status (success, failure, timeout, error).
        category: Its failure category, None on success.
        duration_s: Wall time of the build.
        root_error: The first (root) error message, shortened; None on success.
    """

    stage: str
    repeat: int
    status: str
    category: str | None
    duration_s: float
    root_error: str | None = None

    @property
    def verdict(self) -> str:
        """`status` or `status/category`: what must not change between repeats."""
        return grading.build_outcome(self)


@dataclass
class ValidationResult:
    """Verdict on one instance.

    Attributes:
        instance_id: The instance.
        valid: True when every build behaved as the instance says, in every repeat.
        reasons: Why it is invalid (empty when valid).
        warnings: Problems that do not make it invalid (gold patch differs from fix_commit).
        builds: Every build run, in order.
        duration_s: Wall time of the whole validation (checkout and builds).
        gold_matches_fix: Whether the gold patch reproduces fix_commit's tree (None: not checked).
    """

    instance_id: str
    valid: bool
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    builds: list[BuildObservation] = field(default_factory=list)
    duration_s: float = 0.0
    gold_matches_fix: bool | None = None

    def statuses(self, stage: str) -> list[str]:
        """Observed verdicts of one stage (`base` or `gold`), one per repeat."""
        return [b.verdict for b in self.builds if b.stage == stage]

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the fields above, builds as objects."""
        data = asdict(self)
        data["duration_s"] = round(self.duration_s, 3)
        for build in data["builds"]:
            build["duration_s"] = round(build["duration_s"], 3)
        return data


def _options_for(instance: Instance, options: BuildOptions) -> BuildOptions:
    """The instance's build options: its JDK and command win over the defaults given."""
    return replace(
        options,
        jdk=instance.jdk if instance.jdk is not None else options.jdk,
        tasks=list(instance.build_command) if instance.build_command else options.tasks,
        as_of=instance.as_of if instance.as_of is not None else options.as_of,
        extra_env=dict(options.extra_env),
        state_dir=None,
        trust_domain=cache_domain(instance_domain(instance.repo))
        if options.trust_domain is None
        else options.trust_domain,
    )


def _revert_tracked(ws: Workspace) -> None:
    """Tracked files back to the base commit and untracked sources removed; ignored outputs stay.

    Keeping node_modules, target/ and the like lets the gold build reuse what the base build
    installed, as a developer's next build would.
    """
    ws.git("reset", "--quiet", "--hard", ws.base_commit)
    ws.git("clean", "-qfd")


def _build(
    ws: Workspace, instance: Instance, options: BuildOptions, stage: str, repeat: int
) -> BuildObservation:
    """Run the build once and condense what it showed."""
    result, _ = build_and_analyze(ws.root, options, instance.build_system)
    root = result.errors[0].message[:_MESSAGE_CAP] if result.errors else None
    return BuildObservation(stage, repeat, result.status, result.category, result.duration_s, root)


def _compare_with_fix(ws: Workspace, instance: Instance) -> tuple[bool | None, str | None]:
    """Whether the gold patch, now applied in `ws`, gives fix_commit's tree; a warning if not."""
    if instance.fix_commit is None:
        return None, None
    fix = ws.git("rev-parse", "--verify", "--quiet", f"{instance.fix_commit}^{{tree}}", check=False)
    if not fix.strip():
        return None, f"fix_commit {instance.fix_commit} is not in the repository; gold patch not compared"
    ws.git("add", "-A")
    names = ws.git("diff", "--cached", "--name-only", "-z", fix.strip())
    differ = [name for name in names.split("\0") if name]
    ws.git("reset", "--quiet")  # unstage: the build must see the tree, not an index
    if not differ:
        return True, None
    shown = ", ".join(differ[:5]) + (f" (+{len(differ) - 5} more)" if len(differ) > 5 else "")
    return False, f"gold_patch differs from the diff base_commit -> fix_commit in {shown}"


def _judge(instance: Instance, result: ValidationResult, repeats: int) -> None:
    """Fill `reasons` from the builds run (grading.validity, in words) and set `valid`."""
    base = [b for b in result.builds if b.stage == "base"]
    gold = [b for b in result.builds if b.stage == "gold"]
    for finding in grading.validity(base, gold, instance.category, repeats):
        if finding.kind == grading.INCOMPLETE and result.reasons:
            continue  # the setup problem already recorded is why
        builds = base if finding.stage == "base" else gold
        first = builds[0] if builds else None
        result.reasons.append(_in_words(finding, instance, first))
    result.valid = not result.reasons


def _in_words(finding: grading.ValidityFinding, instance: Instance, first: BuildObservation | None) -> str:
    """A finding as a reason; `first` is its stage's first build (for the category and root error)."""
    if finding.kind == grading.INCOMPLETE or first is None:
        return "validation stopped before every repeat ran"
    detail = f": {first.root_error}" if first.root_error else ""
    if finding.kind == grading.FLAKY:
        seen = finding.seen
        return f"flaky: {finding.stage} build gave {' then '.join(seen)} in {len(seen)} repeats"
    if finding.kind == grading.BUILDS:
        return "base build succeeds (it must fail)"
    if finding.kind == grading.OTHER_CATEGORY:
        return f"base build fails as {first.category}, recorded {instance.category}{detail}"
    if finding.kind == grading.NOT_FAILURE:
        return f"base build ended with status {first.status}{detail}"
    return f"build with the gold patch ends as {first.verdict}{detail}"


def validate_instance(
    instance: Instance,
    dataset_dir: Path,
    options: BuildOptions | None = None,
    repeats: int = 2,
    log_dir: Path | None = None,
) -> ValidationResult:
    """Check that an instance fails as recorded and builds with its gold patch, `repeats` times.

    Args:
        instance: The instance.
        dataset_dir: Directory its relative repository path is relative to (`dataset.dataset_dir`).
        options: Build options (cache, timeout, default JDK); the instance's JDK and command win.
        repeats: How many times both builds run (2 catches most flaky builds).
        log_dir: Keep every build log here as `<instance>-<stage>-<repeat>.log`; None discards them.

    Returns:
        The verdict; problems of the instance (a repository or commit that cannot be found, a gold
        patch that does not apply, a JDK that is not installed) make it invalid, they do not raise.
    """
    if repeats < 1:
        raise BuildfixerError("repeats must be at least 1")
    started = time.monotonic()
    result = ValidationResult(instance.instance_id, valid=False)
    own_logs = log_dir is None
    logs = Path(tempfile.mkdtemp(prefix="bench-validate-")) if log_dir is None else log_dir
    logs.mkdir(parents=True, exist_ok=True)
    base_options = options or BuildOptions()
    opts = _options_for(instance, base_options)
    ws: Workspace | None = None
    try:
        ws = checkout(instance, dataset_dir, opts.cache_dir)
        for repeat in range(repeats):
            if repeat:
                ws.reset()
            opts.log_path = logs / f"{instance.instance_id}-base-{repeat}.log"
            result.builds.append(_build(ws, instance, opts, "base", repeat))
            _revert_tracked(ws)  # in case the build rewrote a tracked file (a lockfile)
            ws.apply_patch(instance.gold_patch)
            if repeat == 0:
                result.gold_matches_fix, warning = _compare_with_fix(ws, instance)
                result.warnings += [warning] if warning else []
            opts.log_path = logs / f"{instance.instance_id}-gold-{repeat}.log"
            result.builds.append(_build(ws, instance, opts, "gold", repeat))
    except BuildfixerError as exc:
        result.reasons.append(str(exc))
    finally:
        if ws is not None:
            stop_daemons(ws.root, opts)
            with contextlib.suppress(BuildfixerError):  # the slot's next user resets it anyway
                ws.reset()
            ws.release()
        if own_logs:
            shutil.rmtree(logs, ignore_errors=True)
    _judge(instance, result, repeats)
    result.duration_s = time.monotonic() - started
    return result


def validate_dataset(
    instances: Sequence[Instance],
    dataset_dir: Path,
    options: BuildOptions | None = None,
    repeats: int = 2,
    workers: int = 1,
    progress: Progress | None = None,
    log_dir: Path | None = None,
) -> list[ValidationResult]:
    """Validate every instance, `workers` at a time, longest first; results in the order of `instances`.

    Each complete validation's time is recorded in the cache (`bench.timings`) for the next estimate.

    Args:
        instances: The instances (`dataset.load_dataset`).
        dataset_dir: Directory relative repository paths are relative to.
        options: Build options shared by all instances (see `validate_instance`).
        repeats: Builds per stage and instance.
        workers: Instances validated in parallel (builds are CPU-heavy: a few at most).
        progress: Called as each instance finishes with the event `validated` and data
            {"result": its ValidationResult, "done": instances finished, "total": instances,
            "left_s": the time the rest should take, estimated (`bench.timings`)}.
        log_dir: Keep the build logs here (see `validate_instance`).
    """
    if workers < 1:
        raise BuildfixerError("workers must be at least 1")
    total = len(instances)
    results: dict[int, ValidationResult] = {}
    cache_dir = (options or BuildOptions()).cache_dir
    times = timings.load(cache_dir)
    jobs = sorted(enumerate(instances), key=lambda job: -timings.per_repeat(job[1], times))  # longest first
    left = dict(jobs)
    guessed = taken = 0.0  # estimated and actual seconds of the instances done: corrects the rest

    def one(item: tuple[int, Instance]) -> tuple[int, ValidationResult]:
        return item[0], validate_instance(item[1], dataset_dir, options, repeats, log_dir)

    for index, result in execute(one, jobs, workers):
        results[index] = result
        instance = left.pop(index)
        guessed += timings.per_repeat(instance, times) * repeats
        taken += result.duration_s
        if len(result.builds) == 2 * repeats:  # a complete validation is a measurement
            timings.record(cache_dir, [(instance, result.duration_s / repeats)])
        rest = timings.estimate_s(list(left.values()), repeats, workers, times) * (taken / guessed or 1)
        emit(progress, "validated", {"result": result, "done": len(results), "total": total, "left_s": rest})
    return [results[i] for i in range(total)]
