"""Case-insensitive phrase lists searched fast: each phrase only when a word it needs is in the text.

Python's `re` tries every branch of a case-insensitive alternation at every position of a text
(no literal prefix to skip to), so the taxonomy's rules cost about a millisecond per short
message and several for a long one; a flood of error lines multiplies that by tens of
thousands. Nearly every phrase contains a literal run that any match must contain ("cannot
find symbol", "could not find "): a phrase is searched only when one of its required runs
occurs in the case-folded text. The answer is the alternation's own, found in microseconds.

The required runs are read from the parse tree of `re` itself (`re._parser`); a phrase whose
runs cannot be read is simply searched.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

try:  # the parser `re` compiles with; private (untyped), so its absence only costs speed
    sre_parser: Any = importlib.import_module("re._parser")
    sre_constants: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - a Python without it
    sre_parser = None

# The only characters beyond ASCII that a case-insensitive `re` matches to an ASCII letter
# (found by trying every code point): folded to that letter, `str.lower` does the rest.
_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def fold(text: str) -> bytes:
    """The text as the prefilter compares it: lower-cased, the four letters above made ASCII.

    As UTF-8 bytes: the runs are ASCII, which no multi-byte character contains, and a substring
    test in bytes stays fast where one in a wide string is not.
    """
    lowered = text.lower() if text.isascii() else text.translate(_TO_ASCII).lower()
    return lowered.encode("utf-8", errors="replace")


class Phrases:
    """Phrases (regex sources) matched case-insensitively; `search` says whether any matches."""

    def __init__(self, *phrases: str) -> None:
        """Keep the phrases; they are compiled on the first search (a build that passes needs none)."""
        self._phrases = phrases
        self._regexes: list[re.Pattern[str]] = []
        self._runs: tuple[tuple[bytes, int], ...] = ()
        self._always: frozenset[int] = frozenset()

    def _compile(self) -> None:
        """Compile each phrase on its own, with the literal runs one of which it needs."""
        runs = [required_runs(p) for p in self._phrases]
        # (run, index of its phrase) for every run; the phrases without one are always searched.
        self._runs = tuple((run.encode(), index) for index, needed in enumerate(runs) for run in needed)
        self._always = frozenset(index for index, needed in enumerate(runs) if not needed)
        self._regexes = [re.compile(p, re.IGNORECASE) for p in self._phrases]

    def search(self, text: str, folded: bytes | None = None) -> bool:
        """True when some phrase matches in `text`: what the alternation of all of them would say.

        Args:
            text: the text to search.
            folded: `fold(text)`, when the caller searches several phrase lists in one text.
        """
        if not self._regexes and self._phrases:
            self._compile()
        folded = fold(text) if folded is None else folded
        # One substring test per run (microseconds in all); the few phrases whose run occurs
        # are then searched, any one matching being a match of the alternation.
        candidates = self._always.union(index for run, index in self._runs if run in folded)
        return any(self._regexes[index].search(text) for index in candidates)


def required_runs(phrase: str) -> frozenset[str]:
    """Folded literal runs one of which occurs in every match of `phrase`; empty when unknown."""
    if sre_parser is None:
        return frozenset()
    try:
        parsed = sre_parser.parse(phrase, re.IGNORECASE)
    except re.error:
        return frozenset()
    return _runs(list(parsed)) or frozenset()


def _runs(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """Runs one of which a match of this sequence contains: the most selective set found, or None."""
    options: list[frozenset[str]] = []
    run: list[str] = []
    for op, value in [*items, (None, None)]:  # the sentinel ends the last run
        if op is sre_constants.LITERAL:
            run.append(chr(value))
            continue
        if run:
            options.append(frozenset(["".join(run).lower()]))
            run = []
        found: frozenset[str] | None = None
        if op is sre_constants.SUBPATTERN:
            found = _runs(list(value[-1]))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and value[0] >= 1:
            found = _runs(list(value[2]))
        elif op is sre_constants.BRANCH:
            branches = [_runs(list(branch)) for branch in value[1]]
            if all(branches):  # each branch needs one of its runs: the phrase, one of all of them
                found = frozenset(run for runs in branches if runs for run in runs)
        if found:
            options.append(found)
    # Every item of a sequence is required: any one option will do; the one whose shortest
    # run is longest rejects the most texts. Only ASCII runs: folding is exact for those.
    options = [runs for runs in options if all(run.isascii() for run in runs)]
    return max(options, key=lambda runs: min(map(len, runs)), default=None)
