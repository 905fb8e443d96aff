"""Version arithmetic on top of ``packaging.version``."""

from packaging.version import InvalidVersion, Version

PARTS = ("major", "minor", "patch")


def latest(candidates):
    """Return the highest valid version string among ``candidates`` (None if there is none)."""
    valid = []
    for text in candidates:
        try:
            valid.append((Version(text), text))
        except InvalidVersion:
            continue
    if not valid:
        return None
    return max(valid)[1]


def bump(version, part="patch"):
    """Return ``version`` with ``part`` incremented and the lower parts reset to zero."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; expected one of {PARTS}")
    major, minor, patch = (list(Version(version).release) + [0, 0, 0])[:3]
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"
