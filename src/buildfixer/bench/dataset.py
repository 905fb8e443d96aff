"""Benchmark instances (docs/FORMATS.md): the schema, loading and saving JSONL, checking an instance out.

One instance is one JSON object; a dataset is a `.jsonl` file or a directory of `.jsonl` files
and single-instance `.json` files. Every saved line has the columns of `COLUMNS` in that order
(null when absent), each column of one JSON type (`build_command` is a string), so Hugging Face
`datasets.load_dataset("json", data_files=...)` reads any mix of bundled and curated files, and
the times it writes back (epoch milliseconds) load again: times are kept as ISO 8601 UTC.

`repo` is a URL or a path; a relative path is relative to the directory that holds the dataset
file (see `dataset_dir`), and a path may name a git bundle (`git bundle create x.bundle --all`).

This module imports pydantic: import it lazily (the CLI's start and `import buildfixer` stay cheap).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.workspace import Workspace

Origin = Literal["human", "dependency", "llm"]
Category = Literal[
    "syntax", "resource_missing", "configuration", "library_unavailable", "ndk", "test_failure", "other"
]
BuildSystem = Literal["gradle", "maven", "python", "npm"]
ORIGINS: tuple[str, ...] = ("human", "dependency", "llm")

# Problems listed in one error message at most (the rest are counted).
_MAX_LISTED = 20
_URL = re.compile(r"^([a-z][a-z0-9+.-]*://|git@|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
# Every saved row has these columns in this order: docs/FORMATS.md's, then buildfixer's two extras, so
# bundled and curated files share one schema (Arrow refuses files whose columns differ).
COLUMNS: tuple[str, ...] = (
    "instance_id", "repo", "base_commit", "fix_commit", "gold_patch", "origin", "category", "build_system",
    "build_command", "jdk", "error_log", "files_changed", "lines_changed", "created_at", "split",
    "difficulty", "as_of",
)  # fmt: skip


def utc_time(value: Any) -> str:
    """A time as ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`.

    Takes ISO 8601 (no offset means UTC) or a Unix time (number or numeric string) in s, ms, us or
    ns, told apart by size (seconds stay below 10^11): Arrow reads ISO strings as timestamps and
    `datasets`' `to_json` writes them back as epoch milliseconds.

    Raises:
        ValueError: Neither an ISO 8601 time nor a number.
    """
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        value = float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        scale = next((s for s in (1, 10**3, 10**6, 10**9) if abs(value) / s < 1e11), None)
        if scale is None:
            raise ValueError(f"not a Unix time: {value!r}")
        moment = datetime.fromtimestamp(value / scale, UTC)
    else:
        try:
            moment = datetime.fromisoformat(value.strip())
        except (ValueError, AttributeError):
            raise ValueError(f"not an ISO 8601 time: {value!r}") from None
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    fraction = f".{moment.microsecond:06d}" if moment.microsecond else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


class Instance(BaseModel):
    """One benchmark instance: a repository state whose build fails, and the patch that fixes it.

    Attributes:
        instance_id: Unique name (letters, digits, `.`, `_`, `-`; usable as a file name).
        repo: URL, path or `.bundle` file of the repository; relative paths are relative to the
            directory of the dataset file.
        base_commit: The failing state (full or abbreviated hash).
        fix_commit: A commit whose tree the gold patch reaches, or None (e.g. a synthetic breakage
            that was never fixed in history).
        gold_patch: Unified diff from base_commit to the fixed state.
        origin: How the failure came about: a developer's commit (`human`), a dependency change
            (`dependency`) or a generated breakage (`llm`).
        category: Category of the failure (docs/FORMATS.md taxonomy) that the base build must show.
        build_system: `gradle`, `maven`, `python` or `npm`.
        build_command: Tasks/goals/scripts instead of the default build (a string is split like a
            shell would), or None.
        jdk: Major JDK version to build with, or None for the default.
        error_log: The failing build's log (or its end).
        files_changed: Files the gold patch touches (computed from it when absent).
        lines_changed: Lines the gold patch adds or removes (computed from it when absent).
        created_at: Time of the failure (usually the base commit's date), kept as ISO 8601 UTC
            (`utc_time` also takes Unix times and other offsets).
        split: Dataset split, e.g. `test`.
        difficulty: Tier by lines changed (trivial 1-10, small 11-100, medium 101-1000, large
            above), or None when not given.
        as_of: Build with unpinned dependencies resolved as of this ISO 8601 time (set by curation
            to the failure's date, see BuildOptions.as_of), or None for today's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=200)
    repo: str = Field(min_length=1)
    base_commit: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    fix_commit: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,64}$")
    gold_patch: str = Field(min_length=1)
    origin: Origin
    category: Category
    build_system: BuildSystem
    build_command: list[str] | None = None
    jdk: int | None = Field(default=None, ge=5, le=99)
    error_log: str = ""
    files_changed: int = Field(ge=0)
    lines_changed: int = Field(ge=0)
    created_at: str
    split: str = Field(default="test", min_length=1)
    difficulty: Literal["trivial", "small", "medium", "large"] | None = None
    as_of: str | None = None

    @field_validator("build_command", mode="before")
    @classmethod
    def _split_command(cls, value: Any) -> Any:
        if isinstance(value, str):
            return shlex.split(value) or None
        return value

    @field_validator("gold_patch")
    @classmethod
    def _is_a_diff(cls, value: str) -> str:
        if (
            not value.startswith(("diff --git ", "--- "))
            and "\n+++ " not in value
            and "\ndiff --git " not in value
        ):
            raise ValueError("not a unified diff (no 'diff --git' or '+++' file header)")
        return value

    @field_validator("created_at", "as_of", mode="before")
    @classmethod
    def _is_time(cls, value: Any) -> str | None:
        return None if value is None else utc_time(value)

    @model_validator(mode="before")
    @classmethod
    def _fill_sizes(cls, data: Any) -> Any:
        sizes = ("files_changed", "lines_changed")
        if isinstance(data, dict) and any(data.get(key) is None for key in sizes):
            patch = data.get("gold_patch")
            files, lines = patch_stats(patch) if isinstance(patch, str) else (0, 0)
            data = {**data}
            if data.get("files_changed") is None:
                data["files_changed"] = files
            if data.get("lines_changed") is None:
                data["lines_changed"] = lines
        return data

    def to_dict(self) -> dict[str, Any]:
        """The row of the instance: the columns of `COLUMNS`, in that order, null when unset.

        `build_command` is written as one shell-quoted string (read back by the same split), so
        the column has one Arrow type whether a file holds commands or only nulls.
        """
        data = self.model_dump(mode="json")
        if data["build_command"] is not None:
            data["build_command"] = shlex.join(data["build_command"])
        return {column: data[column] for column in COLUMNS}

    def is_remote(self) -> bool:
        """True when `repo` is a URL rather than a path."""
        return bool(_URL.match(self.repo))

    def repo_source(self, dataset_dir: Path) -> str:
        """The repository as `Workspace` takes it: the URL, or the path resolved against `dataset_dir`."""
        if self.is_remote():
            return self.repo
        path = Path(self.repo).expanduser()
        return str(path if path.is_absolute() else (dataset_dir / path).resolve())


def patch_stats(patch: str) -> tuple[int, int]:
    """Files touched and lines changed by a unified diff.

    Lines changed are the lines added plus the lines removed; a file renamed (or its mode
    changed) without a content change counts as one changed line, so no real fix measures 0.
    """
    rows = patch.splitlines()
    files = lines = 0
    header = False  # between a file's `diff --git` and its first hunk
    content = True  # the current file has hunks or binary data
    for index, line in enumerate(rows):
        next_line = rows[index + 1] if index + 1 < len(rows) else ""
        if line.startswith("diff --git ") or (
            not header and line.startswith("--- ") and next_line.startswith("+++ ")
        ):
            if header or line.startswith("diff --git "):
                lines += 0 if content else 1
            files += 1
            header, content = True, False
        elif line.startswith("@@"):
            header, content = False, True
        elif header:
            content = content or line.startswith("GIT binary patch")
        elif line[:1] in ("+", "-"):
            lines += 1
    lines += 0 if content else 1
    return files, lines


def dataset_dir(path: Path) -> Path:
    """The directory that relative `repo` paths of a dataset are relative to."""
    path = Path(path)
    return path.resolve() if path.is_dir() else path.resolve().parent


class DatasetError(BuildfixerError):
    """A dataset that cannot be loaded; `problems` holds every `file:line: field: problem`."""

    def __init__(self, summary: str, problems: list[str]) -> None:
        self.problems = problems
        shown = problems[:_MAX_LISTED]
        more = f"; ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        super().__init__(f"{summary}: {'; '.join(shown)}{more}")


def _describe(exc: ValidationError) -> list[str]:
    """One `field: problem` per error of a pydantic validation."""
    found = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "(instance)"
        message = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        found.append(f"{where}: {message}")
    return found


def _records(path: Path) -> Iterable[tuple[int, Any, str | None]]:
    """(line, parsed JSON or None, parse problem or None) for each record of one file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise BuildfixerError(f"cannot read dataset {path}: {reason}") from None
    if path.suffix == ".json":
        try:
            yield 1, json.loads(text), None
        except json.JSONDecodeError as exc:
            yield exc.lineno, None, f"invalid JSON: {exc.msg} (column {exc.colno})"
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"invalid JSON: {exc.msg} (column {exc.colno})"


def dataset_files(path: Path) -> list[Path]:
    """The files of a dataset: the file itself, or a directory's `*.jsonl` and `*.json` files.

    Raises:
        BuildfixerError: the path does not exist, or a directory holds no dataset file.
    """
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise BuildfixerError(f"no such dataset: {path}")
    files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".jsonl", ".json"))
    if not files:
        raise BuildfixerError(f"no .jsonl or .json files in dataset directory {path}")
    return files


def load_dataset(path: Path) -> list[Instance]:
    """Read every instance of a dataset (a `.jsonl` file, a `.json` file or a directory of them).

    Args:
        path: The dataset file or directory.

    Returns:
        The instances in file order (a directory's files sorted by name).

    Raises:
        DatasetError: schema problems, listed for every bad line as `file:line: field: problem`,
            or instance ids used twice.
        BuildfixerError: a missing or unreadable path, or a dataset without instances.
    """
    instances: list[Instance] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for file in dataset_files(path):
        for line, data, parse_problem in _records(file):
            where = f"{file}:{line}"
            if parse_problem is not None:
                problems.append(f"{where}: {parse_problem}")
                continue
            if not isinstance(data, dict):
                problems.append(f"{where}: expected a JSON object, got {type(data).__name__}")
                continue
            try:
                instance = Instance.model_validate(data)
            except ValidationError as exc:
                problems.extend(f"{where}: {problem}" for problem in _describe(exc))
                continue
            name = instance.instance_id
            if name in seen:
                problems.append(f"{where}: instance_id: duplicate {name!r} (first at {seen[name]})")
                continue
            seen[instance.instance_id] = where
            instances.append(instance)
    if problems:
        raise DatasetError(f"{len(problems)} problem(s) in dataset {path}", problems)
    if not instances:
        raise BuildfixerError(f"no instances in dataset {path}")
    return instances


def select_instances(instances: list[dict[str, Any]], only: str | None) -> list[dict[str, Any]]:
    """The instances whose id matches one of the comma-separated ids or globs in `only` (all if None).

    Raises:
        BuildfixerError: A pattern matches no instance (a typo would otherwise run nothing silently).
    """
    if only is None:
        return instances
    patterns = [p.strip() for p in only.split(",") if p.strip()]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(i["instance_id"], p) for i in instances)]
    if not patterns or unmatched:
        raise BuildfixerError(f"--only: no instance matches {', '.join(unmatched) or repr(only)}")
    return [i for i in instances if any(fnmatch.fnmatchcase(i["instance_id"], p) for p in patterns)]


def check_repositories(instances: Iterable[Instance], dataset_dir: Path) -> None:
    """Refuse instances whose repository is a path (or bundle) that does not exist, before any work.

    URLs are not checked here (that would need the network); their checkout says what is wrong.

    Raises:
        BuildfixerError: Which instances miss their repository, and where it was looked for.
    """
    missing = [
        f"{i.instance_id} ({i.repo_source(dataset_dir)})"
        for i in instances
        if not i.is_remote() and not Path(i.repo_source(dataset_dir)).exists()
    ]
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise BuildfixerError(f"no repository for {len(missing)} instance(s): {shown}")


def save_dataset(instances: Iterable[Instance], path: Path) -> None:
    """Write instances as JSONL atomically: readers see the old file or the whole new one.

    Raises:
        BuildfixerError: two instances share an id.
    """
    path = Path(path)
    lines = []
    seen: set[str] = set()
    for instance in instances:
        if instance.instance_id in seen:
            raise BuildfixerError(f"duplicate instance_id {instance.instance_id!r}")
        seen.add(instance.instance_id)
        lines.append(json.dumps(instance.to_dict(), ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)  # mkstemp makes it 0600
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def checkout(instance: Instance, base_dir: Path, cache_dir: Path | None = None) -> Workspace:
    """A pooled workspace (`Workspace.acquire`) at the instance's base commit; `release()` it after use.

    Args:
        instance: The instance.
        base_dir: The dataset's directory (`dataset_dir`), for relative repository paths.
        cache_dir: buildfixer's cache (mirrors and workspaces); the default cache when None.
    """
    return Workspace.acquire(instance.repo_source(base_dir), instance.base_commit, cache_dir=cache_dir)
