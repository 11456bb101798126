"""``testing-sleep``: a tiny domain for testing runners, registered when imported.

Use it from a bench config with ``plugins: [accord.testing.sleep_domain]``. Each episode
waits (``delay`` seconds, asyncio sleep) or burns CPU (``spin`` seconds), then ends in
agreement with a value derived from the seed. Params (all optional):

* ``delay`` / ``spin``: seconds to sleep / to busy-wait;
* ``fail_seeds``: seeds whose episode raises ``RuntimeError``;
* ``pid_dir``: a directory; each episode first creates a file there named by the pid of
  the process running it (lets a test find the pool's workers);
* ``crash_seeds``: seeds whose episode kills its pool worker process (``os._exit``), to
  test a broken pool; in the main process the episode raises ``RuntimeError`` instead;
* ``fail_unless_exists``: a path; the episode raises while it does not exist (lets a
  test make failures go away before ``--retry-failed``);
* ``tokens``: report this many input tokens (and half as many output tokens) per agent;
* ``outcome``: the episode's status (``agreement`` by default, ``no_deal`` or ``error``).

Agents: ``sleeper`` (any options are ignored). Metrics: ``value`` (seed mod 3),
``even`` (seed is even), ``delay``, and ``parity`` (``"even"``/``"odd"``, categorical).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from typing import Any

from accord.core.trajectory import Trajectory
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.protocols.engine import EpisodeResult

_PARAMS = {"delay", "spin", "fail_seeds", "crash_seeds", "fail_unless_exists", "tokens",
           "outcome", "pid_dir"}
_OUTCOMES = ("agreement", "no_deal", "error")


class SleepDomain(Domain):
    """Episodes that only take time: for concurrency, resume and failure tests."""

    name = "testing-sleep"

    def scenarios(self) -> list[str]:
        return ["nap"]

    def agent_kinds(self) -> list[str]:
        return ["sleeper"]

    def validate(self, spec: EpisodeSpec) -> None:
        unknown = sorted(set(spec.params) - _PARAMS)
        if unknown:
            raise ValueError(f"unknown testing-sleep parameter(s) {unknown}; "
                             f"known: {sorted(_PARAMS)}")
        for key in ("delay", "spin"):
            val = spec.params.get(key, 0)
            if isinstance(val, bool) or not isinstance(val, (int, float)) or val < 0:
                raise ValueError(f"parameter {key!r} must be a number of seconds >= 0, "
                                 f"got {val!r}")
        if spec.params.get("outcome", "agreement") not in _OUTCOMES:
            raise ValueError(f"parameter 'outcome' must be one of {_OUTCOMES}")
        if spec.scenario != "nap":
            raise ValueError(f"unknown scenario {spec.scenario!r}; the only one is 'nap'")
        bad = [a.kind for a in spec.agents if a.kind != "sleeper"]
        if bad:
            raise ValueError(f"unknown agent kind {bad[0]!r}; use 'sleeper'")

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        self.validate(spec)
        p = spec.params
        t0 = time.monotonic()
        if p.get("pid_dir"):
            with open(os.path.join(str(p["pid_dir"]), str(os.getpid())), "a"):
                pass
        if p.get("delay"):
            await asyncio.sleep(float(p["delay"]))
        if p.get("spin"):
            end = time.perf_counter() + float(p["spin"])
            while time.perf_counter() < end:
                pass
        if spec.seed in (p.get("fail_seeds") or []):
            raise RuntimeError(f"seed {spec.seed} is set to fail")
        if spec.seed in (p.get("crash_seeds") or []):
            if multiprocessing.parent_process() is None:  # never kill a driver or a test
                raise RuntimeError(f"seed {spec.seed} crashes pool workers only")
            os._exit(13)
        flag = p.get("fail_unless_exists")
        if flag and not os.path.exists(str(flag)):
            raise RuntimeError(f"{flag} does not exist yet")
        log = Trajectory()
        roles = [f"agent{i}" for i in range(len(spec.agents))]
        for role in roles:
            log.add(0, role, "note", reason="slept", data={"seconds": p.get("delay", 0)})
        wall = time.monotonic() - t0
        status = str(p.get("outcome", "agreement"))
        log.add(1, None, "end", reason=None, data={"status": status}, t=wall)
        usage: dict[str, dict[str, Any]] = {}
        if p.get("tokens"):
            n = int(p["tokens"])
            usage = {r: {"input_tokens": n, "output_tokens": n // 2} for r in roles}
        record = {"type": status, "value": spec.seed % 3, "episode": ctx.episode_id,
                  "llm": dict(ctx.llm), "repeat": ctx.extra.get("repeat")}
        return EpisodeResult(status, None, None, 1, record, {}, log, wall, usage)

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return {"value": result.record["value"], "even": spec.seed % 2 == 0,
                "delay": float(spec.params.get("delay", 0)),
                "parity": "even" if spec.seed % 2 == 0 else "odd"}


DOMAIN = register_domain(SleepDomain())

__all__ = ["DOMAIN", "SleepDomain"]
