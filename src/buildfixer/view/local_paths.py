"""This machine's paths out of everything the viewer shares: a bundle is meant to be hosted or sent.

Every string that leaves the viewer (each data script, each failure message) goes through one
function, `Places.shared`: the places only the viewer knows become placeholders first (the run
directories `<run>`; the workspace an attempt ran in and the user's project, a trajectory's
`meta.project` and `meta.source`, `<project>`; the cache and home of the machine a run was recorded
on), then `core.shareable`'s rules take this machine's own (`<cache>`, `<buildfixer>`, `$JAVA_HOME`,
`<venv>`, `<tmp>`, `<home>`, the working directory made relative), and control characters are
spelled out as on a terminal (`core.terminal.visible`), so a bidi override or an escape sequence
in model or build text cannot disguise what the page shows.

Only whole path components are replaced (`/tmp/run1` is not a prefix of `/tmp/run10`), and never a
line break, so the line numbers of marked logs stay right.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.core.shareable import Sharing, sharing
from buildfixer.core.terminal import visible

PROJECT = "<project>"
RUN = "<run>"
# A workspace in the cache, once the cache is `<cache>`: a fix's `ws-<pid>-<random>`, a benchmark's
# `<repository>/slot-<n>` (workspace.workspace). Any of them is the attempt's project, also where the
# attempt's own places are not at hand (a stop reason in the list, an instance's page).
_WORKSPACE = re.compile(r"<cache>/workspaces/(?:ws-[\w.-]+|[\w.-]+/slot-\d+)(?![\w.~-])")


@dataclass(frozen=True)
class Places:
    """Paths only the viewer knows (runs, an attempt's workspace), each with its placeholder.

    Attributes:
        names: (path, placeholder) pairs, before `core.shareable`'s rules for this machine's
            places; where two paths nest, the longer (more specific) wins.
    """

    names: tuple[tuple[str, str], ...]
    machine: bool = True  # False: this machine's places are left to the pass that writes the script
    _sharing: Sharing = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sharing", sharing(places=self.names, machine=self.machine))

    def plus(self, names: Iterable[tuple[str | Path | None, str]]) -> Places:
        """These places and more (paths that are None or empty are left out)."""
        more = tuple((str(path), shown) for path, shown in names if path)
        return Places(self.names + more, self.machine)

    def shared(self, value: Any) -> Any:
        """`value` (a string, or data for JSON: dicts, lists, numbers) as the viewer may share it.

        Every string in it, dict keys included, has each local place replaced by its placeholder
        and its control characters spelled out (`visible`); numbers, booleans and None are kept,
        anything else (a Path) becomes its string first.
        """
        if isinstance(value, str):
            text = self._sharing.apply(value)
            if "<cache>/workspaces/" in text:
                text = _WORKSPACE.sub(PROJECT, text)
            return visible(text)
        if isinstance(value, dict):
            return {self.shared(key): self.shared(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.shared(item) for item in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.shared(str(value))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _recorded_cache(path: Any) -> str | None:
    """The cache folder of the machine that recorded a path in it (a harness log, a workspace), else None.

    A run recorded elsewhere (a cluster, another user) names that machine's cache, not this one's.
    """
    if not isinstance(path, str):
        return None
    for folder in ("/state/", "/workspaces/"):
        if folder in path:
            return path.split(folder, 1)[0]
    return None


def attempt_places(trajectory: dict[str, Any]) -> Places:
    """One attempt's places, read from its trajectory.

    The workspace it ran in (`meta.project`) and the user's project (`meta.source`, a `fix`) are
    `<project>`; the cache and home of the machine it was recorded on, `<cache>` and `<home>`.
    """
    meta, verdict = _dict(trajectory.get("meta")), _dict(trajectory.get("verdict"))
    initial = _dict(meta.get("initial"))
    names: list[tuple[str | None, str]] = [(meta.get(key), PROJECT) for key in ("project", "source")]
    for path in (meta.get("project"), initial.get("log_path"), verdict.get("log_path")):
        cache = _recorded_cache(path)
        names.append((cache, "<cache>"))
        if cache and cache.endswith("/.cache/buildfixer"):  # the default place: it names the home
            names.append((cache.removesuffix("/.cache/buildfixer"), "<home>"))
    # The script's own pass (`machine_places`) knows the runs and this machine's places.
    own = [(path if isinstance(path, str) else None, shown) for path, shown in names]
    return Places((), machine=False).plus(own)


def machine_places(runs: Sequence[Path]) -> Places:
    """The places of the run directories given (trajectory files name no folder of their own).

    `core.shareable` knows the rest of this machine's places (cache, package, JDKs, venv, home...).
    """
    return Places(()).plus((run, RUN) for run in runs if run.is_dir())
