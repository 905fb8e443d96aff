"""`buildfixer env serve`: the environment over HTTP, so a trainer on GPU machines drives builds here.

The same contract as `BuildRepairEnv`, as JSON over POST:

- `/reset` `{"instance": {...}, "mode", "judge", "toolset", "max_turns"}` (an `"env"` id to reuse
  one) -> `{"env": id, "messages": [...], "tools": [...]}`; instead of the whole row,
  `{"dataset": "bundled", "instance_id": "..."}` names one of a dataset the server knows (the
  bundled one; a client never names a file of this machine)
- `/step` `{"env": id, "message": {assistant message}}` -> `{"observation", "reward", "done", "info"}`
- `/close` `{"env": id}` -> `{"closed": true}`

A bad request is a 400 with `{"error": "one line"}`; a request another web site made, or one to a
name that is not this server's (DNS rebinding), is a 403, as for the viewer (`core.http_guard`).
Episodes of one environment run one at a time (a lock per environment); different environments run
in parallel, up to `max_envs` at once.
Bound to 127.0.0.1 unless told otherwise: the endpoint runs builds, so expose it on purpose.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.http_guard import refusal
from buildfixer.env.episode import BuildRepairEnv

_MAX_BODY = 10 * 1024 * 1024
# (dataset name, instance id) -> (the row, the folder its relative repo paths are in); raises
# BuildfixerError for a name or id it does not know. The caller chooses the datasets: a client
# never names a file of this machine.
Catalog = Callable[[str, str], tuple[dict[str, Any], Path | None]]


class EnvServer(ThreadingHTTPServer):
    """Holds the environments by id."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], max_envs: int = 8, catalog: Catalog | None = None) -> None:
        super().__init__(address, _Handler)
        self.catalog = catalog  # the datasets a reset may name (`{"dataset", "instance_id"}`)
        self.listen_host = address[0]  # as given: the Host check allows the name it was told to listen on
        self.max_envs = max_envs
        self.envs: dict[str, tuple[BuildRepairEnv, threading.Lock]] = {}
        self.guard = threading.Lock()

    @property
    def url(self) -> str:
        """Where the server listens."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def reset(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /reset: open an environment (or take the one named) and start an episode."""
        env_id = body.get("env")
        with self.guard:
            if env_id is None:
                if len(self.envs) >= self.max_envs:
                    raise BuildfixerError(f"{self.max_envs} environments are open: close one first")
                instance, dataset_dir = self._instance(body)
                settings = {
                    k: body[k] for k in ("mode", "judge", "toolset", "max_turns", "max_wall_s") if k in body
                }
                env_id = uuid.uuid4().hex[:12]
                env = BuildRepairEnv(instance, dataset_dir=dataset_dir, **settings)
                self.envs[env_id] = (env, threading.Lock())
            env, lock = self._get(env_id)
        with lock:
            return {"env": env_id, **env.reset()}

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /step: one model reply in the named environment."""
        with self.guard:
            env, lock = self._get(body.get("env"))
        with lock:
            observation, reward, done, info = env.step(body.get("message") or {})
        return {"observation": observation, "reward": reward, "done": done, "info": info}

    def close_env(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /close: close the named environment (its workspace goes back to the pool)."""
        with self.guard:
            env, lock = self._get(body.get("env"))
            del self.envs[str(body.get("env"))]
        with lock:
            env.close()
        return {"closed": True}

    def close_all(self) -> None:
        """Close every environment (on shutdown)."""
        with self.guard:
            envs, self.envs = list(self.envs.values()), {}
        for env, lock in envs:
            with lock:
                env.close()

    def _instance(self, body: dict[str, Any]) -> tuple[dict[str, Any], Path | None]:
        """The episode's dataset row: given whole, or named in a dataset the server knows."""
        if isinstance(body.get("instance"), dict):
            return body["instance"], None
        name, instance_id = body.get("dataset"), body.get("instance_id")
        if name is None or instance_id is None:
            raise BuildfixerError('reset needs an instance (a dataset row) or {"dataset", "instance_id"}')
        if self.catalog is None:
            raise BuildfixerError("this server knows no dataset: send the instance (a dataset row)")
        return self.catalog(str(name), str(instance_id))

    def _get(self, env_id: Any) -> tuple[BuildRepairEnv, threading.Lock]:
        if env_id not in self.envs:
            raise BuildfixerError(f"no environment {env_id!r} (reset without an id opens one)")
        return self.envs[env_id]


class _Handler(BaseHTTPRequestHandler):
    server: EnvServer

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
        refused = refusal(self.headers, self.server.listen_host, self.server.server_address[1])
        if refused is not None:  # before the body is read: nothing of it is acted on
            self._send(403, {"error": f"forbidden: {refused}"})
            return
        routes = {"/reset": self.server.reset, "/step": self.server.step, "/close": self.server.close_env}
        route = routes.get(self.path)
        if route is None:
            self._send(404, {"error": f"no endpoint {self.path} (POST /reset, /step, /close)"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if length > _MAX_BODY:
                raise BuildfixerError(f"request body over {_MAX_BODY} bytes")
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise BuildfixerError("the request body is a JSON object")
            self._send(200, route(body))
        except (BuildfixerError, ValueError, TypeError) as exc:
            self._send(400, {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: a trainer's thousands of steps are not worth a line each."""
