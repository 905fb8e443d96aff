"""Decide what a failing build is before anyone repairs it: infra, flaky, pre_existing or real.

Triage starts from the caller's first build (never built again for it) and spends builds only
where the log cannot answer, at most `max_builds` of them:

1. Infrastructure signals in the build's status and log (triage.signals) → `infra`, no build.
2. Only tests known to flap failed (triage.flaky) → `flaky`, no build.
3. The failure could be nondeterministic (a failing test, or nothing the log analyzer could name):
   the same build again in the same workspace. It passes → `flaky`; it fails with an infrastructure
   signal → `infra`; another test fails → `flaky` (the failure moves between runs).
4. A base commit differs from HEAD (triage.base): built in a checkout of its own; it fails the same
   way → `pre_existing`.
5. Otherwise `real`.

The confidence is a number from 0 to 1 fixed per rule (docs/TRIAGE.md has the table), and `basis`
says which rule decided.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.progress import Progress, emit
from buildfixer.logs.rank import similar
from buildfixer.triage.base import Base, build_base
from buildfixer.triage.flaky import failing_test_name, known_flaky
from buildfixer.triage.signals import find_signals
from buildfixer.triage.verdict import FLAKY, INFRA, PRE_EXISTING, REAL, Signal, Triage, build_summary

Rebuild = Callable[[], BuildResult]  # the same build again, in the same workspace

# Root categories a second run may not repeat: a failing test (timing, order, shared state) or a
# failure nobody could name. A compile error, a missing file or dependency or a bad setting repeat.
NONDETERMINISTIC = ("test_failure", "other")
# The folders of an absolute path in a message (what differs between two checkouts' builds).
_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[^\s/:'\"]+/)+")
# Errors of another build compared with a root error: the first few (its ranking may differ a little).
_COMPARED = 5

# The confidence of each rule (docs/TRIAGE.md).
CONFIDENCE = {
    "limit": 0.95,
    "disk": 0.9,
    "start": 0.9,
    "registry": 0.9,
    "network": 0.85,
    "tls": 0.85,
    "lock": 0.85,
    "memory": 0.8,
    "timeout": 0.7,
    "rerun_passed": 0.9,
    "known_flaky": 0.75,
    "rerun_moved": 0.6,
    "base_same": 0.9,
    "base_builds": 0.95,
    "base_differs": 0.7,
    "reruns_same": 0.9,
    "rerun_same": 0.85,
    "deterministic": 0.8,
    "first_only": 0.6,
}
_KIND_WORDS = {
    "network": "the network failed", "tls": "a TLS connection failed", "registry": "a registry did not serve",
    "disk": "the disk is full", "memory": "memory ran out", "timeout": "the build ran out of time",
    "limit": "", "start": "the build tool could not start",  # a limit's detail says it all
    "lock": "another build held a cache lock",
}  # fmt: skip


def triage(
    first: BuildResult,
    root: Path,
    *,
    max_builds: int = 0,
    rebuild: Rebuild | None = None,
    base: Base | None = None,
    base_note: str = "",
    options: BuildOptions | None = None,
    system: str | None = None,
    progress: Progress | None = None,
) -> Triage:
    """The class of a failing build, its confidence and evidence.

    Args:
        first: The build to triage, its errors read (buildsys.analyzed), as the caller ran it.
        root: Where it ran (its test sources are read for flaky markers); a rerun runs there too.
        max_builds: Builds triage may run besides `first` (0: from its status and log alone).
        rebuild: Runs the same build again in the same workspace (None: no rerun).
        base: The base commit to compare with (triage.base.find_base); None: no comparison.
        base_note: Why there is no base, recorded as evidence.
        options: The build options of `first`, for the base's build.
        system: The build system `first` was run as (None: detected).
        progress: Told of each build triage starts ("build" events, phases `triage-rerun`, `triage-base`).
    """
    began = time.monotonic()
    verdict = Triage(None, 1.0, "the build passes: nothing to triage", build_summary(first))
    if first.ok:
        return verdict
    _decide(verdict, first, root, max_builds, rebuild, base, base_note, options, system, progress)
    verdict.seconds = time.monotonic() - began
    return verdict


def _decide(
    verdict: Triage, first: BuildResult, root: Path, max_builds: int, rebuild: Rebuild | None,
    base: Base | None, base_note: str, options: BuildOptions | None, system: str | None,
    progress: Progress | None,
) -> None:  # fmt: skip
    """Fill `verdict` in: the rules of the module's docstring, in order."""
    verdict.signals = find_signals(first)
    if verdict.signals:
        return _infra(verdict, verdict.signals, "")
    verdict.known_flaky = known_flaky(first.errors, root)
    if verdict.known_flaky:
        tests = ", ".join(f"{t['test']} ({t['marker']})" for t in verdict.known_flaky[:3])
        return _set(verdict, FLAKY, "known_flaky", f"only tests marked as known to flap failed: {tests}")
    left = max_builds
    ambiguous = not first.errors or first.errors[0].category in NONDETERMINISTIC
    if ambiguous and rebuild is not None and left > 0:
        # A rerun first (a flaky failure is never patched); the budget a base does not need goes
        # to more reruns: a test that fails half the time passes within two runs three times in four.
        runs = max(1, left - (1 if base is not None else 0))
        left -= runs
        if _rerun(verdict, first, rebuild, runs, progress):
            return
    elif ambiguous:
        why = "no build left in the budget" if rebuild is not None else "no rerun possible here"
        verdict.notes.append(f"a failing test may pass when built again: not tried ({why})")
    if base is None:
        if base_note:
            verdict.notes.append(base_note)
    elif left <= 0:
        verdict.notes.append(f"the base commit ({base.ref}) was not built: no build left in the budget")
    elif _compare_base(verdict, first, base, options or BuildOptions(), system, progress):
        return
    if len(verdict.reruns) == 1:
        _set(verdict, REAL, "rerun_same", "it failed the same way when built again")
    elif verdict.reruns:
        runs = len(verdict.reruns)
        _set(verdict, REAL, "reruns_same", f"it failed the same way all {runs} times it was built again")
    elif not ambiguous:
        category = first.errors[0].category
        _set(verdict, REAL, "deterministic", f"a {category} error fails every build the same way")
    else:
        _set(verdict, REAL, "first_only", "nothing but the first build says otherwise")
    if verdict.base is not None and verdict.kind == REAL:
        _base_basis(verdict)


def _rerun(
    verdict: Triage, first: BuildResult, rebuild: Rebuild, runs: int, progress: Progress | None
) -> bool:
    """Build again, unchanged, up to `runs` times; True when a run decided the class."""
    for _ in range(runs):
        emit(progress, "build", {"phase": "triage-rerun"})
        again = rebuild()
        verdict.builds += 1
        same = same_failure(first, again)
        verdict.reruns.append({**build_summary(again), "same_failure": same})
        if again.ok:
            _set(verdict, FLAKY, "rerun_passed", "it failed, then passed when built again unchanged")
            return True
        if signals := find_signals(again):
            verdict.signals = signals
            _infra(verdict, signals, "when built again, ")
            return True
        if not same and _both_tests(first, again):
            _set(verdict, FLAKY, "rerun_moved", "built again, another test failed: the failure moves")
            return True
    return False


def _compare_base(
    verdict: Triage, first: BuildResult, base: Base, options: BuildOptions, system: str | None,
    progress: Progress | None,
) -> bool:  # fmt: skip
    """Build the base and record it; True when that decided the class."""
    emit(progress, "build", {"phase": "triage-base", "ref": base.ref})
    built, why = build_base(base, options, system)
    verdict.builds += 1
    if built is None:
        verdict.notes.append(why)
        return False
    same = same_failure(first, built)
    verdict.base = {**base.to_dict(), **build_summary(built), "same_failure": same}
    if same:
        where = f"{base.ref} at {base.commit[:12]}"
        _set(verdict, PRE_EXISTING, "base_same", f"the base commit ({where}) fails the same way")
        return True
    if built.ok:
        _set(verdict, REAL, "base_builds", f"the base commit ({base.ref} at {base.commit[:12]}) builds")
        return True
    if signals := find_signals(built):
        verdict.notes.append(f"the base's build hit the machine ({signals[0].kind}): it tells nothing")
    return False


def _base_basis(verdict: Triage) -> None:
    """A real failure whose base also failed, differently: say so (and how sure that leaves us)."""
    assert verdict.base is not None
    if verdict.base["status"] != "success" and not verdict.base["same_failure"]:
        ref = verdict.base["ref"]
        _set(verdict, REAL, "base_differs", f"the base commit ({ref}) fails too, but with another error")


def _infra(verdict: Triage, signals: list[Signal], when: str) -> None:
    strongest = max(signals, key=lambda s: CONFIDENCE[s.kind])
    words = _KIND_WORDS[strongest.kind]
    said = f"{words}: {strongest.detail}" if words else strongest.detail
    _set(verdict, INFRA, strongest.kind, f"{when}{said}")


def _set(verdict: Triage, kind: str, rule: str, basis: str) -> None:
    verdict.kind, verdict.confidence, verdict.basis = kind, CONFIDENCE[rule], basis


def same_failure(first: BuildResult, other: BuildResult) -> bool:
    """Whether another build failed the way `first` did: the same root error (logs.rank.similar).

    The root of either among the other's first few errors will do (a ranking may differ a little);
    two failures without any error read are the same when their status is.
    """
    if other.ok:
        return False
    if not first.errors or not other.errors:
        return not first.errors and not other.errors and first.status == other.status
    one, two = first.errors[0], other.errors[0]
    return any(_same(one, e) for e in other.errors[:_COMPARED]) or any(
        _same(two, e) for e in first.errors[:_COMPARED]
    )


def _same(a: BuildError, b: BuildError) -> bool:
    """The same error; for failing tests, the same test too (two tests of a file read alike).

    Absolute paths in the messages are left out: the base is built in another folder.
    """
    if not similar(
        replace(a, message=_ABSOLUTE.sub("", a.message)), replace(b, message=_ABSOLUTE.sub("", b.message))
    ):
        return False
    return a.category != "test_failure" or failing_test_name(a.message) == failing_test_name(b.message)


def _both_tests(first: BuildResult, other: BuildResult) -> bool:
    return all(b.errors and b.errors[0].category == "test_failure" for b in (first, other))
