"""A patch file named on the command line (`build --patch`, `judge --patch`, `memory add --patch`).

Kept apart from `cli.commands` so the commands that only read a patch import nothing of the
build or the harness.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.core.errors import BuildfixerError


def read_patch(patch: Path) -> str:
    """The text of a --patch file, which must be a unified diff.

    Raises:
        BuildfixerError: Unreadable, or not a diff.
    """
    try:
        text = patch.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise BuildfixerError(f"cannot read patch {patch}: {why}") from None
    if not text.startswith(("diff --git ", "--- ")) and "\n+++ " not in text and "\ndiff --git " not in text:
        raise BuildfixerError(f"patch {patch} is not a unified diff (no 'diff --git' or '+++' file header)")
    return text
