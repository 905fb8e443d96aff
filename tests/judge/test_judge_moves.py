"""Moved files: a rename is no deletion, unless it takes a test out of the runner's reach.

The harness diffs without rename detection, so a moved file arrives as a deletion and a creation;
git's own rename form arrives too (gold patches).
"""

from __future__ import annotations

import pytest

from buildfixer.judge.judge import judge_patch

CONFIG = '{\n  "compilerOptions": {"strict": true, "noImplicitAny": true}\n}\n'
TEST = "from stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"


def moved(old: str, new: str, text: str, new_text: str | None = None) -> str:
    """A move as `git diff --no-renames` shows it: the old file deleted, the new one created."""
    new_text = text if new_text is None else new_text
    minus = "".join(f"-{line}\n" for line in text.splitlines())
    plus = "".join(f"+{line}\n" for line in new_text.splitlines())
    n, m = len(text.splitlines()), len(new_text.splitlines())
    deleted = f"diff --git a/{old} b/{old}\ndeleted file mode 100644\n--- a/{old}\n+++ /dev/null\n"
    created = f"diff --git a/{new} b/{new}\nnew file mode 100644\n--- /dev/null\n+++ b/{new}\n"
    return f"{deleted}@@ -1,{n} +0,0 @@\n{minus}{created}@@ -0,0 +1,{m} @@\n{plus}"


def renamed(old: str, new: str) -> str:
    """A move in git's rename form (no content change)."""
    return f"diff --git a/{old} b/{new}\nsimilarity index 100%\nrename from {old}\nrename to {new}\n"


@pytest.mark.parametrize(
    "patch",
    [
        moved("tsconfig.shared.json", "tsconfig.base.json", CONFIG),  # the file the build names
        moved("tests/test_stats.py", "tests/test_mean.py", TEST),
        moved(
            "src/test/java/a/FooTest.java",
            "src/test/java/b/FooTest.java",
            "class FooTest {\n  @Test void t() {}\n}\n",
        ),
        renamed("tests/test_x.py", "tests/unit/test_x.py"),
    ],
)
def test_a_move_is_approved(patch: str) -> None:
    verdict = judge_patch(patch)
    assert verdict.approved, verdict.to_dict()


@pytest.mark.parametrize(
    "patch",
    [
        moved("tests/test_stats.py", "tests/stats_disabled.py", TEST),  # pytest collects test_*.py only
        moved("src/test/java/a/FooTest.java", "src/test/java/a/FooTest.java.off", "class FooTest {}\n"),
        renamed("tests/test_x.py", "tests/x_disabled.py"),
        renamed("src/__tests__/cart.test.ts", "src/cart.ts.bak"),
        moved("tests/test_stats.py", "tests/test_stats2.py", TEST, TEST.replace("assert mean", "mean")),
    ],
)
def test_a_test_renamed_away_or_emptied_on_the_way_is_rejected(patch: str) -> None:
    verdict = judge_patch(patch)
    assert not verdict.approved
    assert {f.rule for f in verdict.findings} & {"test_deleted", "assertion_removed"}
