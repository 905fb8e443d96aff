"""Curation on Maven and Gradle repositories: the planted instances and nothing else."""

import pytest
from jvm_repos import gradle_repo, maven_repo

from buildfixer.bench.dataset import load_dataset
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.run import curate

pytestmark = pytest.mark.slow


def found(out):
    return {i.instance_id.rsplit("-", 1)[-1]: i for i in load_dataset(out)}


def test_maven_human_and_dependency_modes_into_one_dataset(tmp_path):
    planted = maven_repo(tmp_path / "greeter")
    out, cache = tmp_path / "data" / "greeter.jsonl", tmp_path / "builds"
    human = curate(CurateConfig(mode="human", source=planted["repo"], out=out, build_cache=cache))
    assert (human.candidates, human.accepted, human.rejected) == (2, 2, {})
    dependency = curate(CurateConfig(mode="dependency", source=planted["repo"], out=out, build_cache=cache))
    # The release commit changes the pom and the code, but its code builds with the old pom.
    assert (dependency.candidates, dependency.accepted, dependency.rejected) == (2, 1, {"fails_bad": 1})
    instances = found(out)
    assert set(instances) == {sha[:12] for sha in (*planted["human"], *planted["dependency"])}
    for sha, category in (*planted["human"].items(), *planted["dependency"].items()):
        instance = instances[sha[:12]]
        assert instance.build_system == "maven" and instance.category == category
        # No --jdk: the JDK buildsys chose for both states (the default, 17) is recorded, so
        # `bench` builds on it anywhere, where another default JDK would not fail the same way.
        assert instance.jdk == 17, instance.instance_id
    (java25,) = [i for i in instances.values() if i.category == "configuration"]
    assert "release version 25 not supported" in java25.error_log
    (dep,) = [i for i in instances.values() if i.origin == "dependency"]
    assert "+      <artifactId>commons-lang3</artifactId>" in dep.gold_patch and dep.files_changed == 1
    assert "StringUtils" in dep.error_log
    assert dependency.instances_in_file == 3  # the human instances stay in the file


def test_gradle_human_mode(tmp_path):
    planted = gradle_repo(tmp_path / "greeter")
    out = tmp_path / "data" / "gradle.jsonl"
    config = CurateConfig(mode="human", source=planted["repo"], out=out, build_cache=tmp_path / "builds")
    summary = curate(config)
    assert (summary.candidates, summary.accepted, summary.rejected) == (1, 1, {})
    ((key, instance),) = found(out).items()
    assert {key} == {sha[:12] for sha in planted["human"]}
    assert instance.build_system == "gradle" and instance.category == "test_failure"
    assert "GreeterTest" in instance.error_log and "MavenResolverHook" not in instance.error_log
