"""A real model (SmolLM2-135M-Instruct on llama.cpp) in Deal or No Deal, task exchange and
deliberation with structured output: one short episode each, every reply a legal move,
every episode ending cleanly.

Prompts are what a CPU reads slowly (about 50-150 prompt tokens/s here), so each episode is
the smallest that still plays the domain: a datapoint of four items, two rounds; a
three-task scenario (8 composites instead of the built-in 64, a ~1,000-token prompt instead
of ~7,000) with three turns; a menu of three dishes and three ingredients, one round. The
scenario files are in ``tests/real_model/data``.

Measured on the shared 2-core machine under a load of about 11 (CPU seconds of the test
process, llama.cpp's threads included; wall times were 2.5-4x these):

============== ===== ========================= ================= =========
episode        calls prompt tokens per call    completion tokens CPU s
============== ===== ========================= ================= =========
Deal or No Deal  2   693, 1,059 (prefix cached) 53, 54             91
task exchange    2   1,240, 1,444              19, 114             92
deliberation     3   1,013, 988, 972           68, 95, 38         158
============== ===== ========================= ================= =========

A bare llama.cpp call here reads about 57 prompt tokens and decodes about 5 tokens per CPU
second, so at idle (two threads) the three take roughly 20, 25 and 45 seconds; with the
bargaining and games tests the directory stays near the ~3 minutes it is budgeted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accord.agents.spec import parse_agent_list
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.protocols.engine import EpisodeResult

from .conftest import CALL_TIMEOUT

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"
#: the grammar bounds every reply (free text at most 300 characters), but not below 256
#: tokens: one Deal or No Deal reply was cut there (a long message at temperature 0.7, seen
#: once in many runs). 512 covers the longest reply the grammar admits in ordinary text;
#: replies here are 20-120 tokens, so the cap costs nothing when it is not reached.
LLM = "llm:llamacpp/{gguf}?structured=grammar&max_tokens=512&temperature=0.7"


def calls_and_faults(res: EpisodeResult, party: str) -> tuple[list[Any], list[Any]]:
    events = list(res.trajectory)
    calls = [e for e in events if e.kind == "note" and e.reason == "llm_call"
             and e.party == party]
    faults = [e for e in events if e.kind == "invalid" and e.party == party]
    return calls, faults


async def test_deal_or_no_deal(gguf: Path) -> None:
    # 1 book, 2 hats, 1 ball; alice's values 4, 2, 2 and bob's 2, 3, 2 (10 points each)
    point = Datapoint("tiny/0", (1, 2, 1), (4, 2, 2), (2, 3, 2), (), Outcome("no_agreement"),
                      "tiny", (1,))
    res = await play_datapoint(point, [LLM.format(gguf=gguf), "greedy"], rounds=2, seed=0,
                               ctx={"llm": {"timeout": CALL_TIMEOUT}})
    assert res.status in ("agreement", "no_deal"), (res.status, res.reason, res.detail)
    calls, faults = calls_and_faults(res, "alice")
    assert calls, "the model was never asked"
    assert not faults, [(e.reason, e.feedback) for e in faults]
    moves = [e for e in res.trajectory if e.kind == "move" and e.party == "alice"]
    assert len(moves) == len(calls)


async def test_task_exchange(gguf: Path) -> None:
    spec = EpisodeSpec("task-exchange", str(DATA / "tiny-errands.yaml"),
                       tuple(parse_agent_list(f"{LLM.format(gguf=gguf)},utility-aware")),
                       {"strategy": "utility-aware"}, 0)
    res = await get_domain("task-exchange").run_episode(
        spec, RunContext(llm={"timeout": CALL_TIMEOUT}))
    assert res.status in ("agreement", "no_deal"), (res.status, res.reason, res.detail)
    calls, faults = calls_and_faults(res, "Alice")
    assert len(calls) >= 2  # the private plan and at least one proposal
    assert not faults, [(e.reason, e.feedback) for e in faults]
    assert all(p["valid"] for p in res.record["proposals"] if p["proposer"] == "Alice")


async def test_deliberation(gguf: Path) -> None:
    spec = EpisodeSpec("deliberation", "menu-numeric",
                       tuple(parse_agent_list(f"{LLM.format(gguf=gguf)},share")),
                       {"instance_file": str(DATA / "tiny-menu.json"), "max_rounds": 1,
                        "max_chars": 200}, 0)
    res = await get_domain("deliberation").run_episode(
        spec, RunContext(llm={"timeout": CALL_TIMEOUT}))
    assert res.status != "error", (res.status, res.reason, res.detail)
    calls, faults = calls_and_faults(res, "agent_0")
    assert [c.data["module"] for c in calls] == ["observation", "planning", "conversation"]
    assert not faults, [(e.reason, e.feedback) for e in faults]
    fallback = [e for e in res.trajectory if e.kind == "note" and e.reason == "estimate_fallback"]
    assert not fallback  # the model's own estimate was read
    first = res.record["dialog"][0]
    assert first["speaker"] == "agent_0" and first["kind"] == "offer"
