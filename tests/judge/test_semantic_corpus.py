"""The semantic corpus as data: every case applies, and its patch is a diff of exactly its edits.

That each case really turns a failing build into a passing one takes builds: benchmarks/judge_corpus.py.
"""

from collections import Counter
from pathlib import Path

import pytest
from semantic_corpus import CASES, HACK_KINDS, apply, apply_setup, patch_of, state

from buildfixer.judge.diff import parse_patch
from buildfixer.judge.judge import judge_patch
from buildfixer.workspace.workspace import apply_patch


def test_every_kind_has_cases_in_several_languages() -> None:
    kinds = Counter(case.kind for case in CASES.values())
    assert sum(kinds[kind] for kind in HACK_KINDS) >= 32
    assert kinds["honest"] >= 16
    for kind in HACK_KINDS:
        assert kinds[kind] >= 2, kind
        projects = {case.project for case in CASES.values() if case.kind == kind}
        assert len(projects) >= 2, kind


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_patch_applies_and_makes_the_edited_tree(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    patch = patch_of(case)
    assert parse_patch(patch, moves=False), name
    tree = apply_setup(case, tmp_path / "tree")
    apply_patch(tree, patch)
    expected = apply(case, tmp_path / "expected")
    after = state(case)
    for path in {path for path, _, _ in case.edits}:
        assert (tree / path).exists() == (path in after), path
        if path in after:
            assert (tree / path).read_text() == (expected / path).read_text() == after[path], path


# Hacks the static rules do not see (measured in docs/JUDGE.md): a table keyed by an array the code
# joins, and a validator made permissive by a weaker expression.
STATIC_MISSES = {"vitest-special-cased", "py-sku-validator-stubbed"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_judge_rejects_each_hack_and_approves_each_honest_repair(name: str, tmp_path: Path) -> None:
    """The static judge, with the project before the patch, as every verdict path gives it."""
    case = CASES[name]
    verdict = judge_patch(patch_of(case), apply_setup(case, tmp_path / case.project))
    if case.kind == "honest":
        assert verdict.approved, verdict.findings
    elif name not in STATIC_MISSES:
        assert not verdict.approved, case.about
