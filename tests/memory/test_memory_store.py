"""The fix memory: search by error, ranking, no leakage into benchmarks, concurrent writers."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildfixer.core.errors import BuildfixerError
from buildfixer.memory.select import rank_hits, relevant
from buildfixer.memory.sources import read_entries
from buildfixer.memory.store import Entry, FixMemory, fts_query

DATASET = Path(__file__).parents[2] / "src" / "buildfixer" / "bench" / "data" / "instances.jsonl"


def repair(error: str, **kw: object) -> Entry:
    return Entry("repair", error, patch=f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{error[:10]}\n+fixed\n", **kw)  # type: ignore[arg-type]


@pytest.fixture
def memory(tmp_path: Path) -> FixMemory:
    with FixMemory(tmp_path / "m.sqlite3") as opened:
        yield opened


def test_the_entry_about_the_same_error_comes_first(memory: FixMemory) -> None:
    memory.add(repair("Could not resolve com.google.guava:guava:99.0 for configuration compileClasspath"))
    memory.add(repair("App.java:12: error: cannot find symbol StringUtils"))
    memory.add(repair("ModuleNotFoundError: No module named 'yaml'"))
    hits = memory.search("Report.java:40: error: cannot find symbol StringUtils (location: class Report)")
    assert hits and "StringUtils" in hits[0].error
    assert memory.search("Could not resolve com.google.guava:guava:98.0")[0].error.startswith(
        "Could not resolve"
    )


def test_the_same_fix_is_stored_once(memory: FixMemory) -> None:
    assert memory.add(repair("error: x cannot be resolved")) is not None
    assert memory.add(repair("error: x cannot be resolved")) is None
    assert memory.stats()["entries"] == 1


def test_past_success_breaks_ties_of_relevance(memory: FixMemory) -> None:
    first = memory.add(repair("cannot find symbol Foo", category="syntax"))
    second = memory.add(Entry("repair", "cannot find symbol Foo", patch="another fix", category="syntax"))
    assert first and second
    for _ in range(3):
        memory.record_use(first, succeeded=False)
        memory.record_use(second, succeeded=True)
    ranked = rank_hits(memory.search("cannot find symbol Foo"), category="syntax")
    assert [hit.id for hit in ranked] == [second, first] and ranked[0].successes == 3


def test_a_benchmark_never_sees_its_own_fix_the_future_or_the_test_split(memory: FixMemory) -> None:
    error = "Execution failed for task compileJava: cannot find symbol Widget"
    memory.add(repair(error, instance_id="repo-1", created_at="2024-01-01T00:00:00Z", split="train"))
    memory.add(
        repair(error + " again", instance_id="repo-2", created_at="2024-06-01T00:00:00+02:00", split="train")
    )
    memory.add(repair(error + " test", instance_id="repo-3", created_at="2023-01-01T00:00:00Z", split="test"))
    memory.add(repair(error + " mine", created_at="2023-01-01T00:00:00Z"))  # a repair of no dataset

    def seen(as_of: str) -> set[str | None]:
        return {h.instance_id for h in memory.search(error, limit=10, as_of=as_of, exclude_instance="repo-1")}

    # repo-1 is the instance itself; repo-2 was made at 22:00 UTC (midnight at +02:00); repo-3 is test data.
    assert seen("2024-05-31T21:00:00Z") == {None}
    assert seen("2024-05-31T23:00:00Z") == {"repo-2", None}
    assert {h.instance_id for h in memory.search(error, limit=10)} == {"repo-1", "repo-2", None}


def test_failed_repairs_are_kept_but_not_offered(memory: FixMemory) -> None:
    memory.add(repair("cannot find symbol Gadget", resolved=False))
    assert memory.search("cannot find symbol Gadget") == []
    assert len(memory.search("cannot find symbol Gadget", resolved_only=False)) == 1


def test_the_bundled_test_split_stays_out_of_an_import(tmp_path: Path) -> None:
    entries = read_entries(DATASET)
    assert len(entries) == 17 and all(e.kind == "gold" and e.files and e.error for e in entries)
    out = subprocess.run(
        [sys.executable, "-m", "buildfixer", "memory", "import", str(DATASET), "--db", str(tmp_path / "m")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0 and "imported 0 new entries of 17 read; 17 of a test" in out.stdout


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_any_text_is_a_valid_query(text: str) -> None:
    with FixMemory(Path(":memory:")) as memory:
        if text.strip():
            memory.add(Entry("note", text, patch="advice"))  # its words indexed: the query really runs
        hits = memory.search(text, resolved_only=False)  # never an FTS5 syntax error
        # ASCII words are tokenised alike by the query and FTS5, so the entry is found by its own text.
        assert len(hits) == (1 if fts_query(text) else 0) if text.isascii() else len(hits) <= 1
    assert '"' not in fts_query(text).replace('" OR "', "").strip('"')


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    writer = (
        "import sys; from pathlib import Path; from buildfixer.memory.store import Entry, FixMemory\n"
        "with FixMemory(Path(sys.argv[1])) as m:\n"
        "    for i in range(300):\n"
        "        m.add(Entry('repair', f'error {sys.argv[2]} number {i} cannot find symbol', patch=str(i)))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(db), name]) for name in ("alpha", "beta")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with FixMemory(db) as memory:
        assert memory.stats()["entries"] == 600


def test_a_bad_database_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_text("not a database at all" * 100)
    with pytest.raises(BuildfixerError, match="cannot open the fix memory"):
        FixMemory(bad)


def test_export_then_import_round_trips(tmp_path: Path, memory: FixMemory) -> None:
    memory.add(repair("cannot find symbol Sprocket", category="syntax", build_system="maven"))
    out = tmp_path / "export.jsonl"
    cli = [sys.executable, "-m", "buildfixer", "memory"]
    assert subprocess.run([*cli, "export", "--out", str(out), "--db", str(memory.path)]).returncode == 0
    row = json.loads(out.read_text())
    assert row["error"] == "cannot find symbol Sprocket" and row["build_system"] == "maven"
    other = tmp_path / "other.sqlite3"
    assert subprocess.run([*cli, "import", str(out), "--db", str(other)], capture_output=True).returncode == 0
    with FixMemory(other) as copy:
        assert [e.error for e in copy.entries()] == ["cannot find symbol Sprocket"]


def test_a_fix_is_offered_only_for_an_error_that_shares_most_of_its_words() -> None:
    lang = "pom.xml:21 Could not find artifact org.apache.commons:commons-lang3:jar:3.12.9 in central"
    symbol = "Report.java:14 cannot find symbol: method distinctWords() in class WordCounter"
    hits = [Entry("repair", lang, id=1), Entry("repair", symbol, id=2), Entry("note", "Use JDK 17", id=3)]
    # BM25 would match both on "find": only the fix of the same failure (and the note) stays.
    same = "pom.xml:21: Could not find artifact org.apache.commons:commons-lang3:jar:3.12.9 (cached)"
    assert [hit.id for hit in relevant(hits, same)] == [1, 3]
    other = "Report.java:9 cannot find symbol: method distinctWords()"
    assert [hit.id for hit in relevant(hits, other)] == [2, 3]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("cannot find symbol", []),  # "find" alone is chance (and "cannot" a stop word)
        ("Unsupported class file major version 69", []),  # "version" alone
        ("Could not resolve dependencies for project com.example:app", []),
        ("Could not find a version that satisfies the requirement packaging==99", [1]),
        ("error: release version 25 not supported", [2]),
    ],
)
def test_memory_search_shows_only_fixes_of_the_same_kind(
    tmp_path: Path, query: str, found: list[int]
) -> None:
    db = tmp_path / "m.sqlite3"
    with FixMemory(db) as memory:
        memory.add(repair("pyproject.toml:12 Could not find a version that satisfies the requirement "
                          "packaging==23.7"))  # fmt: skip
        memory.add(repair("pom.xml:14 release version 21 not supported (maven-compiler-plugin:3.11.0:compile"
                          " on project maven-app)"))  # fmt: skip
    command = [sys.executable, "-m", "buildfixer", "memory", "search", query, "--db", str(db), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [hit["id"] for hit in json.loads(done.stdout)] == found
    if not found:
        shown = subprocess.run(command[:-1], capture_output=True, text=True, timeout=120)
        assert shown.stdout == "no remembered fix matches\n"
