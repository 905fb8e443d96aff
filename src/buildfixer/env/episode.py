"""The RL environment: one repair episode on a dataset instance, driven one model reply at a time.

`reset()` puts a pooled workspace at the instance's failing commit (a `git checkout`, not a clone)
and returns what the model sees first: the system prompt, the first message and the tool schemas.
`step(assistant_message)` runs the reply's tool calls and returns their results; the episode ends
when the reply calls no tool, at the turn limit, at the wall-time limit, or when a tool overran it
(the observation then says `tooltimeout`, as the second study's environment did). At the end the
harness's own build is the verdict and, with `judge=True`, the judge reads the patch: the reward
is 1.0 only when the build passes and the judge approves; both are in `info` for a trainer that
shapes its own.

The failing build of an instance is built once per process and reused by every later reset of
the same instance (its log and errors make the first message), so a reset costs a checkout.

That is simplified mode; a row with `error_index` focuses an episode on one of the failure's
errors (env.error_examples). In full mode an episode is one run of the repair loop, each
observation the loop's next request to the policy (env.loop_episode).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from buildfixer.agents.calls import execute_call
from buildfixer.agents.prompts import first_message, system_prompt
from buildfixer.agents.trajectory import Trajectory
from buildfixer.buildsys.options import BuildOptions, cache_domain
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import StopKind
from buildfixer.env.error_examples import error_gone, examples_of, focused_start
from buildfixer.env.loop_episode import LoopEnded, LoopEpisode, full_info, loop_config, reply_of
from buildfixer.harness.attempt import AttemptConfig, current_build, judge_repair, make_context, verdict_build
from buildfixer.llm.text_calls import ReplyCheck, read_text_calls
from buildfixer.memory.trust import instance_domain
from buildfixer.tools.build_support import format_build_output
from buildfixer.tools.presets import PRESETS, make_toolset
from buildfixer.workspace.ledger import EditLedger
from buildfixer.workspace.workspace import Workspace

MODES = ("simplified", "full")
Info = dict[str, Any]
# Tools whose time is build time (the share of a rollout spent building is a throughput figure).
_BUILDING = {"run_build", "validate_and_build", "run_gradle_command", "run_maven_command", "run_npm_command",
             "run_python_command"}  # fmt: skip
_BUNDLED = Path(__file__).resolve().parent.parent / "bench" / "data"
# (repository, commit, JDK) -> the instance's failing build, built once per process
_FAILURES: dict[tuple[str, str, int | None], BuildResult] = {}


def instance_of(value: Any) -> dict[str, Any]:
    """A dataset row given as a dict or as its JSON (trainers' data columns carry it as text)."""
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict):
        raise BuildfixerError("an instance is a dataset row (a dict) or its JSON")
    return value


class BuildRepairEnv:
    """One instance, many episodes: `reset`, `step` until done, `reset` again; `close` at the end.

    Args:
        instance: A dataset row (`repo`, `base_commit`, `instance_id`, ...); a relative `repo` is
            found in `dataset_dir`, by default the bundled dataset's folder.
        mode: "simplified": an episode is one conversation from the instance's failure; "full": an
            episode is one run of the repair loop (env.loop_episode), each observation the loop's
            next request to the policy.
        judge: Whether the judge must approve the patch for the reward.
        toolset: The tool preset the model gets (tools.presets.PRESETS), in both modes (`fix
            --agent pipeline` defaults to `industrial`; the environment keeps one default).
        max_turns: Model replies per episode.
        max_wall_s: Wall time of an episode (None: none).
        options: Build options (cache, timeouts, sandbox); the instance's JDK is applied on top.
        dataset_dir: Where relative repositories are.
    """

    def __init__(
        self, instance: dict[str, Any], mode: str = "simplified", judge: bool = True,
        toolset: str = "gradlefixer", max_turns: int = 50, max_wall_s: float | None = None,
        options: BuildOptions | None = None, dataset_dir: Path | None = None,
    ) -> None:  # fmt: skip
        if mode not in MODES:
            raise BuildfixerError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
        if toolset not in PRESETS:
            raise BuildfixerError(f"unknown toolset {toolset!r} (known: {', '.join(PRESETS)})")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise BuildfixerError(f"max_turns must be a positive whole number, got {max_turns!r}")
        missing = [key for key in ("repo", "base_commit") if not instance.get(key)]
        if missing:
            raise BuildfixerError(f"the instance has no {missing[0]}")
        index = instance.get("error_index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise BuildfixerError(f"error_index must be a whole number from 0, got {index!r}")
        if index is not None and mode == "full":
            raise BuildfixerError(
                "error_index picks one error of a simplified episode; full mode runs the loop"
            )
        self.error_index: int | None = index
        self._focus: BuildError | None = None
        self.instance, self.mode, self.judge, self.toolset = dict(instance), mode, judge, toolset
        self.max_turns, self.max_wall_s = max_turns, max_wall_s
        self.options = options or BuildOptions()
        if instance.get("jdk"):
            self.options.jdk = int(instance["jdk"])
        repo = str(instance["repo"])
        base = dataset_dir or _BUNDLED
        self.source = repo if "://" in repo or Path(repo).is_absolute() else str((base / repo).resolve())
        if self.options.trust_domain is None:  # the caches of this repository's episodes
            self.options.trust_domain = cache_domain(instance_domain(self.source))
        self.workspace: Workspace | None = None
        self._tools: dict[str, Any] = {}
        self._messages: list[dict[str, Any]] = []
        self._turns = 0
        self._started = 0.0
        self._build_s = 0.0
        self._done = True
        self._overran = False
        self._check = ReplyCheck()  # what to tell a policy whose reply is no answer
        self._info: dict[str, Any] = {}
        self._started_at = ""
        self._ctx: Any = None
        self._loop: LoopEpisode | None = None

    @classmethod
    def examples(
        cls, instance: dict[str, Any], options: BuildOptions | None = None, dataset_dir: Path | None = None
    ) -> list[dict[str, Any]]:
        """The instance as one example per distinct error of its failure (env.error_examples).

        Builds the failing commit once (the build is reused by the examples' episodes).
        """
        row = {k: v for k, v in instance.items() if k not in ("error_index", "error", "example_id")}
        env = cls(row, options=options, dataset_dir=dataset_dir)
        try:
            env.reset()
            return examples_of(row, env._failure())
        finally:
            env.close()

    # ---- the contract -------------------------------------------------------------------------

    def reset(self) -> dict[str, Any]:
        """Start an episode: `{"messages": [system, first user message], "tools": [schemas]}`.

        In full mode the observation is the loop's first request to the policy; when the loop ends
        without one (a remembered fix replayed), its messages are empty and `"ended"` holds the
        reward and info.
        """
        self._end_loop()
        if self.workspace is None:
            self.workspace = Workspace.acquire(
                self.source, self.instance["base_commit"], self.options.cache_dir
            )
        else:
            self.workspace.reset()
        root = self.workspace.root
        config = self._config = AttemptConfig(toolset=self.toolset, options=self.options, judge=self.judge)
        self._ctx = make_context(root, config, self.instance.get("build_system"))
        failure = self._initial = self._failure()
        self.workspace.reset()  # what the first build wrote goes: every episode starts from the same tree
        self._turns, self._started, self._done, self._build_s = 0, time.monotonic(), False, 0.0
        self._overran, self._check, self._info, self._messages = False, ReplyCheck(), {}, []
        self._started_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        tools = make_toolset(self._ctx, self.toolset)
        self._tools = {tool.name: tool for tool in tools}
        if self.mode == "full":  # the loop opens its own ledger and writes its own first messages
            config = loop_config(self.toolset, self.options, self.max_turns, self.max_wall_s)
            config.memory_domain = instance_domain(self.source)  # a dataset's: never a user project's
            self._loop = LoopEpisode(self.workspace, config, failure, self.instance, self.judge)
            _, reward, done, info = self._loop_step(None)
            if done:
                return {"messages": [], "tools": [], "ended": {"reward": reward, "info": info}}
            return {"messages": info["messages"], "tools": info["tools"]}
        self._ctx.ledger = EditLedger.open(root, self.workspace.git_dir)
        if self.error_index is not None:
            self._focus, start = focused_start(self._ctx, failure, self._key, self.error_index, self.instance)
            self._messages = [dict(m) for m in start]
        else:
            error = format_build_output(self._ctx, failure, "condensed")
            self._messages = [
                {"role": "system", "content": system_prompt()},
                {"role": "user", "content": first_message(root, error)},
            ]
        return {"messages": [dict(m) for m in self._messages], "tools": [tool.schema() for tool in tools]}

    def step(
        self, assistant_message: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], float, bool, dict[str, Any]]:
        """Run one model reply; `(observation, reward, done, info)` (reward only when done).

        The observation is the messages the policy has not seen yet: the tool results to append.
        In full mode, when the loop starts a new try with a fresh conversation, it is that new
        conversation (system and first message) and `info["new_context"]` is True; the loop's
        whole next request is in `info["messages"]` and `info["tools"]` either way.
        """
        if self._done:
            raise BuildfixerError("the episode is over: call reset() first")
        if (
            not isinstance(assistant_message, dict)
            or assistant_message.get("role", "assistant") != "assistant"
        ):
            raise BuildfixerError(
                "an action is an assistant message: {'role': 'assistant', 'content', 'tool_calls'}"
            )
        self._turns += 1
        if self._loop is not None:
            return self._loop_step(assistant_message)
        message = {**assistant_message, "role": "assistant"}
        calls = message.get("tool_calls") or []
        text = str(message.get("content") or "")
        if not calls and (read := read_text_calls(text, self._tools)[0]):  # calls the policy wrote as text
            calls = message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in read
            ]
        self._messages.append(message)
        observation: list[dict[str, Any]] = []
        for index, call in enumerate(calls):
            function = call.get("function") or {}
            call_id = str(call.get("id") or f"call_{self._turns}_{index}")
            name, arguments = str(function.get("name", "")), function.get("arguments") or "{}"
            content = self.call_tool(name, arguments, call_id)
            observation.append({"role": "tool", "tool_call_id": call_id, "content": content})
            if self._overran:
                break
        acted = any(m.get("role") == "tool" for m in self._messages) or bool(observation)
        if calls:
            self._check.called()
        problem = None if calls else self._check.message(text, self._tools, acted=acted)
        told = problem is not None and self._turns < self.max_turns  # a message to act on, not the end
        if told:
            observation.append({"role": "user", "content": problem})
        self._messages += observation
        stop = None if told else self._stop(calls)
        if stop is None:
            return (
                observation,
                0.0,
                False,
                {"build_ok": None, "judge_ok": None, "stop": None, "turns": self._turns},
            )
        return (observation, *self.finish(stop))

    def call_tool(self, name: str, arguments: str | dict[str, Any], call_id: str = "call") -> str:
        """Run one tool call in the episode and return what the model sees.

        `step` runs a reply's calls through here; trainers that run tools one call at a time
        (TRL's environment classes) call it directly. After a call overran the episode's wall
        time, the output starts with `tooltimeout:` and later calls are not run.
        """
        if self._done:
            raise BuildfixerError("the episode is over: call reset() first")
        if self._overran:
            return f"{StopKind.TOOL_TIMEOUT}: the episode's time is up; no more tool calls run"
        deadline = self._started + self.max_wall_s if self.max_wall_s else None
        result = execute_call(self._tools, call_id, name, arguments, deadline)
        if result.name in _BUILDING:
            self._build_s += result.seconds
        self._overran = "did not finish before the attempt's time budget ran out" in result.output
        return f"{StopKind.TOOL_TIMEOUT}: {result.output}" if self._overran else result.output

    def save_trajectory(self, path: Path) -> None:
        """Save the finished episode as a trajectory (the format `fix` writes; `export sft` reads it)."""
        if not self._done or not self._info:
            raise BuildfixerError("only a finished episode can be saved: step until done first")
        info = self._info
        judged = info["judge_ok"] is not None
        judge = {"approved": info["judge_ok"], "findings": info["findings"]} if judged else None
        meta = {
            "instance_id": self.instance.get("instance_id"), "project": str(self._ctx.root),
            "build_system": self._ctx.build_system, "tools": [t.schema() for t in self._tools.values()],
            "started_at": self._started_at, "config": {"toolset": self.toolset}, "source": "env",
        }  # fmt: skip
        verdict = {"resolved": info["build_ok"], "judge": judge, "stop": info["stop"]}
        verdict["reward"] = info["reward"]
        Trajectory(path, meta=meta, messages=self.messages, verdict=verdict).save()

    def close(self) -> None:
        """Stop the builds' daemons and give the workspace back."""
        self._end_loop()
        if self.workspace is not None:
            stop_daemons(self.workspace.root, self.options)
            self.workspace.release()
            self.workspace = None
        self._done = True

    # ---- parts --------------------------------------------------------------------------------

    @property
    def tool_names(self) -> list[str]:
        """The tools of the current episode (the toolset for this instance's build system)."""
        return list(self._tools)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The episode's conversation so far."""
        return [dict(m) for m in self._messages]

    @property
    def _key(self) -> tuple[str, str, int | None]:
        return (self.source, self.instance["base_commit"], self.options.jdk)

    def _failure(self) -> BuildResult:
        key = self._key
        if key not in _FAILURES:
            _FAILURES[key] = current_build(self._ctx)
        return _FAILURES[key]

    def _stop(self, calls: list[Any]) -> StopKind | None:
        if self._overran:
            return StopKind.TOOL_TIMEOUT
        if not calls:
            return StopKind.MODEL_FINISHED
        if self._turns >= self.max_turns:
            return StopKind.TURN_LIMIT
        if self.max_wall_s and time.monotonic() - self._started >= self.max_wall_s:
            return StopKind.TIME_LIMIT
        return None

    def finish(self, stop: StopKind = StopKind.MODEL_FINISHED) -> tuple[float, bool, dict[str, Any]]:
        """End the episode: the verdict build and the judge; `(reward, done, info)`."""
        if self._done:
            raise BuildfixerError("the episode is over: call reset() first")
        if self._loop is not None:
            return self._loop_result(self._loop.cancel())[1:]
        self._done = True
        began = time.monotonic()
        verdict, edited, _ = verdict_build(self._ctx, set())
        self._build_s += time.monotonic() - began
        build_ok = verdict.status == "success"
        patch = self._ctx.ledger.patch() if self._ctx.ledger is not None else ""
        judge_ok: bool | None = None
        findings: list[dict[str, Any]] = []
        if self._config.judge and patch.strip():  # the verdict every attempt gets (harness.attempt)
            found = judge_repair(patch, self._ctx.root, self._config, self._initial)
            judge_ok, findings = found.approved, found.to_dict()["findings"]
        # An example of one error asks only that its error be gone; the others are other examples.
        fixed = error_gone(self._focus, verdict) if self._focus is not None else build_ok
        reward = 1.0 if fixed and (judge_ok is not False) else 0.0
        info = {
            "build_ok": build_ok, "error_fixed": fixed, "judge_ok": judge_ok, "stop": StopKind(stop).value,
            "turns": self._turns,
            "patch": patch, "edited": edited or [], "findings": findings, "status": verdict.status,
            "seconds": round(time.monotonic() - self._started, 3), "build_seconds": round(self._build_s, 3),
        }  # fmt: skip
        self._info = {**info, "reward": reward}
        return reward, True, info

    # ---- full mode ------------------------------------------------------------------------------

    def _loop_step(self, action: dict[str, Any] | None) -> tuple[list[dict[str, Any]], float, bool, Info]:
        """Hand the loop the policy's reply; what the policy has not seen yet, or the end and reward."""
        assert self._loop is not None
        event, new = self._loop.next(reply_of(action) if action is not None else None)
        if isinstance(event, LoopEnded):
            return self._loop_result(event)
        unseen = event.messages if new else event.messages[len(self._messages) + 1 :]  # +1: the reply
        self._messages = event.messages
        info: Info = {"build_ok": None, "judge_ok": None, "stop": None, "turns": self._turns}
        info |= {"new_context": new, "messages": event.messages, "tools": event.tools}
        return unseen, 0.0, False, info

    def _loop_result(self, ended: LoopEnded) -> tuple[list[dict[str, Any]], float, bool, dict[str, Any]]:
        self._done, self._loop = True, None
        reward, info = full_info(ended, self._turns, self._started, self.judge)
        if ended.attempt is not None:
            self._messages = list(ended.attempt.trajectory.messages)
        self._info = {**info, "reward": reward}
        return [], reward, True, info

    def _end_loop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            self._loop = None
