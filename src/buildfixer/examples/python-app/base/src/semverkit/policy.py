"""Release policy: which versions a project may publish."""

import json
from importlib import resources

from packaging.version import Version

_POLICY = json.loads(resources.files("semverkit").joinpath("data/policy.json").read_text())


def is_allowed(version):
    """Return True when ``version`` satisfies the bundled release policy."""
    parsed = Version(version)
    if parsed.is_prerelease and not _POLICY["allow_prereleases"]:
        return False
    return parsed >= Version(_POLICY["minimum"])
