"""Build repository states for curation, each tree at most once: a build-result cache on disk.

Building every commit is what curation costs. A result is stored under a key made of what decides
it: the tree hash (the files), the build system and command, the JDK, the installed build tools
and the as-of date dependencies are resolved at. Re-curating, or a second mode on the same
repository, then never rebuilds a tree; and the cache holds the repeats the filters ask for
(a state must build, or fail, twice the same way).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from buildfixer import __version__
from buildfixer import logs as logs_package
from buildfixer.bench.rundir import write_atomic
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import executable
from buildfixer.buildsys.project import resolve_jdk, stop_daemons
from buildfixer.curate.history import History
from buildfixer.harness import grading
from buildfixer.logs.excerpt import log_excerpt
from buildfixer.logs.text import read_log
from buildfixer.workspace.workspace import Workspace

_MAX_ERRORS = 5
# The programs behind each build system; a different binary (an upgrade) means another key.
_TOOLS = {"gradle": ("gradle",), "maven": ("mvn",), "python": ("python3",), "npm": ("node", "npm")}


@dataclass
class BuildRecord:
    """One build of one state, as curation keeps it.

    Attributes:
        status: success, failure, timeout or error.
        category: Failure category (None on success).
        errors: The first parsed errors (contract form: file, line, column, message, category, tool).
        log: The cleaned, normalized log (empty on success).
        duration_s: Wall time of the build.
        jdk: The JDK the build ran on, as buildsys chose it (None: not a JVM build, or a record
            cached before the JDK was kept).
    """

    status: str
    category: str | None
    errors: list[dict[str, Any]] = field(default_factory=list)
    log: str = ""
    duration_s: float = 0.0
    jdk: int | None = None

    @property
    def verdict(self) -> str:
        """`status` or `status/category`: what must be the same in every repeat."""
        return grading.build_outcome(self)

    @property
    def how_failed(self) -> str:
        """A failure in a line: its category and first error (`configuration: Source option 6 ...`)."""
        first = self.errors[0].get("message", "") if self.errors else ""
        line = " ".join(str(first).split())[:160]
        kind = self.category or self.status
        return f"{kind}: {line}" if line else kind


# What became of a state in a run, in the order merging keeps the last of: answered by the cache
# alone, built with every build a success, built with some build not a success.
STATE_KINDS = ("cached", "succeeded", "failed")


def merge_state(a: str | None, b: str) -> str:
    """The kind of a state asked for twice: built beats cached, failed beats succeeded."""
    return b if a is None or STATE_KINDS.index(b) > STATE_KINDS.index(a) else a


@dataclass
class CacheStats:
    """Build requests of one builder.

    `hits` were answered by the cache, `misses` were not, and `builds` counts the builds run for the
    misses, repeats included. `states` tells, per cache key (one state), whether this builder only
    read it from the cache or built it, and then whether every build it returned succeeded (see
    STATE_KINDS); a summary merges these over its jobs, so each state counts once.
    """

    hits: int = 0
    misses: int = 0
    builds: int = 0
    states: dict[str, str] = field(default_factory=dict)

    def note(self, key: str, built: bool, records: list[BuildRecord]) -> None:
        """Record one request of state `key` and the records it returned."""
        if not built:
            kind = "cached"
        else:
            kind = "succeeded" if all(r.status == "success" for r in records) else "failed"
        self.states[key] = merge_state(self.states.get(key), kind)


@functools.cache
def _file_stamp(path: str) -> str:
    """Identity of an installed file: resolved path, size and modification time."""
    real = os.path.realpath(path)
    try:
        stat = os.stat(real)
    except OSError:
        return f"{path}:missing"
    return f"{real}:{stat.st_size}:{int(stat.st_mtime)}"


@functools.cache
def analysis_fingerprint() -> str:
    """A digest of the log analyzer's code: a cached result holds the errors and category it read.

    A changed analyzer reads a log differently (a Java level too low is `configuration` now, not
    `syntax`): its records are not the cache's, or a dataset would record the old category and
    `bench validate`, which reads with the new one, would call its instance invalid.
    """
    digest = hashlib.sha256()
    package = Path(logs_package.__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def toolchain(system: str, jdk: int | None) -> str:
    """A fingerprint of what a build of `system` is made and read with.

    The programs it runs (the JDK too for JVM builds) and the analyzer that reads its log.
    """
    parts = [f"buildfixer {__version__}", f"analysis {analysis_fingerprint()}", system]
    for name in _TOOLS.get(system, ()):
        found = executable(name)
        parts.append(_file_stamp(found) if found else f"{name}:none")
    if system in ("gradle", "maven"):
        found_jdk = resolve_jdk(jdk)
        parts.append(_file_stamp(str(Path(found_jdk.path) / "release")) if found_jdk else "jdk:none")
    return "|".join(parts)


class BuildCache:
    """Build records by key, one JSON file each (written atomically), safe across threads."""

    # Per process, not per cache object: every job has its own builder (and cache object, for its
    # stats), and two jobs needing the same state must still build it once.
    _locks: dict[tuple[str, str], threading.Lock] = {}
    _guard = threading.Lock()

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stats = CacheStats()

    def lock(self, key: str) -> threading.Lock:
        """The lock of one key: two jobs of this process needing the same tree build it once."""
        with self._guard:
            return self._locks.setdefault((str(self.root), key), threading.Lock())

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> list[BuildRecord]:
        """The builds recorded for a key, oldest first (empty when none or unreadable)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return [BuildRecord(**record) for record in data["builds"]]
        except (OSError, ValueError, KeyError, TypeError):
            return []

    def add(self, key: str, record: BuildRecord, about: dict[str, Any]) -> None:
        """Record one more build of a key (`about` says what the key stands for)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        builds = [asdict(r) for r in self.get(key)] + [asdict(record)]
        write_atomic(path, json.dumps({"about": about, "builds": builds}))


@dataclass
class StateBuilder:
    """Builds commits of one repository (real or synthetic, all in its mirror) through the cache.

    Attributes:
        source: The repository as given (path, URL or bundle); workspaces are checked out from it.
        history: Queries on its mirror.
        options: Base build options (timeout, cache directory, tasks, JDK).
        cache: Where build results are kept.
        system: The build system (the repository's current one is used for every state).
        as_of: Resolve unpinned dependencies as of each commit's date (see BuildOptions.as_of).
    """

    source: str
    history: History
    options: BuildOptions
    cache: BuildCache
    system: str
    as_of: bool = True

    def date_of(self, sha: str) -> str | None:
        """The as-of date a commit builds with by default: its own date (None when not dating)."""
        return self.history.commit(sha).date if self.as_of else None

    def key(self, sha: str, system: str, as_of: str | None) -> tuple[str, dict[str, Any]]:
        """The cache key of a commit's build, and what it is made of."""
        commit = self.history.commit(sha)
        about = {
            "tree": commit.tree,
            "system": system,
            "tasks": self.options.tasks,
            "jdk": self.options.jdk,
            "toolchain": toolchain(system, self.options.jdk),
            "as_of": as_of,
            "offline": self.options.offline,
        }
        digest = hashlib.sha256(json.dumps(about, sort_keys=True).encode()).hexdigest()
        return digest, about

    def build(self, sha: str, repeats: int = 1, as_of: str | None = None) -> list[BuildRecord]:
        """At least `repeats` builds of a commit, building only those the cache does not have.

        Args:
            sha: The commit (real or synthetic).
            repeats: Builds wanted.
            as_of: Resolve unpinned dependencies as of this date; default: the commit's own date
                (nothing is dated when the builder's `as_of` is off).
        """
        system = self.system
        as_of = (as_of or self.date_of(sha)) if self.as_of else None
        key, about = self.key(sha, system, as_of)
        with self.cache.lock(key):
            records = self.cache.get(key)
            if len(records) >= repeats:
                self.cache.stats.hits += 1
                self.cache.stats.note(key, False, records[:repeats])
                return records[:repeats]
            self.cache.stats.misses += 1
            self.cache.stats.builds += repeats - len(records)
            for record in self._run(sha, system, repeats - len(records), as_of):
                self.cache.add(key, record, about)
                records.append(record)
            self.cache.stats.note(key, True, records)
        return records

    def _run(self, sha: str, system: str, count: int, as_of: str | None) -> list[BuildRecord]:
        """Build a commit `count` times in one pooled workspace, resetting it in between."""
        ws = Workspace.acquire(self.source, sha, cache_dir=self.options.cache_dir)
        options = replace(self.options, state_dir=None, log_path=None, as_of=as_of)
        records = []
        try:
            for _ in range(count):
                ws.reset()
                result, _ = build_and_analyze(ws.root, options, system)
                log = ""
                if result.status != "success":
                    raw = read_log(result.log_path, strict=False)  # a flood: its head and tail
                    log = log_excerpt(raw, ws.root, options.cache_dir)
                errors = [e.to_dict() for e in result.errors[:_MAX_ERRORS]]
                records.append(
                    BuildRecord(result.status, result.category, errors, log, result.duration_s, result.jdk)
                )
        finally:
            stop_daemons(ws.root, options)
            ws.release()
        return records
