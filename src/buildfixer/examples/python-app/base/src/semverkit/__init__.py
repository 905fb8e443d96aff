"""Parse, compare and bump release versions."""

from semverkit.bump import bump, latest
from semverkit.policy import is_allowed

__all__ = ["bump", "is_allowed", "latest"]
