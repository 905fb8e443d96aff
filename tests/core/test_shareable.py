"""`core.shareable`: the machine's paths in a text to share, made relative or replaced by placeholders."""

from __future__ import annotations

from pathlib import Path

import pytest

import buildfixer
from buildfixer.core.paths import cache_root
from buildfixer.core.shareable import shareable_data, shareable_text

PACKAGE = Path(buildfixer.__file__).resolve().parent


def test_model_specs_commands_and_homes_lose_the_machine(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setenv("BUILDFIXER_CACHE_DIR", "/home/alice/.cache/buildfixer")
    monkeypatch.chdir(tmp_path)
    cases = {
        # A local model named by its file, through the OpenAI-compatible provider.
        "openai//home/alice/.cache/models/qwen-1.5b.gguf": "openai/<home>/.cache/models/qwen-1.5b.gguf",
        f"scripted:{PACKAGE}/bench/data/scripts": "scripted:<buildfixer>/bench/data/scripts",
        "/home/alice/.cache/buildfixer/state/ws-1/sandbox/venv/bin/python -m pytest -q":
            "<venv>/bin/python -m pytest -q",
        "mvn -Dmaven.repo.local=/home/alice/.cache/buildfixer/domains/x/m2 package":
            "mvn -Dmaven.repo.local=<cache>/domains/x/m2 package",
        "$BUILDFIXER_CACHE/m2/repository/a.jar": "<cache>/m2/repository/a.jar",
        "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 /home/alice/.sdkman/candidates/java/21-tem/bin/javac":
            "JAVA_HOME=$JAVA_HOME $JAVA_HOME/bin/javac",
        "see /tmp/pytest-3/plan.json and /root and /Users/bob/x":
            "see <tmp>/pytest-3/plan.json and <home> and <home>/x",
        f"{tmp_path}/runs/gf and {tmp_path}": "runs/gf and .",
        # Not paths of this machine: kept.
        "/tmpfile a/tmp/x https://example.com/tmp/x ~/.m2 src/Main.java /usr/bin/mvn":
            "/tmpfile a/tmp/x https://example.com/tmp/x ~/.m2 src/Main.java /usr/bin/mvn",
        "file:///tmp/x": "file://<tmp>/x",
        "": "",
    }  # fmt: skip
    for text, shared in cases.items():
        assert shareable_text(text) == shared, text


def test_the_project_comes_first_and_endpoints_and_jdks_by_their_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BUILDFIXER_API_BASE", "http://gpu-box.lan:8000/v1")
    monkeypatch.setenv("JAVA_HOME", "/opt/jdks/temurin-17")
    ws = cache_root() / "workspaces" / "stats-1" / "slot-0"
    text = f"File {ws}/src/app.py, line 3 in {ws}; GET http://gpu-box.lan:8000/v1/models"
    text += "; /opt/jdks/temurin-17/bin/java"
    assert shareable_text(text, project=ws) == (
        "File src/app.py, line 3 in .; GET $BUILDFIXER_API_BASE/models; $JAVA_HOME/bin/java"
    )
    assert shareable_text(f"{ws}/src/app.py") == "<cache>/workspaces/stats-1/slot-0/src/app.py"


def test_data_is_copied_with_every_string_shared(tmp_path: Path) -> None:
    model = f"scripted:{tmp_path}/plan.json"
    data = {"model": model, model: [1, None, (f"{tmp_path}/bin/python",)], "n": 2.5}
    shared = shareable_data(data)
    assert shared["model"] == shareable_text(model) and shared["model"].startswith("scripted:<tmp>/")
    assert shared[shared["model"]][:2] == [1, None] and shared[shared["model"]][2][0].startswith("<tmp>/")
    assert str(tmp_path) not in str(shared) and shared["n"] == 2.5
    assert data["model"] == model  # the input is left as it was
