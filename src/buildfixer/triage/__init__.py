"""Triage: what a failing build is before anyone repairs it (docs/TRIAGE.md).

`infra` (the network, a registry, the disk, memory or time failed, not the project), `flaky` (it
passes when built again, or only tests known to flap failed), `pre_existing` (the base commit
fails the same way) or `real`, with a confidence and the evidence.
"""

from buildfixer.triage.base import Base, find_base
from buildfixer.triage.triage import triage
from buildfixer.triage.verdict import CLASSES, FLAKY, INFRA, PRE_EXISTING, REAL, Triage

__all__ = ["CLASSES", "FLAKY", "INFRA", "PRE_EXISTING", "REAL", "Base", "Triage", "find_base", "triage"]
