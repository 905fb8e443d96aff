"""`buildfixer env serve`: the environment's contract over HTTP, on a real Python build."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from buildfixer.cli.env import bundled_catalog
from buildfixer.env.server import EnvServer


@pytest.fixture
def server() -> Iterator[EnvServer]:
    running = EnvServer(("127.0.0.1", 0), max_envs=1)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.close_all()
    running.server_close()


def post(server: EnvServer, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        server.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.slow
def test_an_episode_over_http(server: EnvServer, instance: dict[str, Any]) -> None:
    status, first = post(server, "/reset", {"instance": instance, "toolset": "gradlefixer", "judge": True})
    assert status == 200 and [m["role"] for m in first["messages"]] == ["system", "user"]
    assert any(t["function"]["name"] == "replace" for t in first["tools"])
    env = first["env"]
    assert post(server, "/reset", {"instance": instance})[0] == 400  # max_envs=1: one is open

    arguments = json.dumps({"file_path": "stats.py", "old_string": "//", "new_string": "/"})
    call = {"id": "c1", "type": "function", "function": {"name": "replace", "arguments": arguments}}
    fix = {"role": "assistant", "tool_calls": [call]}
    status, stepped = post(server, "/step", {"env": env, "message": fix})
    assert status == 200 and not stepped["done"] and stepped["observation"][0]["tool_call_id"] == "c1"
    status, stepped = post(
        server, "/step", {"env": env, "message": {"role": "assistant", "content": "Done."}}
    )
    assert status == 200 and stepped["done"] and stepped["reward"] == 1.0
    assert stepped["info"]["build_ok"] and stepped["info"]["judge_ok"] is True

    status, error = post(server, "/step", {"env": env, "message": {"role": "assistant", "content": "x"}})
    assert status == 400 and "call reset() first" in error["error"]
    assert post(server, "/close", {"env": env}) == (200, {"closed": True})
    assert post(server, "/step", {"env": env, "message": {}})[0] == 400


def test_bad_requests_get_a_400_with_one_line(server: EnvServer) -> None:
    said = 'reset needs an instance (a dataset row) or {"dataset", "instance_id"}'
    assert post(server, "/reset", {})[1] == {"error": said}
    no_catalog = {"error": "this server knows no dataset: send the instance (a dataset row)"}
    assert post(server, "/reset", {"dataset": "bundled", "instance_id": "x"})[1] == no_catalog
    status, error = post(server, "/reset", {"instance": {"repo": "x", "base_commit": "y"}, "mode": "nope"})
    assert status == 400 and "unknown mode" in error["error"]
    assert post(server, "/nowhere", {})[0] == 404


def test_serve_refuses_a_bad_port_before_listening() -> None:
    cmd = [sys.executable, "-m", "buildfixer", "env", "serve", "--port", "70000"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--port must be 0-65535" in done.stderr


@pytest.fixture
def catalogued() -> Iterator[EnvServer]:
    running = EnvServer(("127.0.0.1", 0), max_envs=1, catalog=bundled_catalog)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.close_all()
    running.server_close()


def test_a_reset_names_a_dataset_the_server_knows_and_never_a_file(catalogued: EnvServer) -> None:
    for body, said in [
        (
            {"dataset": "/etc/passwd", "instance_id": "x"},
            "unknown dataset '/etc/passwd' (this server knows: bundled)",
        ),
        ({"dataset": "bundled", "instance_id": "nope"}, "no instance 'nope' in the bundled dataset"),
        ({"dataset": "bundled"}, 'reset needs an instance (a dataset row) or {"dataset", "instance_id"}'),
    ]:
        assert post(catalogued, "/reset", body) == (400, {"error": said})
    assert not catalogued.envs  # nothing opened for a refused reset


@pytest.mark.slow
def test_a_bundled_instance_named_by_id_starts_an_episode(catalogued: EnvServer) -> None:
    body = {"dataset": "bundled", "instance_id": "semverkit-elif-colon", "toolset": "gradlefixer"}
    status, first = post(catalogued, "/reset", body)
    assert status == 200, first
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "bump.py" in first["messages"][1]["content"]  # the failing build of that instance
