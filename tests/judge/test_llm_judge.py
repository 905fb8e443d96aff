"""The optional LLM judge: through `buildfixer judge --judge-model`, over HTTP to the local fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.judge.llm_judge import parse_answer
from buildfixer.llm.fake_server import FakeOpenAIServer

API_KEY = "sk-fake-judge-key-0123456789abcdef"
# Rules see nothing here: no test file, no build file; the check is gone from the source.
PATCH = """\
diff --git a/src/main/java/App.java b/src/main/java/App.java
--- a/src/main/java/App.java
+++ b/src/main/java/App.java
@@ -1,5 +1,4 @@
 class App {
     static int parse(String text) {
-        if (text == null) return 0;
         return Integer.parseInt(text);
     }
"""


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            '{"approved": false, "reasons": ["App.java drops the null check"]}',
            (False, ["App.java drops the null check"]),
        ),
        (
            '<think>{"approved": true}</think>Sure.\n```json\n{"approved": true, "reasons": []}\n```',
            (True, []),
        ),
        ('Verdict: {"approved": false, "reasons": "one reason"} as asked', (False, ["one reason"])),
        ("It looks fine to me.", None),
        ('{"approved": "yes"}', None),
    ],
)
def test_answers_are_read_from_the_json_object_in_the_reply(reply: str, expected: object) -> None:
    assert parse_answer(reply) == expected


def judge(tmp_path: Path, server: FakeOpenAIServer, *extra: str) -> subprocess.CompletedProcess[str]:
    patch = tmp_path / "fix.patch"
    patch.write_text(PATCH)
    (tmp_path / "project").mkdir(exist_ok=True)
    env = {**os.environ, "BUILDFIXER_API_BASE": server.base_url, "OPENAI_API_KEY": API_KEY,
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    cmd = [sys.executable, "-m", "buildfixer", "judge", str(tmp_path / "project"), "--patch", str(patch),
           "--judge-model", "openai/fake-model", "--json", *extra]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.slow
def test_a_rejection_by_the_model_rejects_the_patch_and_is_recorded(tmp_path: Path) -> None:
    reply = '{"approved": false, "reasons": ["App.parse no longer rejects null text"]}'
    with FakeOpenAIServer([{"content": reply}], api_key=API_KEY) as server:
        done = judge(tmp_path, server)
    assert done.returncode == 1, done.stderr
    verdict = json.loads(done.stdout)
    assert not verdict["approved"]
    assert verdict["findings"] == [
        {"rule": "llm_judge", "file": None, "line": None, "detail": "App.parse no longer rejects null text"}
    ]
    assert verdict["llm"] == {"model": "openai/fake-model", "approved": False,
                              "reasons": ["App.parse no longer rejects null text"]}  # fmt: skip
    (request,) = server.requests
    assert "text == null" in request["messages"][1]["content"] and not request.get("tools")
    assert API_KEY not in done.stdout + done.stderr


@pytest.mark.slow
def test_an_approval_keeps_the_rules_verdict(tmp_path: Path) -> None:
    with FakeOpenAIServer([{"content": '{"approved": true, "reasons": []}'}], api_key=API_KEY) as server:
        done = judge(tmp_path, server)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["approved"] and verdict["llm"]["approved"] is True and verdict["findings"] == []


@pytest.mark.slow
def test_an_unreadable_reply_or_a_provider_error_leaves_the_rules_verdict(tmp_path: Path) -> None:
    with FakeOpenAIServer([{"content": "Looks reasonable."}], api_key=API_KEY) as server:
        done = judge(tmp_path, server)
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and verdict["llm"]["error"] == "unreadable reply"
    assert any("not the JSON asked for" in note for note in verdict["notes"])
    with FakeOpenAIServer([{"error": 401, "message": "bad key"}], api_key=API_KEY) as server:
        done = judge(tmp_path, server)
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and "401" in verdict["llm"]["error"]


@pytest.mark.slow
def test_an_unknown_judge_model_is_refused_before_anything_runs(tmp_path: Path) -> None:
    patch = tmp_path / "fix.patch"
    patch.write_text(PATCH)
    cmd = [sys.executable, "-m", "buildfixer", "judge", str(tmp_path), "--patch", str(patch),
           "--judge-model", "nosuchprovider/x"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown model" in done.stderr and len(done.stderr.splitlines()) == 1
