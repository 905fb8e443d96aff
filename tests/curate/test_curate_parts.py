"""The parts of curation that need no build: history queries, synthetic states, filters, ranges."""

from datetime import timedelta
from types import SimpleNamespace

import pytest

from buildfixer.bench.dataset import load_dataset
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.builds import BuildRecord
from buildfixer.curate.candidates import (
    Candidate,
    branch_chains,
    dependency_candidates,
    human_candidates,
    is_source_file,
    read_ranges,
    revert_build_files,
)
from buildfixer.curate.filters import (
    Outcome,
    Rejected,
    SizeLimits,
    check_applies,
    check_builds,
    check_fails,
    check_size,
    check_span,
    make_instance,
    signature,
)
from buildfixer.curate.history import History, is_build_file
from buildfixer.curate.pinning import pin_state
from buildfixer.curate.run import Setup, bundle_path, write_dataset
from buildfixer.curate.state import Standings, read_lines, read_state, state_path
from buildfixer.curate.summary import Summary
from buildfixer.workspace.workspace import mirror_of
from support.git import Repo, git


@pytest.fixture
def history(tmp_path, cache_dir):
    repo = Repo(tmp_path / "r")
    repo.commit("one", {"pom.xml": "<project>1</project>\n", "src/A.java": "class A {}\n"})
    repo.branch("feature")
    first = repo.commit("two", {"src/A.java": "class A { int x; }\n"})
    second = repo.commit("three", {"pom.xml": "<project>2</project>\n", "src/A.java": "class A { int y; }\n",
                                   "README.md": "docs\n"})  # fmt: skip
    repo.checkout("main")
    merge = repo.merge("feature")
    return History(mirror_of(repo.path, cache_dir)), {"first": first, "second": second, "merge": merge}


def test_chains_of_merged_branches_and_commit_facts(history):
    hist, shas = history
    assert hist.merged_chains("HEAD") == [[shas["first"], shas["second"]]]
    commit = hist.commit(shas["second"])
    assert commit.parents == (shas["first"],) and commit.subject == "three"
    assert commit.date == "2024-01-01T12:00:00Z"  # committed at 12:00 UTC (one hour per commit from 9:00)
    assert hist.changed_paths(shas["first"], shas["second"]) == ["README.md", "pom.xml", "src/A.java"]
    with pytest.raises(BuildfixerError, match="no commit 'nope'"):
        hist.resolve("nope")


def test_pr_ranges_replace_the_merges(history):
    hist, shas = history
    base = hist.commit(shas["first"]).parents[0]
    chains = branch_chains(hist, "HEAD", None, [(base[:10], shas["second"])])
    assert chains == [[shas["first"], shas["second"]]]
    assert branch_chains(hist, "HEAD", None, [(shas["second"], shas["second"])]) == []  # an empty range
    with pytest.raises(BuildfixerError, match="no commit 'nope'"):
        branch_chains(hist, "HEAD", None, [("nope", shas["second"])])


def test_synthetic_state_reverts_only_the_build_files(history):
    hist, shas = history
    state = revert_build_files(hist, shas["second"])
    assert hist.commit(state).parents == (shas["first"],)
    assert hist.git("show", f"{state}:pom.xml") == "<project>1</project>\n"
    assert hist.git("show", f"{state}:src/A.java") == "class A { int y; }\n"
    assert hist.git("show", f"{state}:README.md") == "docs\n"
    gold = hist.diff(state, shas["second"])
    assert "+<project>2</project>" in gold and "A.java" not in gold
    check_applies(hist, state, gold)
    with pytest.raises(Rejected) as rejected:
        check_applies(hist, shas["first"], hist.diff(shas["second"], state))
    assert rejected.value.filter == "gold_applies"


def test_dependency_candidates_need_build_files_and_source(history):
    hist, shas = history
    assert [c.commit for c in dependency_candidates(hist, "HEAD", None)] == [shas["second"]]


def test_human_candidates_pair_each_failure_with_the_next_building_commit():
    chain = ["a", "b", "c", "d"]
    found = human_candidates([chain], {"a": False, "b": True, "c": False, "d": True})
    assert [(c.commit, c.good) for c in found] == [("a", "b"), ("c", "d")]
    assert human_candidates([chain], {"a": False, "b": True, "c": False, "d": False}) == []  # head fails
    # How far each failure's fix is: a fix several commits on carries the work between (size).
    far = human_candidates([chain], {"a": False, "b": False, "c": False, "d": True})
    assert [(c.commit, c.good, c.span) for c in far] == [("a", "d", 3), ("b", "d", 2), ("c", "d", 1)]
    check_span(3, SizeLimits())
    with pytest.raises(Rejected, match="the fix is 4 commits after the failure"):
        check_span(4, SizeLimits())


def test_file_kinds():
    assert is_build_file("app/build.gradle.kts") and is_build_file("requirements-dev.txt")
    assert is_build_file("gradle/libs.versions.toml") and not is_build_file("src/libs.versions.toml")
    assert is_source_file("src/main/java/A.java") and not is_source_file("README.md")
    assert not is_source_file("pom.xml") and not is_source_file("docs/logo.png")
    # CI and tool settings are no source: a commit with only those beside its pom is no dependency candidate.
    for settings in (".github/workflows/ci.yml", ".mvn/nullaway.jvm.config", "Jenkinsfile", ".idea/misc.xml"):
        assert not is_source_file(settings), settings
    assert is_source_file("src/main/resources/application.yml") and is_source_file("tools/Jenkinsfile")


def test_size_limits_and_tiers():
    patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert check_size(patch, SizeLimits()) == (1, 2)
    with pytest.raises(Rejected, match="size: 1 files / 2 lines"):
        check_size(patch, SizeLimits(max_lines=1))
    with pytest.raises(Rejected, match="changes nothing"):
        check_size("", SizeLimits())


class FakeBuilder:
    """Returns the given records instead of building (a StateBuilder's `build` and what instances read)."""

    def __init__(self, *records):
        self.records = list(records)
        self.system = "python"
        self.options = SimpleNamespace(tasks=None, jdk=None)
        self.history = SimpleNamespace(commit=lambda sha: SimpleNamespace(date="2024-01-01T00:00:00Z"))

    def build(self, sha, repeats, as_of):
        return self.records[:repeats]


def test_state_filters_follow_the_grading_rule():
    fail = BuildRecord("failure", "syntax", [{"message": "boom"}])
    other = BuildRecord("failure", "configuration")
    ok = BuildRecord("success", None)
    assert check_fails(FakeBuilder(fail, fail), "s", 2, None) == [fail, fail]
    assert check_fails(FakeBuilder(other, other), "s", 2, None) == [other, other]  # any category, the same
    with pytest.raises(Rejected, match="fails_bad: flaky: failure/configuration, failure/syntax"):
        check_fails(FakeBuilder(fail, other), "s", 2, None)
    with pytest.raises(Rejected, match="fails_bad: builds as success, not a failure every time"):
        check_fails(FakeBuilder(ok, ok), "s", 2, None)
    with pytest.raises(Rejected, match="fails_bad: builds as timeout, not a failure"):
        check_fails(FakeBuilder(BuildRecord("timeout", None)), "s", 1, None)
    assert check_builds(FakeBuilder(ok, ok), "s", 2, None) == [ok, ok]
    with pytest.raises(Rejected, match="builds_good: failure/syntax in 1 of 2 builds: boom"):
        check_builds(FakeBuilder(ok, fail), "s", 2, None)


def test_instances_record_the_shared_difficulty_tier():
    candidate = Candidate("human-abc", "human", "c", "g", "b", 0)
    fail = BuildRecord("failure", "syntax", log="log")
    for lines, tier in ((10, "trivial"), (11, "small"), (101, "medium"), (1001, "large")):
        patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n" + "+y\n" * lines
        instance = make_instance(candidate, ("b", "g"), FakeBuilder(), patch, fail, None)
        assert (instance["lines_changed"], instance["difficulty"]) == (lines, tier)


def test_signature_is_the_first_error_at_its_place():
    error = {"file": "A.java", "line": 3, "message": "cannot find symbol  X", "category": "syntax"}
    same = BuildRecord("failure", "syntax", [{**error, "message": "Cannot find symbol x"}])
    assert signature(BuildRecord("failure", "syntax", [error])) == signature(same)
    assert signature(BuildRecord("failure", "syntax", [{**error, "line": 4}])) != signature(same)


def test_jvm_states_with_undatable_versions_are_rejected_and_pinned_ones_kept(tmp_path, cache_dir):
    dependency = "<dependency><groupId>com.example</groupId><artifactId>lib</artifactId><version>%s</version>"
    pom = (
        "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId>"
        "<version>1</version><dependencies>%s</dependency></dependencies></project>\n"
    )
    repo = Repo(tmp_path / "r")
    fixed = repo.commit("pinned", {"pom.xml": pom % (dependency % "1.0")})
    snapshot = repo.commit("snapshot", {"pom.xml": pom % (dependency % "1.1-SNAPSHOT")})
    hist = History(mirror_of(repo.path, cache_dir))
    assert pin_state(hist, str(repo.path), fixed, "2024-01-01T00:00:00Z", cache_dir) == fixed
    with pytest.raises(Rejected) as rejected:
        pin_state(hist, str(repo.path), snapshot, "2024-01-01T00:00:00Z", cache_dir)
    assert rejected.value.filter == "reproducible" and "com.example:lib:1.1-SNAPSHOT" in rejected.value.reason


def test_ranges_file(tmp_path):
    path = tmp_path / "prs.txt"
    path.write_text("# PRs\nabc123..def456\n\n111 222  # second\n")
    assert read_ranges(path) == [("abc123", "def456"), ("111", "222")]
    path.write_text("abc123\n")
    with pytest.raises(BuildfixerError, match="prs.txt:1: expected BASE..HEAD"):
        read_ranges(path)


def test_a_later_outcome_earlier_in_history_makes_the_kept_one_a_duplicate(tmp_path):
    """Outcomes arrive in the order they finish: the state, the summary and the progress follow the rule."""
    def passed(key, date):
        instance = {"instance_id": f"r-{key}", "created_at": date}
        return Outcome(key, "human", True, signature="same", instance=instance)

    out, summary = tmp_path / "d.jsonl", Summary("human", "r")
    state = Standings(out, "r", {"human-b", "human-a", "human-c"}, summary)
    assert [r["accepted"] for r in state.add(passed("human-b", "2024-02-01"))] == [True]
    assert summary.accepted == 1 and summary.rejected == {}
    written = state.add(passed("human-a", "2024-01-01"))  # earlier in history, finished later
    assert [(r["key"], r["accepted"], r["filter"]) for r in written] == [
        ("human-a", True, None), ("human-b", False, "duplicate"),
    ]  # fmt: skip
    assert written[1]["duplicate_of"] == "human-a" and "r-human-a" in written[1]["reason"]
    assert summary.accepted == 1 and summary.rejected == {"duplicate": 1}
    (late,) = state.add(passed("human-c", "2024-03-01"))  # a duplicate from the start: one line
    assert (late["accepted"], late["filter"], late["duplicate_of"]) == (False, "duplicate", "human-a")
    rejected = Outcome("human-d", "human", False, filter="fails_bad", reason="builds")
    state.add(rejected)  # not this run's candidate: written, not counted
    assert summary.accepted == 1 and summary.rejected == {"duplicate": 2}
    assert len(read_lines(state_path(out))) == 5

    # Read again (a resumed run): the same standings and counts, nothing to append.
    again = Summary("human", "r")
    assert Standings(out, "r", {"human-b", "human-a", "human-c"}, again).reload() == []
    assert (again.accepted, again.rejected) == (1, {"duplicate": 2})
    assert {k: r["accepted"] for (_, k), r in read_state(state_path(out)).items()} == {
        "human-a": True, "human-b": False, "human-c": False, "human-d": False,
    }  # fmt: skip


def test_summary_counts_each_state_once():
    summary = Summary("human", "r")
    summary.count({"builds": 2, "states": {"k1": "succeeded", "k2": "cached"}})
    summary.count({"builds": 1, "states": {"k1": "failed", "k2": "cached", "k3": "cached"}})
    summary.count({"hits": 1})  # a state file row written before states were counted
    assert (summary.states_built, summary.states_succeeded, summary.states_failed) == (1, 0, 1)
    assert (summary.states_cached, summary.builds_run, summary.cache_hits) == (2, 3, 2)
    summary.count({"states": {"k2": "succeeded"}})  # built by a later job: no longer from the cache
    assert (summary.states_built, summary.states_cached) == (2, 1)
    line = summary.text("d.jsonl").splitlines()[1]
    assert line.startswith(
        "states: 2 built (1 succeeded, 1 failed), 1 from cache (hit rate 33%); 3 build(s) run"
    )
    data = summary.to_dict()
    assert "_states" not in data
    assert (data["states_built"], data["states_failed"], data["states_cached"]) == (2, 1, 1)


def test_reverting_build_files_the_commit_added_removed_and_changed(tmp_path, cache_dir):
    """In a bare mirror: an added build file goes, a removed one comes back, a changed one is the parent's."""
    repo = Repo(tmp_path / "r")
    repo.commit("one", {"setup.py": "setup()\n", "requirements.txt": "six\n", "src/calc.py": "A = 1\n"})
    sha = repo.commit("two", {
        "setup.py": None, "pyproject.toml": "[project]\nname = 'calc'\n", "requirements.txt": "six>=1.16\n",
        "lib/requirements-dev.txt": "pytest\n", "src/calc.py": "A = 2\n",
    })  # fmt: skip
    hist = History(mirror_of(repo.path, cache_dir))
    state = revert_build_files(hist, sha)
    files = hist.git("ls-tree", "-r", "--name-only", state).split()
    assert files == ["requirements.txt", "setup.py", "src/calc.py"]
    assert hist.git("show", f"{state}:setup.py") == "setup()\n"
    assert hist.git("show", f"{state}:requirements.txt") == "six\n"
    assert hist.git("show", f"{state}:src/calc.py") == "A = 2\n"  # the source half stays
    gold = hist.diff(state, sha)
    check_applies(hist, state, gold)
    assert {"pyproject.toml", "lib/requirements-dev.txt", "setup.py", "requirements.txt"} == {
        line.split(" b/")[-1] for line in gold.splitlines() if line.startswith("diff --git")
    }


def test_duplicates_keep_the_ancestor_when_commits_share_a_timestamp(tmp_path, cache_dir):
    """A rebase gives a branch's commits one timestamp: the parent is kept, whatever the keys say."""
    repo = Repo(tmp_path / "r")
    repo.commit("one", {"a.py": "x\n"})
    parent = repo.commit("break a", {"a.py": "x(\n"})
    repo.when -= timedelta(hours=1)  # the next commit gets the same timestamp
    child = repo.commit("document a", {"README.md": "a\n"})
    hist = History(mirror_of(repo.path, cache_dir))
    assert hist.commit(parent).date == hist.commit(child).date
    assert hist.is_ancestor(parent, child) and not hist.is_ancestor(child, parent)

    def passed(key, sha):
        instance = {"instance_id": f"r-{key}", "created_at": hist.commit(sha).date}
        return Outcome(key, "human", True, signature="same", instance=instance, commit=sha)

    # The keys sort the child first, as the date-then-key order would keep it; either arrival order.
    orders = ((("human-a", child), ("human-b", parent)), (("human-b", parent), ("human-a", child)))
    for first, second in orders:
        out = tmp_path / f"{first[0]}.jsonl"
        state = Standings(out, "r", {"human-a", "human-b"}, Summary("human", "r"), hist.is_ancestor)
        state.add(passed(*first))
        state.add(passed(*second))
        standings = {key: (row["accepted"], row["duplicate_of"]) for (_, key), row in state.rows.items()}
        assert standings == {"human-b": (True, None), "human-a": (False, "human-b")}
        # Read again from the file (a resumed run): the same, nothing to restate.
        again = Standings(out, "r", {"human-a", "human-b"}, Summary("human", "r"), hist.is_ancestor)
        assert again.reload() == [] and again.rows == state.rows


def instance_of(name, sha, key):
    """A kept instance's state-file outcome, as `evaluate` makes it."""
    instance = {
        "instance_id": f"{name}-{key}", "repo": "", "base_commit": sha, "fix_commit": sha,
        "gold_patch": "diff --git a/x b/x\n", "origin": "human", "category": "syntax",
        "build_system": "python", "files_changed": 1, "lines_changed": 1,
        "created_at": "2024-01-01T10:00:00Z",
    }  # fmt: skip
    return Outcome(key, "human", True, signature=key, instance=instance, commit=sha)


def curated(out, source, name, sha, cache_dir):
    """A dataset of one instance of `source` at `sha`, written as a curation run writes it."""
    setup = Setup(str(source), mirror_of(source, cache_dir), "python", BuildOptions(cache_dir=cache_dir),
                  name=name, bundle=bundle_path(out, name))  # fmt: skip
    key = f"human-{sha[:12]}"
    summary = Summary("human", name)
    Standings(out, name, {key}, summary).add(instance_of(name, sha, key))
    write_dataset(out, setup, {key}, summary)


def test_datasets_of_one_folder_keep_their_own_bundles(tmp_path, cache_dir):
    """Two datasets of one folder, each from a repository named `calc`: neither bundle is overwritten."""
    shas = {}
    for dataset in ("a", "b"):
        repo = Repo(tmp_path / dataset / "calc")
        shas[dataset] = repo.commit(f"only in {dataset}", {"calc.py": f"{dataset} = 1\n"})
        curated(tmp_path / "data" / f"{dataset}.jsonl", repo.path, "calc", shas[dataset], cache_dir)
    for dataset, sha in shas.items():
        (instance,) = load_dataset(tmp_path / "data" / f"{dataset}.jsonl")
        assert instance.repo == f"repos/{dataset}.jsonl/calc.bundle"
        bundle = tmp_path / "data" / instance.repo
        assert git(tmp_path, "bundle", "list-heads", str(bundle)) == f"{sha} refs/heads/instances/{sha}"


def test_an_unreadable_history_ends_the_run_after_the_dataset_is_written(tmp_path, cache_dir):
    """A blob missing from history (a partial clone): the bundle cannot be made, the instance is on disk."""
    repo = Repo(tmp_path / "calc")
    repo.commit("one", {"old.py": "gone\n"})
    sha = repo.commit("two", {"old.py": None, "calc.py": "a = 1\n"})
    blob = repo.git("rev-parse", f"{sha}~1:old.py")
    (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert "missing blob" in History(mirror_of(repo.path, cache_dir)).unreadable(f"{sha}~1")
    out = tmp_path / "data" / "d.jsonl"
    with pytest.raises(BuildfixerError, match=r"git bundle repos/d.jsonl/calc.bundle cannot be written"):
        curated(out, repo.path, "calc", sha, cache_dir)
    assert [i.base_commit for i in load_dataset(out)] == [sha]


def test_a_history_without_merges_says_to_name_ranges(tmp_path, cache_dir):
    from buildfixer.curate.config import CurateConfig
    from buildfixer.curate.run import curate

    repo = Repo(tmp_path / "squashed")
    repo.commit("one", {"package.json": '{"name": "s", "version": "1.0.0"}'})
    repo.commit("two (#12)", {"README.md": "squashed pull request\n"})
    config = CurateConfig(mode="human", source=str(repo.path), out=tmp_path / "d.jsonl",
                          options=BuildOptions(cache_dir=cache_dir))  # fmt: skip
    summary = curate(config)
    assert summary.candidates == 0 and summary.states_built == 0
    assert summary.notes == [
        "no merged branch in the history to look into (squashed or rebased pull requests?): "
        "name the commits with --ranges BASE..HEAD"
    ]
    assert "\nnote: no merged branch in the history" in summary.text(config.out)


def test_a_cached_build_is_of_one_analyzer(monkeypatch):
    # A record holds the category the analyzer read: another analyzer's records are no cache hits.
    from buildfixer.curate import builds

    now = builds.toolchain("python", None)
    assert f"analysis {builds.analysis_fingerprint()}" in now
    monkeypatch.setattr(builds, "analysis_fingerprint", lambda: "another")
    assert builds.toolchain("python", None) != now
