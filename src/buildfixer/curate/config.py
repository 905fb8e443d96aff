"""What one curation run is given (`CurateConfig`), validated where it enters, before any work.

A bad value is one BuildfixerError line (exit 2 on the command line), naming the option, before
the repository is mirrored, anything is built, or the dataset, its state file or its bundles are
written. The checks run in a fixed order, so a command line with several bad options is told
about the same one every time.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, model_validator

from buildfixer.bench.dataset import load_dataset
from buildfixer.bench.executor import BACKENDS
from buildfixer.bench.run import MAX_WORKERS
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.candidates import MODES
from buildfixer.curate.filters import SizeLimits
from buildfixer.harness.checks import MAX_REPEATS, check_jdk, check_number, check_output_path, check_seconds
from buildfixer.llm.factory import check_model
from buildfixer.workspace.git import git
from buildfixer.workspace.workspace import normalize_source

MAX_LIMIT = 10**9  # commits or merges looked at
MAX_FIX_FILES = 10**6
MAX_FIX_LINES = 10**9
MAX_FIX_COMMITS = 10**6
SYSTEMS = ("gradle", "maven", "python", "npm")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class CurateConfig(BaseModel):
    """One curation run: which candidates of which repository, how they are built and filtered, where to.

    Attributes:
        mode: human, dependency or llm (curate.candidates.MODES).
        source: Repository path, URL or bundle (never modified).
        out: The dataset (JSONL) the instances are added to; its state file and `repos/` go next
            to it. It must be absent, empty or a dataset.
        rev: Where history is read from.
        limit: Merges (human) or commits (dependency, llm) looked at, newest first; None for all.
        ranges: PR ranges (base, head) for the human mode instead of merges.
        model: Model spec of the llm mode (`scripted:DIR` picks `DIR/<candidate key>.json`).
        notes: Release notes shown to the model.
        options: Build options (JDK, tasks, timeout, sandbox, cache domain).
        limits: Size limits of a fix.
        repeats: Builds of each state (a flaky state is rejected).
        as_of: Resolve unpinned dependencies as of each commit's date.
        workers: Candidates evaluated at once (None: one per two cores).
        backend: local or ray.
        build_cache: Where build results are kept (default: `curate-builds` in the cache).
        system: Build system to use (a repository with both a pom.xml and a build.gradle);
            detected at `rev` when None.
        name: The repository's name in instance ids and bundle names (default: the last part of
            `source`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: str
    source: str | Path
    out: Path
    rev: str = "HEAD"
    limit: int | None = Field(default=None, strict=True)
    ranges: list[tuple[str, str]] | None = None
    model: str | None = None
    notes: str | None = None
    options: InstanceOf[BuildOptions] = Field(default_factory=lambda: BuildOptions(timeout_s=900.0))
    limits: InstanceOf[SizeLimits] = Field(default_factory=SizeLimits)
    repeats: int = Field(default=2, strict=True)
    as_of: bool = True
    workers: int | None = Field(default=None, strict=True)
    backend: str = "local"
    build_cache: Path | None = None
    system: str | None = None
    name: str | None = None

    # The checks raise BuildfixerError, which pydantic passes on unchanged: the message is the
    # command line's ("--repeats must be ..."), not a validation error's "field: ...".
    @model_validator(mode="after")
    def _usable(self) -> CurateConfig:
        if self.mode not in MODES:
            raise BuildfixerError(f"unknown mode {self.mode!r} (known: {', '.join(MODES)})")
        if self.mode == "llm" and not self.model:
            raise BuildfixerError("the llm mode needs --model (a litellm model or scripted:DIR)")
        if self.system not in (None, *SYSTEMS):
            raise BuildfixerError(f"unknown build system {self.system!r} (gradle, maven, python or npm)")
        if self.name is not None and not _NAME.fullmatch(self.name):
            raise BuildfixerError(f"--name must be letters, digits, '.', '_' or '-': {self.name!r}")
        if self.backend not in BACKENDS:
            raise BuildfixerError(f"unknown backend {self.backend!r} (known: {', '.join(BACKENDS)})")
        if self.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise BuildfixerError("the ray backend needs Ray: pip install 'buildfixer[ray]'")
        self._check_numbers()
        check_dataset_file(self.out)
        if self.build_cache is not None:
            check_output_path("--build-cache", self.build_cache, directory=True)
        check_repository(self.source, self.rev)
        if self.model:
            check_model(self.model)  # a script is read, a provider and its key checked: now, not after builds
        return self

    def _check_numbers(self) -> None:
        """The numbers, each in its range (the JDK also installed here)."""
        check_number("--repeats", self.repeats, whole=True, low=1, high=MAX_REPEATS)
        if self.workers is not None:
            check_number("--workers", self.workers, whole=True, low=1, high=MAX_WORKERS)
        if self.limit is not None:
            check_number("--limit", self.limit, whole=True, low=1, high=MAX_LIMIT)
        check_number("--max-files", self.limits.max_files, whole=True, low=1, high=MAX_FIX_FILES)
        check_number("--max-lines", self.limits.max_lines, whole=True, low=1, high=MAX_FIX_LINES)
        check_number("--max-commits", self.limits.max_commits, whole=True, low=1, high=MAX_FIX_COMMITS)
        check_seconds("--timeout", self.options.timeout_s)
        check_jdk(self.options.jdk)


def check_dataset_file(out: Path) -> None:
    """--out must be a file that is absent, empty, or a dataset (the instances are added to it).

    Raises:
        BuildfixerError: A directory, a path under a file, or a file that is not a dataset.
    """
    check_output_path("--out", out, directory=False)
    if out.is_file() and out.stat().st_size > 0:
        load_dataset(out)  # curation rewrites it from its state: never over something else


def check_repository(repo: str | Path, rev: str) -> None:
    """The repository must exist; a local one must hold `rev`.

    Raises:
        BuildfixerError: No such repository, not a git repository, or no such revision.
    """
    source = normalize_source(repo)
    if Path(source).is_dir():  # a bundle or a URL is only read once mirrored
        found = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", cwd=Path(source), check=False)
        if not found.strip():
            raise BuildfixerError(f"no commit {rev!r} in {repo}")
