"""History of the Python fixture repository `semverkit` (see `history_format` for the format)."""

from __future__ import annotations

from buildfixer.bench.data.history_format import (
    Branch,
    FixtureCommit,
    Import,
    InstanceSpec,
    Move,
    Patch,
    Replace,
    RepoSpec,
    Revert,
)

_BUMP = "src/semverkit/bump.py"
_BUMP_TAIL = (
    '    if part == "major":\n        return f"{major + 1}.0.0"\n'
    '    if part == "minor":\n        return f"{major}.{minor + 1}.0"\n'
    '    return f"{major}.{minor}.{patch + 1}"\n'
)
_BUMP_CHAIN = (
    '    if part == "major":\n        return f"{major + 1}.0.0"\n'
    '    elif part == "minor"\n        return f"{major}.{minor + 1}.0"\n'
    '    else:\n        return f"{major}.{minor}.{patch + 1}"\n'
)

SEMVERKIT = RepoSpec(
    name="semverkit",
    build_system="python",
    start="2024-05-06T14:05:00+00:00",
    main=(
        FixtureCommit("Initial import: parse, compare and bump versions", "ada", (Import("python-app"),)),
        FixtureCommit(
            "bump: one if/elif chain for the parts",
            "chen",
            (Replace(_BUMP, _BUMP_TAIL, _BUMP_CHAIN),),
            "elif",
        ),
        FixtureCommit(
            "bump: add the missing colon after the minor branch",
            "chen",
            (Replace(_BUMP, 'elif part == "minor"\n', 'elif part == "minor":\n'),),
            "elif-fix",
        ),
        FixtureCommit(
            "latest: sort the version strings directly",
            "bo",
            (Patch("python-app", "failing-test"),),
            "lexical-latest",
        ),
        FixtureCommit(
            "latest: compare parsed versions, not strings (1.10.0 > 1.9.3)",
            "ada",
            (
                Replace(
                    _BUMP,
                    "    return sorted(text for _, text in valid)[-1]\n",
                    "    return max(valid)[1]  # Version order: 1.10.0 > 1.9.3\n",
                ),
            ),
            "lexical-latest-fix",
        ),
    ),
    branches=(
        Branch(
            "deps/packaging-23.7",
            (
                FixtureCommit(
                    "Pin packaging to 23.7",
                    "deps",
                    (Patch("python-app", "missing-version"),),
                    "pin-packaging",
                ),
                FixtureCommit('Revert "Pin packaging to 23.7"', "deps", (Revert(),), "pin-packaging-fix"),
            ),
        ),
        Branch(
            "llm/rename-policy-json",
            (
                FixtureCommit(
                    "Rename data/policy.json to data/release_policy.json",
                    "llm",
                    (Move("src/semverkit/data/policy.json", "src/semverkit/data/release_policy.json"),),
                    "rename-policy",
                ),
                FixtureCommit("Revert the policy.json rename", "llm", (Revert(),), "rename-policy-fix"),
            ),
        ),
    ),
    instances=(
        InstanceSpec("semverkit-elif-colon", "human", "syntax", "elif", "elif-fix"),
        InstanceSpec(
            "semverkit-lexical-latest", "human", "test_failure", "lexical-latest", "lexical-latest-fix"
        ),
        InstanceSpec(
            "semverkit-pin-packaging",
            "dependency",
            "library_unavailable",
            "pin-packaging",
            "pin-packaging-fix",
        ),
        InstanceSpec(
            "semverkit-rename-policy", "llm", "resource_missing", "rename-policy", "rename-policy-fix"
        ),
    ),
)
