"""Small run directories written by hand for the viewer's tests: two configurations, three instances.

Run A (`tool/gradlefixer/acme/alpha`): `calc-semicolon` resolved (its tool output holds markup that
must stay text), `calc-skip-tests` hacked (the judge rejected the patch), `calc-plugin` failed on its
call budget after five steps, three of them builds. Each attempt's last reply says something only it
says (`LAST_WORDS`), for the text search. Run B (`recipes/gradlefixer/recipes`): the same instances,
one resolved.
"""

import json
from pathlib import Path

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'

COMPILE_LOG = """[INFO] Scanning for projects...
[INFO] Building calc 1.0
[INFO] --- maven-compiler-plugin:3.11.0:compile (default-compile) @ calc ---
[INFO] Compiling 3 source files to /work/calc/target/classes
[ERROR] COMPILATION ERROR :
[ERROR] /work/calc/src/main/java/demo/Calc.java:[12,30] ';' expected
[INFO] 1 error
[INFO] BUILD FAILURE
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile \
(default-compile) on project calc: Compilation failure
"""
SUCCESS_LOG = "[INFO] Building calc 1.0\n[INFO] BUILD SUCCESS\n"
PATCH = """diff --git a/src/main/java/demo/Calc.java b/src/main/java/demo/Calc.java
--- a/src/main/java/demo/Calc.java
+++ b/src/main/java/demo/Calc.java
@@ -10,3 +10,3 @@ public class Calc {
     int twice(int x) {
-        return x * 2
+        return x * 2;
     }
"""
SKIP_PATCH = """diff --git a/pom.xml b/pom.xml
--- a/pom.xml
+++ b/pom.xml
@@ -30,2 +30,3 @@
     <artifactId>maven-surefire-plugin</artifactId>
+    <configuration><skipTests>true</skipTests></configuration>
"""

LAST_WORDS = {
    "calc-semicolon": "Done: the semicolon is back.",
    "calc-skip-tests": "Done: the surefire tests are skipped now.",
    "calc-plugin": "I give up: org.acme:gone exists in no repository.",
}

INSTANCES = [
    {"instance_id": "calc-semicolon", "origin": "human", "category": "syntax", "build_system": "maven",
     "error_log": COMPILE_LOG, "gold_patch": PATCH, "lines_changed": 2, "files_changed": 1},
    {"instance_id": "calc-skip-tests", "origin": "llm", "category": "test_failure", "build_system": "maven",
     "error_log": "[ERROR] Tests run: 4, Failures: 1\n[INFO] BUILD FAILURE\n", "gold_patch": PATCH},
    {"instance_id": "calc-plugin", "origin": "dependency", "category": "library_unavailable",
     "build_system": "maven", "error_log": "[ERROR] Plugin org.acme:gone:9.9 could not be resolved\n",
     "gold_patch": ""},
]  # fmt: skip


def _trajectory(
    instance_id: str, tool_output: str, verdict: dict, log_path: str | None, builds: int = 1
) -> dict:
    """A trajectory of `builds` run_build steps (each shown `tool_output`), an edit, and a last reply."""
    edit_args = json.dumps({"file_path": "src/main/java/demo/Calc.java", "old_string": "x * 2\n"})
    edit = {"id": "call_e", "type": "function", "function": {"name": "replace", "arguments": edit_args}}
    messages: list[dict] = [
        {"role": "system", "content": "You repair builds with the tools you are given."},
        {"role": "user", "content": f"The build of {instance_id} fails:\n{COMPILE_LOG}"},
    ]
    usage = {"input_tokens": 1000, "output_tokens": 50, "cost_usd": 0.01}
    steps: list[dict] = []

    def step(reply: dict, results: list[dict]) -> None:
        messages.append(reply)
        messages.extend({"role": "tool", "tool_call_id": r["id"], "content": r["output"]} for r in results)
        steps.append({"index": len(steps) + 1, "reply": reply, "usage": usage, "model_s": 0.5, "llm": True,
                      "tool_results": results})  # fmt: skip

    for n in range(1, builds + 1):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "run_build", "arguments": "{}"}}
        said = "Let me build first." if n == 1 else "Again."
        reply = {"role": "assistant", "content": said, "tool_calls": [call]}
        step(reply, [{"id": f"call_{n}", "name": "run_build", "arguments": "{}", "output": tool_output,
                      "error": False, "seconds": 3.5}])  # fmt: skip
    step({"role": "assistant", "content": f"A semicolon is missing. {XSS}", "tool_calls": [edit]},
         [{"id": "call_e", "name": "replace", "arguments": edit_args, "output": "replaced 1 occurrence",
           "error": False, "seconds": 0.01}])  # fmt: skip
    step({"role": "assistant", "content": LAST_WORDS[instance_id]}, [])
    budget = {"max_calls": 10, "max_tokens": 50000, "max_cost_usd": None, "max_wall_s": 600.0}
    config = {"agent": "tool", "model": "acme/alpha", "toolset": "gradlefixer", "budget": budget}
    return {
        "format": 1,
        "meta": {"project": "/work/calc", "build_system": "maven", "agent": "tool", "model": "acme/alpha",
                 "config": config,
                 "instance_id": instance_id, "sample": 0,
                 "initial": {"status": "failure", "log_path": log_path, "top_error": None}},
        "messages": messages, "steps": steps,
        "usage": {"input_tokens": 3000, "output_tokens": 150, "cost_usd": 0.03},
        "llm_calls": len(steps), "tool_counts": {"run_build": builds, "replace": 1}, "elapsed_s": 42.0,
        "verdict": verdict,
    }  # fmt: skip


def _result(instance_id: str, agent: str, model: str, **fields) -> dict:
    row = {"instance_id": instance_id, "agent": agent, "toolset": "gradlefixer", "model": model, "sample": 0,
           "resolved": False, "status": "failure", "llm_calls": 3, "input_tokens": 3000, "output_tokens": 150,
           "cost_usd": 0.03, "tool_counts": {"run_build": 1, "replace": 1}, "duration_s": 10.0, "patch": "",
           "trajectory": f"trajectories/{instance_id}__0.json", "stop": "model_finished",
           "stop_reason": "model finished"}  # fmt: skip
    row.update(fields)
    return row


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def make_run_a(root: Path, tool_output: str = "") -> Path:
    run = root / "run-a"
    (run / "trajectories").mkdir(parents=True)
    log = run / "logs" / "build-1.log"  # a harness log that still exists (kept in the run)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(COMPILE_LOG)
    output = tool_output or f"BUILD FAILED (exit 1) in 3.5s — mvn package\n\n{COMPILE_LOG}\nnoise {XSS}\n"
    judge_ok = {"approved": True, "findings": [], "notes": []}
    finding = {"rule": "tests_skipped", "file": "pom.xml", "line": 31, "detail": "skipTests set"}
    judge_no = {"approved": False, "notes": ["tests were switched off"], "findings": [finding]}
    verdicts = {
        "calc-semicolon": {"resolved": True, "stop": "resolved", "status": "success", "judge": judge_ok,
                           "log_path": str(root / "cache" / "gone.log")},
        "calc-skip-tests": {"resolved": False, "stop": "hacked", "status": "success", "judge": judge_no,
                            "log_path": None},
        "calc-plugin": {"resolved": False, "stop": "budget_calls", "status": "failure", "log_path": None},
    }  # fmt: skip
    for iid, verdict in verdicts.items():
        builds = 3 if iid == "calc-plugin" else 1  # the attempt that ran out of calls kept building
        doc = _trajectory(iid, output, verdict, str(log) if iid == "calc-semicolon" else None, builds)
        (run / "trajectories" / f"{iid}__0.json").write_text(json.dumps(doc))
    write_jsonl(run / "instances.jsonl", INSTANCES)
    write_jsonl(run / "results.jsonl", [
        _result("calc-semicolon", "tool", "acme/alpha", resolved=True, status="success", patch=PATCH,
                stop="resolved", duration_s=30.0, cost_usd=0.05),
        _result("calc-skip-tests", "tool", "acme/alpha", status="success", patch=SKIP_PATCH, stop="hacked",
                stop_reason="the build passes, but the judge rejected the change", duration_s=90.0),
        _result("calc-plugin", "tool", "acme/alpha", stop="budget_calls", duration_s=5.0, llm_calls=10),
    ])  # fmt: skip
    (run / "config.json").write_text(json.dumps({"agent": "tool", "model": "acme/alpha", "samples": 1}))
    return run


def make_run_b(root: Path) -> Path:
    run = root / "run-b"
    run.mkdir(parents=True)
    write_jsonl(run / "instances.jsonl", INSTANCES)
    write_jsonl(run / "results.jsonl", [
        _result("calc-semicolon", "recipes", "recipes", resolved=True, status="success", patch=PATCH,
                stop="resolved", duration_s=60.0, llm_calls=0, trajectory=None),
        _result("calc-skip-tests", "recipes", "recipes", stop="declined", duration_s=1.0, llm_calls=0),
        _result("calc-plugin", "recipes", "recipes", stop="declined", duration_s=2.0, llm_calls=0),
    ])  # fmt: skip
    return run
