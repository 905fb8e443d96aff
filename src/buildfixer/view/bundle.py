"""`buildfixer view bundle`: the viewer as a static site that opens from `file://`, offline.

Layout of DIR: the page (`index.html`, `app.css`, `*.js`), `data.js` (the attempt list),
`attempts/N.js` and `instances/N.js` (one page's data each, loaded when the page is opened),
`search.js` (each attempt's text, loaded when the list is first searched), and `.buildfixer-view`,
the mark that lets a later bundle replace DIR. No local path is written (`local_paths`). The site is
built in a temporary directory beside DIR and renamed into place, so a killed bundle never leaves a
half-written DIR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import staged_folder
from buildfixer.core.errors import BuildfixerError
from buildfixer.view.assets import STATIC, data_script, static_file
from buildfixer.view.attempt import attempt_page, search_text
from buildfixer.view.local_paths import machine_places
from buildfixer.view.runs import attempts, index, instance_page, read_source, sources

MARK = ".buildfixer-view"


@dataclass(frozen=True)
class Written:
    """What a bundle holds: where it is, how many attempts and instances, and its size in bytes."""

    out: Path
    attempts: int
    instances: int
    size: int


def _check_out(out: Path, runs: Sequence[Path]) -> None:
    """Refuse an output directory that is not ours to replace (a run directory, a user's folder)."""
    target = out.resolve()
    for run in runs:
        if target == run.resolve() or target in run.resolve().parents:
            raise BuildfixerError(f"--out {out} would replace the run directory {run}; name a new directory")
    if out.exists() and not out.is_dir():
        raise BuildfixerError(f"--out {out} exists and is not a directory")
    if out.is_dir() and not (out / MARK).is_file() and any(out.iterdir()):
        raise BuildfixerError(f"--out {out} exists and is not a viewer bundle; name a new or empty directory")


def _write(path: Path, text: str | bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(data)
    return len(data)


def _fill(site: Path, paths: Sequence[Path]) -> tuple[int, int, int]:
    """Write the whole site into `site`; (attempts, instances, bytes)."""
    runs = [(source, read_source(source)) for source in sources(paths)]
    places = machine_places(paths)
    size = sum(_write(site / name, static_file(name)) for name in STATIC)
    files: dict[str, str] = {}

    def attempt_file(row: dict[str, Any]) -> str:
        files[row["key"]] = f"attempts/{len(files)}.js"
        return files[row["key"]]

    instance_files: dict[str, str] = {}

    def instance_file(instance_id: str) -> str:
        instance_files[instance_id] = f"instances/{len(instance_files)}.js"
        return instance_files[instance_id]

    listing = index(runs, attempt_file, instance_file, live=False)
    size += _write(site / "data.js", data_script("index", listing, places))
    texts: dict[str, str] = {}
    for source, run in runs:
        for row, result in attempts(source, run):
            page = attempt_page(source, run, row, result)
            size += _write(site / files[row["key"]], data_script(f"attempt/{row['key']}", page, places))
            texts[row["key"]] = search_text(run, row, result)
    size += _write(site / "search.js", data_script("search", texts, places))
    for instance_id, name in instance_files.items():
        page = instance_page(runs, instance_id)
        size += _write(site / name, data_script(f"instance/{instance_id}", page, places))
    size += _write(site / MARK, "Written by `buildfixer view bundle`; a new bundle replaces it.\n")
    return len(files), len(instance_files), size


def write_bundle(paths: Sequence[Path], out: Path) -> Written:
    """Write the viewer of these runs to `out` as a static site, replacing an earlier bundle there.

    Args:
        paths: Run directories of `buildfixer bench run`, or trajectory files (run index 0 is the first).
        out: The site's directory (created; an earlier bundle in it is replaced as a whole).

    Returns:
        What was written.

    Raises:
        BuildfixerError: A run is bad, or `out` holds something other than a bundle.
    """
    sources(paths)  # bad input stops before anything is written
    _check_out(out, paths)
    with staged_folder(out) as site:  # the old bundle stays whole until the new one is in place
        counts = _fill(site, paths)
    return Written(out, *counts)
