"""Each curation mode on a Python repository finds exactly the planted instances and rejects the
planted non-instances, each for the right filter; a second pass builds nothing."""

import json
from collections import Counter

import pytest
from python_repos import dependency_repo, human_repo, llm_repo

from buildfixer.bench.dataset import load_dataset
from buildfixer.bench.run import RunConfig, run_benchmark
from buildfixer.buildsys.options import BuildOptions
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.filters import SizeLimits
from buildfixer.curate.run import curate
from buildfixer.curate.state import read_lines, state_path
from buildfixer.harness.config import AttemptConfig
from support.model import call, replace, scripted, write_file

pytestmark = pytest.mark.slow


def check(summary, out, planted, mode):
    """The dataset holds the planted instances only; each planted non-instance fell to its filter."""
    instances = {i.instance_id.rsplit("-", 1)[-1]: i for i in load_dataset(out)}
    assert set(instances) == {sha[:12] for sha in planted["instances"]}
    for sha, category in planted["instances"].items():
        instance = instances[sha[:12]]
        assert instance.origin == mode and instance.repo == f"repos/{out.name}/{planted['repo'].name}.bundle"
        assert category is None or instance.category == category, instance.error_log[-500:]
        assert (
            instance.error_log
            and instance.difficulty == "trivial"
            and instance.created_at.startswith("2024-")
        )
    rows = {r["key"]: r for r in read_lines(state_path(out))}  # the last line of each is its standing
    for sha, filter_name in planted["rejected"].items():
        row = rows[f"{mode}-{sha[:12]}"]
        assert (row["accepted"], row["filter"]) == (False, filter_name), row
        if filter_name == "duplicate":  # names the instance it duplicates, which is kept
            assert row["duplicate_of"] in {f"{mode}-{s[:12]}" for s in planted["instances"]}, row
            assert f"{planted['repo'].name}-{row['duplicate_of']}" in row["reason"], row
    kept = sorted(f"{mode}-{i.instance_id.rsplit('-', 1)[-1]}" for i in load_dataset(out))
    assert sorted(key for key, row in rows.items() if row["accepted"]) == kept  # the state agrees
    assert summary.rejected == dict(Counter(planted["rejected"].values()))
    assert summary.accepted == len(planted["instances"])
    assert summary.candidates == len(planted["instances"]) + len(planted["rejected"])


def test_human_mode(tmp_path):
    planted = human_repo(tmp_path / "calc", tmp_path)
    out, cache = tmp_path / "data" / "human.jsonl", tmp_path / "builds"
    # Unsandboxed: the planted flaky tests count their runs in a file outside the project.
    unconfined = BuildOptions(sandbox="none")
    summary = curate(CurateConfig(mode="human", source=planted["repo"], out=out, workers=2,
                                  limits=SizeLimits(max_lines=30), build_cache=cache, options=unconfined))
    check(summary, out, planted, "human")
    assert summary.states_built > 0 and summary.instances_in_file == 2

    # The dataset is usable as is: its bundle holds the commits, and the oracle fixes every instance.
    config = RunConfig(attempt=AttemptConfig(agent="oracle", model="none"))
    rows = run_benchmark([i.to_dict() for i in load_dataset(out)], out.parent, config, tmp_path / "run")
    assert [r["resolved"] for r in rows] == [True, True]

    # A second pass into a new dataset: every build comes from the cache, the result is the same.
    again = curate(CurateConfig(mode="human", source=planted["repo"], out=tmp_path / "again.jsonl",
                                limits=SizeLimits(max_lines=30), build_cache=cache, options=unconfined))
    assert again.states_built == 0 and again.hit_rate == 1.0
    assert again.states_cached == summary.states_built and (again.accepted, again.rejected) == (
        summary.accepted, summary.rejected,
    )  # fmt: skip
    first = [json.loads(line) for line in out.read_text().splitlines()]
    second = [json.loads(line) for line in (tmp_path / "again.jsonl").read_text().splitlines()]
    assert [i["instance_id"] for i in first] == [i["instance_id"] for i in second]

    # Rerunning into the same dataset resumes: nothing left to evaluate, nothing duplicated.
    resumed = curate(CurateConfig(mode="human", source=planted["repo"], out=out,
                                  limits=SizeLimits(max_lines=30), build_cache=cache, options=unconfined))
    assert resumed.evaluated == 0 and resumed.states_built == 0
    assert (resumed.accepted, resumed.rejected) == (summary.accepted, summary.rejected)
    assert out.read_text() == "".join(json.dumps(i) + "\n" for i in first)


def test_dependency_mode(tmp_path):
    planted = dependency_repo(tmp_path / "calc")
    out = tmp_path / "data" / "dependency.jsonl"
    summary = curate(CurateConfig(mode="dependency", source=planted["repo"], out=out,
                                  build_cache=tmp_path / "builds", workers=2))  # fmt: skip
    check(summary, out, planted, "dependency")
    (instance,) = load_dataset(out)
    assert "six" in instance.gold_patch and instance.files_changed == 1
    assert instance.fix_commit in planted["instances"]


def test_llm_mode_with_a_scripted_model(tmp_path):
    planted = llm_repo(tmp_path / "calc")
    commits = planted["commits"]
    scripts = tmp_path / "scripts"
    init = "src/calc/__init__.py"
    broken = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b)\n    return a - b\n"
    scripted(scripts / f"llm-{commits['sub'][:12]}.json", [
        call("read_file", path=init), write_file(init, broken), {"content": "Added sub."}
    ])  # fmt: skip
    mul = "    return a - b\n\n\ndef mul(a, b):\n    product = a * b\n    return product\n"
    scripted(scripts / f"llm-{commits['mul'][:12]}.json", [
        replace(init, "    return a - b\n", mul), {"content": "Added mul."}
    ])  # fmt: skip
    scripted(scripts / "default.json", [{"content": "Nothing to do."}])
    out = tmp_path / "data" / "llm.jsonl"
    summary = curate(CurateConfig(mode="llm", source=planted["repo"], out=out, model=f"scripted:{scripts}",
                                  build_cache=tmp_path / "b"))  # fmt: skip
    check(summary, out, planted, "llm")
    (instance,) = load_dataset(out)
    assert "-def sub(a, b)\n+def sub(a, b):" in instance.gold_patch  # gold = the human commit's version
    trajectory = json.loads(
        (out.parent / "llm.jsonl.trajectories" / f"llm-{commits['sub'][:12]}.json").read_text()
    )
    assert trajectory["meta"]["commit"] == commits["sub"]


def test_candidates_can_run_as_ray_tasks(tmp_path):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    from python_repos import branches_repo

    planted = branches_repo(tmp_path / "calc", 2)
    try:
        summary = curate(CurateConfig(mode="human", source=planted["repo"], out=tmp_path / "d.jsonl",
                                      as_of=False, backend="ray", build_cache=tmp_path / "builds"))
    finally:
        ray.shutdown()
    assert summary.accepted == 2 and summary.states_built > 0
    assert {i.base_commit for i in load_dataset(tmp_path / "d.jsonl")} == set(planted["instances"])
