"""Dataset splits: time-ordered train/val/test, and a random test subset stratified by origin.

Time order keeps a model trained on the older instances from having seen the fixes of the test
set (their commits come later). The subset is for cheaper evaluations: same origin mix as the
test split, reproducible from its seed.
"""

from __future__ import annotations

import math
import os
import random
from collections import defaultdict
from pathlib import Path

from buildfixer.bench.dataset import Instance, dataset_dir, load_dataset, save_dataset
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.checks import check_output_path


def time_split(instances: list[Instance], val: float, test: float) -> dict[str, list[Instance]]:
    """Oldest instances to train, then val, the newest to test (shares of the whole, rounded).

    Raises:
        BuildfixerError: Shares outside [0, 1) or adding up to 1 or more.
    """
    if not all(isinstance(share, int | float) and math.isfinite(share) for share in (val, test)):
        raise BuildfixerError(f"--val and --test must be numbers, got {val}, {test}")
    if not (0 <= val < 1 and 0 <= test < 1 and val + test < 1):
        raise BuildfixerError(
            f"--val and --test must be shares in [0, 1) adding up to less than 1, got {val}, {test}"
        )
    ordered = sorted(instances, key=lambda i: (i.created_at, i.instance_id))
    n_test, n_val = round(len(ordered) * test), round(len(ordered) * val)
    n_train = len(ordered) - n_val - n_test
    return {
        "train": ordered[:n_train],
        "val": ordered[n_train : n_train + n_val],
        "test": ordered[n_train + n_val :],
    }


def stratified_subset(instances: list[Instance], size: int, seed: int) -> list[Instance]:
    """`size` instances drawn at random, each origin in proportion to its share (largest remainder).

    Raises:
        BuildfixerError: `size` is not between 1 and the number of instances.
    """
    if not instances:
        raise BuildfixerError("--subset: the test split is empty: nothing to draw from (raise --test)")
    if not isinstance(size, int) or not 1 <= size <= len(instances):
        raise BuildfixerError(f"--subset must be between 1 and {len(instances)} (the test split), got {size}")
    groups: dict[str, list[Instance]] = defaultdict(list)
    for instance in sorted(instances, key=lambda i: i.instance_id):
        groups[instance.origin].append(instance)
    exact = {origin: size * len(group) / len(instances) for origin, group in groups.items()}
    quota = {origin: int(share) for origin, share in exact.items()}
    for origin in sorted(exact, key=lambda o: (quota[o] - exact[o], o))[: size - sum(quota.values())]:
        quota[origin] += 1
    rng = random.Random(seed)
    chosen = [i for origin in sorted(groups) for i in rng.sample(groups[origin], quota[origin])]
    return sorted(chosen, key=lambda i: (i.created_at, i.instance_id))


def write_splits(
    dataset: Path, out: Path, val: float, test: float, subset: int | None, seed: int
) -> dict[str, int]:
    """Write `out/{train,val,test}.jsonl` (and `test_subset.jsonl`); returns the count of each.

    Each instance's `split` field names its file; relative repository paths are rewritten so they
    still point at the same bundles from `out`. Everything is checked and computed before `out`
    is made, and each file is written atomically: bad input leaves nothing behind.

    Raises:
        BuildfixerError: An unreadable dataset, shares or a subset size out of range, or an `out`
            that cannot be a directory.
    """
    check_output_path("--out", out, directory=True)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BuildfixerError(f"--seed must be a whole number, got {seed!r}")
    instances = load_dataset(dataset)
    if not instances:
        raise BuildfixerError(f"{dataset} holds no instance")
    source_dir = dataset_dir(dataset)
    splits = time_split(instances, val, test)
    if subset is not None:
        splits["test_subset"] = stratified_subset(splits["test"], subset, seed)
    out.mkdir(parents=True, exist_ok=True)
    for name, members in splits.items():
        label = "test" if name == "test_subset" else name
        save_dataset([_moved(i, source_dir, out, label) for i in members], out / f"{name}.jsonl")
    return {name: len(members) for name, members in splits.items()}


def _moved(instance: Instance, source_dir: Path, out: Path, split: str) -> Instance:
    repo = instance.repo
    if not instance.is_remote() and not Path(repo).expanduser().is_absolute():
        repo = os.path.relpath(instance.repo_source(source_dir), out.resolve())
    return instance.model_copy(update={"repo": repo, "split": split})
