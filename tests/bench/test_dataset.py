"""Benchmark instances: schema, loading (files, directories), saving, checkouts, the bundled dataset."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buildfixer.bench.data import BUNDLED_DATASET, DATA_DIR, REPOS_DIR
from buildfixer.bench.data.make_dataset import make_dataset
from buildfixer.bench.dataset import (
    COLUMNS,
    DatasetError,
    Instance,
    checkout,
    dataset_dir,
    load_dataset,
    patch_stats,
    save_dataset,
)
from buildfixer.core.build_result import BUILD_SYSTEMS, CATEGORIES
from buildfixer.core.errors import BuildfixerError
from support.git import Repo

FIELDS = [
    "instance_id",
    "repo",
    "base_commit",
    "fix_commit",
    "gold_patch",
    "origin",
    "category",
    "build_system",
    "build_command",
    "jdk",
    "error_log",
    "files_changed",
    "lines_changed",
    "created_at",
    "split",
    "difficulty",
    "as_of",
]
PATCH = (
    "diff --git a/App.java b/App.java\n--- a/App.java\n+++ b/App.java\n@@ -1 +1 @@\n-int x = 1\n+int x = 1;\n"
)


def record(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "instance_id": "demo-1",
        "repo": "repos/demo.bundle",
        "base_commit": "a" * 40,
        "fix_commit": "b" * 40,
        "gold_patch": PATCH,
        "origin": "human",
        "category": "syntax",
        "build_system": "maven",
        "created_at": "2024-03-04T09:12:00+00:00",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_optional_fields_get_defaults_and_sizes_come_from_the_patch() -> None:
    inst = Instance.model_validate(record(build_command="clean  test"))
    assert inst.build_command == ["clean", "test"]
    assert (inst.jdk, inst.error_log, inst.split) == (None, "", "test")
    assert (inst.files_changed, inst.lines_changed) == (1, 2)
    assert list(inst.to_dict()) == FIELDS


def test_category_literal_matches_the_taxonomy() -> None:
    for category in CATEGORIES:
        assert Instance.model_validate(record(category=category)).category == category
    for system in BUILD_SYSTEMS:
        assert Instance.model_validate(record(build_system=system)).build_system == system


def test_schema_errors_name_file_line_and_field_for_every_bad_line(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "data.jsonl",
        [
            record(instance_id="ok-1"),
            record(instance_id="bad-2", origin="robot"),
            "",
            '{"instance_id": "bad-4", ',
            record(instance_id="bad-5", base_commit=..., jdk="seventeen", colour="red"),
            [1, 2],
            record(instance_id="bad 7", gold_patch="just words", created_at="yesterday"),
        ],
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    problems = caught.value.problems
    text = "\n".join(problems)
    assert f"{path}:2: origin: Input should be 'human', 'dependency' or 'llm'" in text
    assert f"{path}:4: invalid JSON" in text
    assert f"{path}:5: base_commit: Field required" in text
    assert f"{path}:5: jdk:" in text
    assert f"{path}:5: colour: unknown field" in text
    assert f"{path}:6: expected a JSON object, got list" in text
    for field in ("instance_id", "gold_patch", "created_at"):
        assert f"{path}:7: {field}:" in text
    assert not any(":1:" in p or ":3:" in p for p in problems)
    message = str(caught.value)
    assert "\n" not in message and f"{path}:2:" in message and f"{path}:7:" in message
    assert caught.value.exit_code == 2


def test_a_directory_of_jsonl_and_json_files(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "b.jsonl", [record(instance_id="b-1"), record(instance_id="b-2")])
    (tmp_path / "a.json").write_text(json.dumps(record(instance_id="a-1"), indent=2))
    (tmp_path / "notes.md").write_text("not a dataset file")
    (tmp_path / "sub").mkdir()
    write_jsonl(tmp_path / "sub" / "c.jsonl", [record(instance_id="c-1")])  # not recursive
    assert [i.instance_id for i in load_dataset(tmp_path)] == ["a-1", "b-1", "b-2"]
    assert dataset_dir(tmp_path) == tmp_path.resolve()
    assert dataset_dir(tmp_path / "b.jsonl") == tmp_path.resolve()


def test_json_file_errors_carry_their_line(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{\n  "instance_id": "x",\n  oops\n}\n')
    with pytest.raises(DatasetError, match=r"x\.json:3: invalid JSON"):
        load_dataset(tmp_path)


def test_duplicate_ids_are_an_error_even_across_files(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [record(instance_id="same"), record(instance_id="other")])
    write_jsonl(tmp_path / "b.jsonl", [record(instance_id="same")])
    with pytest.raises(DatasetError) as caught:
        load_dataset(tmp_path)
    assert caught.value.problems == [
        f"{tmp_path / 'b.jsonl'}:1: instance_id: duplicate 'same' (first at {tmp_path / 'a.jsonl'}:1)"
    ]
    with pytest.raises(BuildfixerError, match="duplicate"):
        save_dataset([Instance.model_validate(record())] * 2, tmp_path / "out.jsonl")


def test_missing_empty_and_unreadable_datasets(tmp_path: Path) -> None:
    with pytest.raises(BuildfixerError, match="no such dataset"):
        load_dataset(tmp_path / "missing.jsonl")
    with pytest.raises(BuildfixerError, match="no .jsonl or .json files"):
        load_dataset(tmp_path)
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(BuildfixerError, match="no instances"):
        load_dataset(tmp_path / "empty.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BuildfixerError, match="cannot read dataset"):
        load_dataset(tmp_path / "bin.jsonl")


def test_saved_lines_have_uniform_keys_and_json_native_values(tmp_path: Path) -> None:
    instances = [
        Instance.model_validate(record(instance_id="full", jdk=17, build_command=["test"], error_log="log")),
        Instance.model_validate(record(instance_id="sparse", fix_commit=None)),
    ]
    out = tmp_path / "sub" / "out.jsonl"
    save_dataset(instances, out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [list(r) for r in rows] == [FIELDS, FIELDS]
    assert rows[1]["jdk"] is None and rows[1]["build_command"] is None and rows[1]["fix_commit"] is None
    assert load_dataset(out) == instances
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.jsonl"]  # no temporary file left
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def assert_loadable_by_hf_datasets(path: Path) -> None:
    """What `datasets.load_dataset("json", ...)` needs: the same keys, one JSON type per column."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows
    assert all(list(r) == FIELDS for r in rows)
    for key in FIELDS:
        types = {type(r[key]).__name__ for r in rows if r[key] is not None}
        assert len(types) <= 1, (key, types)
        for row in rows:
            if isinstance(row[key], list):
                assert all(isinstance(v, str) for v in row[key])
            assert not isinstance(row[key], dict)


def test_bundled_dataset_is_hf_loadable() -> None:
    assert_loadable_by_hf_datasets(BUNDLED_DATASET)


def test_patch_stats() -> None:
    assert patch_stats(PATCH) == (1, 2)
    rename = "diff --git a/a.json b/b.json\nsimilarity index 100%\nrename from a.json\nrename to b.json\n"
    assert patch_stats(rename + PATCH) == (2, 3)
    plain = "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n--- a SQL comment\n+b\n"
    assert patch_stats(plain) == (1, 3)


def test_relative_repo_paths_resolve_against_the_dataset_directory(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "src-repo"
    history = Repo(repo)
    first = history.commit("one", {"a.txt": "one\n"})
    history.commit("two", {"a.txt": "two\n"})
    data = tmp_path / "data"
    (data / "repos").mkdir(parents=True)
    history.git("bundle", "create", "-q", str(data / "repos" / "r.bundle"), "--all")

    inst = Instance.model_validate(record(repo="repos/r.bundle", base_commit=first, fix_commit=None))
    assert inst.repo_source(data) == str(data / "repos" / "r.bundle")
    ws = checkout(inst, data, cache_dir)
    try:
        assert ws.lock is not None  # pooled
        assert (ws.root / "a.txt").read_text() == "one\n"
        assert ws.base_commit == first
    finally:
        ws.release()
    url = Instance.model_validate(record(repo="https://example.com/x.git"))
    assert url.is_remote() and url.repo_source(data) == "https://example.com/x.git"
    absolute = Instance.model_validate(record(repo=str(repo)))
    assert absolute.repo_source(data) == str(repo)
    with pytest.raises(BuildfixerError, match="no such repository"):
        checkout(Instance.model_validate(record(repo="repos/missing.bundle")), data, cache_dir)


def test_cli_start_does_not_import_pydantic() -> None:
    code = "import sys, buildfixer.cli.main; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- the bundled dataset -----------------------------------------------------------------------


def test_bundled_dataset_covers_origins_systems_and_categories() -> None:
    instances = load_dataset(BUNDLED_DATASET)
    assert len(instances) >= 12
    assert {i.origin for i in instances} == {"human", "dependency", "llm"}
    for system in ("gradle", "maven", "python", "npm"):
        assert sum(i.build_system == system for i in instances) >= 2, system
    assert {i.category for i in instances} == {
        "syntax",
        "resource_missing",
        "configuration",
        "library_unavailable",
        "test_failure",
    }
    for inst in instances:
        assert (DATA_DIR / inst.repo).is_file(), inst.repo
        assert inst.error_log.strip() and inst.fix_commit and inst.lines_changed > 0
    bundles = list(REPOS_DIR.glob("*.bundle"))
    assert len(bundles) == 4 and all(b.stat().st_size < 20_000 for b in bundles)


def test_generator_is_deterministic(tmp_path: Path) -> None:
    # Without the builds: the same commits and gold patches as the bundled dataset, every time.
    fresh = load_dataset(make_dataset(tmp_path, with_logs=False))
    bundled = load_dataset(BUNDLED_DATASET)
    keys = ("instance_id", "repo", "base_commit", "fix_commit", "gold_patch", "created_at", "category")
    assert [[getattr(i, k) for k in keys] for i in fresh] == [[getattr(i, k) for k in keys] for i in bundled]
    for bundle in REPOS_DIR.glob("*.bundle"):
        assert (tmp_path / "repos" / bundle.name).read_bytes() == bundle.read_bytes()


def test_parallel_checkouts_of_one_bundle_on_a_cold_cache(cache_dir: Path) -> None:
    # validate_dataset(workers > 1) checks instances of one repository out at the same time.
    from concurrent.futures import ThreadPoolExecutor

    instances = [i for i in load_dataset(BUNDLED_DATASET) if i.repo == "repos/cart.bundle"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        workspaces = list(
            pool.map(lambda n: checkout(instances[n % len(instances)], DATA_DIR, cache_dir), range(8))
        )
    try:
        assert len({ws.root for ws in workspaces}) == 8 and len({ws.mirror for ws in workspaces}) == 1
        assert all((ws.root / "package.json").is_file() for ws in workspaces)
    finally:
        for ws in workspaces:
            ws.release()


# --- times and columns as Hugging Face `datasets` writes them back ------------------------------


def test_created_at_takes_iso_and_unix_times_and_keeps_utc(tmp_path: Path) -> None:
    from buildfixer.bench.dataset import utc_time

    same = [
        "2024-03-04T09:12:00+00:00", "2024-03-04T10:12:00+01:00", "2024-03-04T09:12:00",
        "2024-03-04 09:12:00",
        1709543520, 1709543520.0, 1709543520000, "1709543520000", " 1709543520 ", 1709543520000000,
    ]  # fmt: skip
    assert {utc_time(value) for value in same} == {"2024-03-04T09:12:00Z"}
    assert utc_time(1709543520123) == "2024-03-04T09:12:00.123000Z"
    inst = Instance.model_validate(record(created_at=1709543520000, as_of="1709543520"))
    assert (inst.created_at, inst.as_of) == ("2024-03-04T09:12:00Z", "2024-03-04T09:12:00Z")
    for bad in ("yesterday", True, [2024], "", 10**30):
        with pytest.raises(ValueError):
            utc_time(bad)
    with pytest.raises(DatasetError, match="created_at"):
        load_dataset(write_jsonl(tmp_path / "bad.jsonl", [record(created_at="soon")]))


def test_rows_have_every_column_and_a_string_build_command() -> None:
    inst = Instance.model_validate(record(build_command=["clean", "-Dx=a b"], difficulty="small"))
    row = inst.to_dict()
    assert tuple(row) == COLUMNS and row["as_of"] is None and row["difficulty"] == "small"
    assert row["build_command"] == "clean '-Dx=a b'"
    assert Instance.model_validate(row) == inst  # the same split reads it back
