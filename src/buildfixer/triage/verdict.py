"""The triage record: what a failing build is, how sure, and the evidence (docs/TRIAGE.md).

Its JSON form (`Triage.to_dict`) is what `buildfixer triage --json` prints, what `fix --json`
carries under `triage`, and what trajectories and benchmark results record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from buildfixer.core.build_result import BuildResult

# The classes, in the order triage decides them.
INFRA = "infra"  # the machine, the network, a registry, the disk, memory or time failed, not the project
FLAKY = "flaky"  # passes when built again unchanged, or only tests known to flap failed
PRE_EXISTING = "pre_existing"  # fails the same way on the base commit
REAL = "real"  # none of the above: the change broke the build
CLASSES = (INFRA, FLAKY, PRE_EXISTING, REAL)

# Characters of an evidence line or message kept: enough to recognise it, never a whole dump.
MAX_EVIDENCE_CHARS = 300


def clip(text: str, limit: int = MAX_EVIDENCE_CHARS) -> str:
    """One line of evidence: blanks collapsed, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Signal:
    """One sign that the machine, not the project, failed.

    Attributes:
        kind: network, tls, registry, disk, memory, timeout, limit (a limit of buildfixer's sandbox:
            memory, processes, CPU time, file size, /tmp, free disk, or a registry its egress proxy
            does not reach, named in `detail`), start (the build tool could not start) or lock
            (another build held a cache lock).
        detail: The matching log line, or the build status that says it.
        log_line: Index of the line in the cleaned log (None for a status).
    """

    kind: str
    detail: str
    log_line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"kind": self.kind, "detail": self.detail, "log_line": self.log_line}


def build_summary(result: BuildResult) -> dict[str, Any]:
    """A build as evidence: status, root error, category, time and where its log is."""
    root = result.errors[0] if result.errors else None
    return {
        "status": result.status,
        "exit_code": result.exit_code,
        "category": result.category,
        "root_error": clip(root.headline()) if root else None,
        "duration_s": round(result.duration_s, 3),
        "log_path": result.log_path,
    }


@dataclass
class Triage:
    """What a failing build is (`kind`, one of CLASSES), how sure (`confidence`, 0-1, and its basis).

    Attributes:
        kind: The class; None when the build passed (nothing to triage).
        confidence: How sure, 0 to 1; `basis` says what it rests on.
        basis: The decisive evidence in one sentence.
        first: The build triaged (`build_summary`).
        signals: Infrastructure signals found (lines of the log, the status).
        known_flaky: Failing tests marked as known to flap (test, file, marker).
        reruns: Builds run again in the same workspace, unchanged (`build_summary` + `same_failure`).
        base: The base commit's build: ref, commit, and its summary with `same_failure`; None when not built.
        notes: What triage could not do and why (no base ref, the budget spent).
        builds: Builds triage ran besides the first.
        seconds: Time triage took besides the first build.
    """

    kind: str | None
    confidence: float
    basis: str
    first: dict[str, Any]
    signals: list[Signal] = field(default_factory=list)
    known_flaky: list[dict[str, Any]] = field(default_factory=list)
    reruns: list[dict[str, Any]] = field(default_factory=list)
    base: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    builds: int = 0
    seconds: float = 0.0

    @property
    def stops_repair(self) -> bool:
        """Flaky and infrastructure failures are reported, never patched."""
        return self.kind in (FLAKY, INFRA)

    def headline(self) -> str:
        """`class (confidence): basis` in one line."""
        if self.kind is None:
            return self.basis
        return f"{self.kind} ({self.confidence:.2f}): {self.basis}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (docs/TRIAGE.md)."""
        return {
            "class": self.kind,
            "confidence": round(self.confidence, 2),
            "basis": self.basis,
            "evidence": {
                "first": self.first,
                "signals": [s.to_dict() for s in self.signals],
                "known_flaky": list(self.known_flaky),
                "reruns": list(self.reruns),
                "base": self.base,
                "notes": list(self.notes),
            },
            "builds": self.builds,
            "seconds": round(self.seconds, 3),
        }
