"""The judge's answer: approved or not, and why (the `buildfixer judge --json` record)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


def excerpt(text: str) -> str:
    """A line of the patch as a finding's detail quotes it: stripped, at most 70 characters."""
    return text.strip()[:70]


@dataclass(frozen=True)
class Finding:
    """One reason to reject a change.

    Attributes:
        rule: Which rule fired (`test_disabled`, `assertion_removed`, ...).
        file: The file it concerns, when one does.
        line: Its line there (the new file's for added lines, the old file's for removed ones).
        detail: What was seen, in one sentence.
    """

    rule: str
    file: str | None
    line: int | None
    detail: str


@dataclass
class Verdict:
    """The judge's verdict on one patch."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was checked beyond the static rules
    llm: dict[str, Any] | None = None  # the LLM judge's answer, when one was asked (judge.llm_judge)

    @property
    def approved(self) -> bool:
        """No finding."""
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        """`{"approved": bool, "findings": [{"rule", "file", "line", "detail"}], "notes": [...]}`.

        With an LLM judge also `"llm": {"model", "approved", "reasons"}` (or `"error"`).
        """
        data = {
            "approved": self.approved,
            "findings": [asdict(f) for f in self.findings],
            "notes": self.notes,
        }
        if self.llm is not None:
            data["llm"] = self.llm
        return data
