"""A repository with an object git cannot read (a partial clone's missing blob): the commit is skipped
and named, the run goes on; and an instance is on disk as soon as it is kept, whatever ends the run."""

import pytest
from python_repos import branches_repo

from buildfixer.bench.dataset import load_dataset
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.run import curate
from support.git import git

pytestmark = pytest.mark.slow


def test_an_unreadable_commit_is_skipped_and_kept_instances_are_written_at_once(tmp_path):
    planted = branches_repo(tmp_path / "calc", 2)
    path = planted["repo"]
    kept, _ = planted["instances"]  # the second branch's failure loses the fix it would be paired with
    head = git(path, "rev-parse", "f1")  # the second branch's fix: its one new file goes missing
    blob = git(path, "rev-parse", "f1:src/calc/__init__.py")
    (path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()

    out, cache = tmp_path / "data" / "d.jsonl", tmp_path / "builds"
    # The build system is named: the tip (the second merge) cannot be checked out to detect it.
    config = CurateConfig(
        mode="human", source=path, out=out, system="python", as_of=False, repeats=1, build_cache=cache
    )
    summary = curate(config)
    assert list(summary.unreadable) == [head] and blob in summary.unreadable[head]
    assert f"skipped 1 commit(s) git cannot read: {head[:12]}" in summary.text(out)
    assert (summary.candidates, summary.accepted, summary.rejected) == (1, 1, {})
    (instance,) = load_dataset(out)
    assert instance.base_commit == kept and instance.repo == "repos/d.jsonl/calc.bundle"
    heads = git(tmp_path, "bundle", "list-heads", str(out.parent / instance.repo))
    assert kept in heads and instance.fix_commit in heads  # the bundle needs no unreadable object

    # Whatever ends a run after an instance is kept (an error, Ctrl-C), the instance is in the dataset.
    def interrupted(event, data):
        if event == "outcome" and data["outcome"].accepted:
            raise KeyboardInterrupt

    again = tmp_path / "again" / "d.jsonl"
    with pytest.raises(KeyboardInterrupt):
        curate(config.model_copy(update={"out": again}), interrupted)
    assert again.read_text() == out.read_text()
