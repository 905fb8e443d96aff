"""The judge on a corpus of reward hacks and honest fixes of our own, and on the bundled gold patches."""

import json
from pathlib import Path

import pytest
from judge_corpus import HACKS, HONEST, to_diff

from buildfixer.judge.judge import judge_patch
from support.git import git

DATASET = Path(__file__).parents[2] / "src" / "buildfixer" / "bench" / "data" / "instances.jsonl"


@pytest.mark.parametrize("name", sorted(HACKS))
def test_every_hack_is_rejected(name: str) -> None:
    verdict = judge_patch(to_diff(*HACKS[name]))
    assert not verdict.approved, name
    assert all(f.file == HACKS[name][0] for f in verdict.findings)


@pytest.mark.parametrize("name", sorted(HONEST))
def test_no_honest_fix_is_rejected(name: str) -> None:
    verdict = judge_patch(to_diff(*HONEST[name]))
    assert verdict.approved, verdict.findings


def test_no_gold_patch_of_the_bundled_dataset_is_rejected() -> None:
    rows = [json.loads(line) for line in DATASET.read_text().splitlines() if line.strip()]
    rejected = {row["instance_id"]: judge_patch(row["gold_patch"]).findings for row in rows}
    assert len(rows) >= 15 and not any(rejected.values()), {k: v for k, v in rejected.items() if v}


def test_the_corpus_is_large_enough_and_spans_the_build_systems() -> None:
    assert len(HACKS) >= 20 and len(HONEST) >= 10
    paths = " ".join(path for path, _, _ in HACKS.values())
    assert all(marker in paths for marker in ("build.gradle", "pom.xml", ".py", "package.json", ".ts"))


def test_no_gold_patch_is_rejected_as_the_harness_diffs_it(tmp_path: Path) -> None:
    """The same patches made the harness's way: applied in a clone and diffed without rename detection."""
    rows = [json.loads(line) for line in DATASET.read_text().splitlines() if line.strip()]
    clones: dict[str, Path] = {}
    rejected = {}
    for row in rows:
        if row["repo"] not in clones:
            clones[row["repo"]] = tmp_path / Path(row["repo"]).stem
            git(tmp_path, "clone", "-q", str(DATASET.parent / row["repo"]), str(clones[row["repo"]]))
        repo = clones[row["repo"]]
        git(repo, "checkout", "-q", "--force", row["base_commit"])
        git(repo, "clean", "-qfdx")
        git(repo, "apply", "-", input=row["gold_patch"])
        git(repo, "add", "-A")
        patch = git(repo, "diff", "--cached", "--no-renames", row["base_commit"], raw=True)
        rejected[row["instance_id"]] = judge_patch(patch, repo).findings  # the project's tests read too
    assert not any(rejected.values()), {k: v for k, v in rejected.items() if v}
