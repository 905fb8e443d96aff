"""Every log under tests/fixtures/logs against its `<name>.expected.json` sidecar.

Sidecar format::

    {"category": "syntax" | null, "build_system": "gradle" | null,
     "root": {"tool": "javac", "file": "src/main/java/demo/App.java", "line": 12,
              "message_contains": "cannot find symbol"} | null}

`file` is compared by suffix (logs carry the build machine's absolute paths);
keys left out of `root`, or given as null, are not checked.
"""

import json
from pathlib import Path

import pytest

from buildfixer.logs.analyze import analyze_file
from buildfixer.logs.condense import condense

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
SIDECARS = sorted(FIXTURES.glob("*.expected.json"))


def _log_for(sidecar: Path) -> Path:
    return sidecar.with_name(sidecar.name.removesuffix(".expected.json") + ".log")


def test_fixtures_exist():
    assert SIDECARS, f"no *.expected.json in {FIXTURES}"
    for sidecar in SIDECARS:
        assert _log_for(sidecar).is_file(), f"{sidecar.name} has no .log next to it"


@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_fixture(sidecar: Path):
    expected = json.loads(sidecar.read_text())
    analysis = analyze_file(_log_for(sidecar))
    summary = [f"{e.tool} {e.category} {e.location()} {e.message[:100]}" for e in analysis.errors[:5]]

    if "category" in expected:
        assert analysis.category == expected["category"], summary
    if "build_system" in expected:
        assert analysis.build_system == expected["build_system"]
    want = expected.get("root", ...)
    if want is None:
        assert analysis.errors == [], summary
        return
    if want is ...:
        return
    root = analysis.errors[0]
    if want.get("tool") is not None:
        assert root.tool == want["tool"], summary
    if want.get("file") is not None:
        assert root.file is not None and root.file.replace("\\", "/").endswith(want["file"]), summary
    if want.get("line") is not None:
        assert root.line == want["line"], summary
    if want.get("message_contains") is not None:
        assert want["message_contains"] in root.message, summary
    # The contract form and the prompt view must hold for every real log too.
    assert set(analysis.to_dict()) == {"errors", "category", "build_system"}
    view = condense(analysis, budget_tokens=2000)
    assert root.message[:80] in view
