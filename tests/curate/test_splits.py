"""Time-ordered splits and the stratified test subset."""

import json
from collections import Counter

import pytest

from buildfixer.bench.dataset import Instance, load_dataset
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.splits import stratified_subset, time_split, write_splits

PATCH = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"


def make(n, origin, day):
    return Instance(
        instance_id=f"i{n}", repo="repos/r.bundle", base_commit="a" * 40, gold_patch=PATCH, origin=origin,
        category="syntax", build_system="python", files_changed=1, lines_changed=2,
        created_at=f"2024-01-{day:02d}T00:00:00Z",
    )  # fmt: skip


def dataset():
    origins = ["human"] * 10 + ["dependency"] * 6 + ["llm"] * 4
    return [make(n, origin, 1 + (n * 7) % 28) for n, origin in enumerate(origins)]


def test_time_split_puts_the_newest_in_test():
    splits = time_split(dataset(), val=0.1, test=0.25)
    assert [len(splits[name]) for name in ("train", "val", "test")] == [13, 2, 5]
    newest_train = max(i.created_at for i in splits["train"])
    assert (
        newest_train <= min(i.created_at for i in splits["val"]) <= min(i.created_at for i in splits["test"])
    )
    with pytest.raises(BuildfixerError, match="adding up to less than 1"):
        time_split(dataset(), val=0.5, test=0.5)


def test_stratified_subset_keeps_the_origin_mix_and_its_seed():
    items = dataset()
    subset = stratified_subset(items, 10, seed=7)
    assert Counter(i.origin for i in subset) == {"human": 5, "dependency": 3, "llm": 2}
    assert [i.instance_id for i in subset] == [i.instance_id for i in stratified_subset(items, 10, seed=7)]
    assert {i.instance_id for i in subset} != {i.instance_id for i in stratified_subset(items, 10, seed=8)}
    assert Counter(i.origin for i in stratified_subset(items, 3, seed=1)) == {
        "human": 1,
        "dependency": 1,
        "llm": 1,
    }
    with pytest.raises(BuildfixerError, match="between 1 and 20"):
        stratified_subset(items, 21, seed=0)


def test_write_splits_labels_each_file_and_keeps_repo_paths_valid(tmp_path):
    source = tmp_path / "curated" / "all.jsonl"
    source.parent.mkdir()
    source.write_text("".join(json.dumps(i.to_dict()) + "\n" for i in dataset()))
    counts = write_splits(source, tmp_path / "splits", val=0.1, test=0.5, subset=4, seed=0)
    assert counts == {"train": 8, "val": 2, "test": 10, "test_subset": 4}
    test = load_dataset(tmp_path / "splits" / "test.jsonl")
    assert {i.split for i in test} == {"test"} and {
        i.split for i in load_dataset(tmp_path / "splits" / "train.jsonl")
    } == {"train"}
    assert test[0].repo_source(tmp_path / "splits") == str(tmp_path / "curated" / "repos" / "r.bundle")
