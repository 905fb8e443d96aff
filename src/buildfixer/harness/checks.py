"""Checks of the values a person gives, where they enter (a flag, a config file, a Python call).

Every configuration (an attempt's, a run's, a curation's, an export's) checks its numbers, output
paths, seconds and JDK levels here, so a value means the same and fails with the same words
everywhere: one BuildfixerError line (exit 2) before any build starts. Light on purpose: a
command that only builds imports it (config files and pydantic are harness.config_files').
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from buildfixer.buildsys.jdk import find_jdk
from buildfixer.core.errors import BuildfixerError

# Upper limits of numbers a person may give: anything above is a typo, and would overflow timers
# (`--timeout 1e308`) or allocate without end (`--samples 1000000000000`).
MAX_SECONDS = 7 * 24 * 3600.0  # a week: timeouts and time budgets
MAX_CALLS = 100_000
MAX_TOKENS = 10**10  # an attempt's token budget
MAX_COST_USD = 1_000_000.0
MAX_OUTPUT_TOKENS = 1_000_000  # one reply
MAX_SEED = 2**63 - 1  # providers take a 64-bit seed
MAX_JDK = 99
MAX_REPEATS = 100  # builds of one state (validation, curation): more only makes a run endless


def number_problem(value: Any, *, whole: bool, low: float, high: float, low_open: bool = False) -> str | None:
    """What is wrong with a number given for a setting (None when it is fine), as "must be ..." words.

    Args:
        value: The value as it came (a flag, a config file, a Python call): any type.
        whole: An int is required (never a bool); otherwise an int or a float, finite.
        low: The smallest value allowed.
        high: The largest value allowed.
        low_open: `low` itself is excluded ("must be positive" for 0).
    """
    if not _is_number(value, whole):
        return f"must be a {'whole ' if whole else ''}number, got {value!r}"
    if not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if low_open and value <= low:
        return "must be positive" if low == 0 else f"must be above {low:g}"
    if value < low:
        return f"must be at least {low:g}, got {value:g}"
    if value > high:
        return f"must be at most {high:g}, got {value:g}"
    return None


def check_number(
    option: str, value: Any, *, whole: bool, low: float, high: float, low_open: bool = False
) -> None:
    """`number_problem` for a command-line option: a BuildfixerError (exit 2) naming it.

    Raises:
        BuildfixerError: "OPTION must be ...".
    """
    if problem := number_problem(value, whole=whole, low=low, high=high, low_open=low_open):
        raise BuildfixerError(f"{option} {problem}")


def check_output_path(option: str, path: Path, *, directory: bool) -> None:
    """Refuse, before anything is written, a place an output cannot go.

    A directory output may exist (as a directory) or not; a file output must not be a directory.
    Either way the nearest existing ancestor must be a directory (not a file), so the parents
    can be made.

    Raises:
        BuildfixerError: "OPTION PATH is ...".
    """
    if path.is_dir() and not directory:
        raise BuildfixerError(f"{option} {path} is a directory: give a file name")
    if path.exists() and not path.is_dir() and directory:
        raise BuildfixerError(f"{option} {path} is a file: give a directory")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise BuildfixerError(f"{option} {path} is under {parent}, which is not a directory")
            return


def check_seconds(option: str, value: Any) -> None:
    """A timeout or time limit: positive, finite, at most MAX_SECONDS.

    Raises:
        BuildfixerError: "OPTION must be ...".
    """
    check_number(option, value, whole=False, low=0, high=MAX_SECONDS, low_open=True)


def check_jdk(jdk: int | None) -> None:
    """A --jdk must be a Java version that is installed here (checked before any build).

    Raises:
        BuildfixerError: Out of range, or not installed (naming the installed ones).
    """
    if jdk is not None:
        check_number("--jdk", jdk, whole=True, low=1, high=MAX_JDK)
        find_jdk(jdk)


def _is_number(value: Any, whole: bool) -> bool:
    """True for an int (or, unless `whole`, a float); never for a bool."""
    return not isinstance(value, bool) and isinstance(value, int if whole else int | float)
