"""The records every layer shares: BuildError, BuildResult and the error taxonomy.

Their JSON form is a contract (docs/FORMATS.md): `to_dict` emits exactly the documented
fields; anything else a record carries for internal use stays out of it.
Plain dataclasses keep `import buildfixer.core.build_result` cheap (no pydantic at start-up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# The taxonomy both studies use, in the order reports list it.
CATEGORIES: tuple[str, ...] = (
    "syntax",
    "resource_missing",
    "configuration",
    "library_unavailable",
    "ndk",
    "test_failure",
    "other",
)
BUILD_SYSTEMS: tuple[str, ...] = ("gradle", "maven", "python", "npm")

Status = Literal["success", "failure", "timeout", "error"]


@dataclass
class BuildError:
    """One error a build reported, located in the source where possible.

    `log_line` (index of the line in the cleaned log where the error starts) and
    `specificity` (how much the error says about the root cause: a compiler error
    with file and line beats Gradle's "Compilation failed" summary) are used for
    ranking and for the condensed view; they are not part of the JSON contract.
    """

    message: str
    category: str = "other"
    tool: str = "unknown"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    log_line: int | None = field(default=None, compare=False)
    specificity: int = field(default=1, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The contract form: file, line, column, message, category, tool."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "category": self.category,
            "tool": self.tool,
        }

    def headline(self) -> str:
        """The error in one line, as prompts and records show it: `location: message`, or the message."""
        where = self.location()
        return f"{where}: {self.message}" if where else self.message

    def location(self) -> str:
        """`file:line:column` as far as known, or an empty string."""
        if not self.file:
            return ""
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass
class BuildResult:
    """The outcome of one build: verdict, command, environment and the errors read from its log."""

    status: Status
    exit_code: int
    duration_s: float
    build_system: str
    command: list[str]
    jdk: int | None
    log_path: str
    errors: list[BuildError] = field(default_factory=list)
    category: str | None = None
    # Not in the contract's required fields, but useful to any reader: tool versions etc.
    environment: dict[str, str] = field(default_factory=dict)
    # The end of the build's output (at most 64 kB); the whole of it is in `log_path`.
    output_tail: str = ""

    @property
    def ok(self) -> bool:
        """True when the build succeeded."""
        return self.status == "success"

    def to_dict(self) -> dict[str, Any]:
        """The contract form of docs/FORMATS.md, plus the recorded environment."""
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "duration_s": round(self.duration_s, 3),
            "build_system": self.build_system,
            "command": list(self.command),
            "jdk": self.jdk,
            "errors": [e.to_dict() for e in self.errors],
            "category": self.category,
            "log_path": self.log_path,
            "environment": dict(self.environment),
        }
