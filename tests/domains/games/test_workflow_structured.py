"""Structured output for the games' ``llm-workflow`` steps over real HTTP (the stub
server): each step's schema derived from the game, the JSON reply read by the step's own
parser, a bad step reply sent back with feedback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from accord.agents.spec import parse_agent_spec
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer

LLM = "llm-workflow:openai-api/stub/x?structured={}"


async def run(stub_env: Callable[..., None], mode: str, replies: list[Any],
              game: str = "prisoners-dilemma", rounds: int = 1
              ) -> tuple[EpisodeResult, list[Any]]:
    texts = [r if isinstance(r, str) else json.dumps(r) for r in replies]
    with StubServer(ScriptedPolicy(texts)) as stub:
        stub_env(stub)
        spec = EpisodeSpec("games", game, (parse_agent_spec(LLM.format(mode)),
                                           parse_agent_spec("rational")),
                           {"negotiation_rounds": rounds}, 0)
        res = await get_domain("games").run_episode(spec, RunContext())
    return res, stub.completion_requests


def responses(field: str, answer: str) -> dict[str, Any]:
    return {a: {field: answer, "my_payoff": 1} for a in ("cooperate", "defect")}


async def test_simultaneous_steps_send_their_schemas(stub_env: Callable[..., None]) -> None:
    replies = [responses("response", "defect"), responses("best_response", "defect"),
               {"nash": {"Alice": "defect", "Bob": "defect"}, "strategy": "Defect."},
               {"message": "I will defect."}, {"action": "defect"}]
    res, reqs = await run(stub_env, "json_schema", replies)
    schemas = [r.params["response_format"]["json_schema"]["schema"] for r in reqs]
    row = schemas[0]["properties"]["cooperate"]["properties"]
    assert row == {"response": {"enum": ["cooperate", "defect"]},
                   "my_payoff": {"type": "number"}}
    assert "best_response" in schemas[1]["properties"]["defect"]["properties"]
    nash = schemas[2]["properties"]["nash"]["anyOf"]
    assert nash[1] == {"enum": ["none"]}
    assert nash[0]["properties"]["Alice"] == {"enum": ["cooperate", "defect"]}
    assert res.status == "completed", (res.status, res.detail)
    steps = [e.data for e in res.trajectory if e.kind == "note" and e.reason == "workflow"]
    assert steps and steps[0]["nash"] == {"Alice": "defect", "Bob": "defect"}
    assert steps[0]["text"] == "Defect."


async def test_a_bad_step_reply_is_asked_again(stub_env: Callable[..., None]) -> None:
    replies = ['{"cooperate": ', responses("response", "defect"),
               responses("best_response", "defect"), {"nash": "none", "strategy": "Mixed."},
               {"message": "Hello."}, {"action": "cooperate"}]
    res, reqs = await run(stub_env, "grammar", replies)
    assert all("grammar" in r.params for r in reqs)
    assert "not valid JSON" in reqs[1].messages[-1]["content"]
    notes = [e.data for e in res.trajectory if e.kind == "note" and e.reason == "workflow_step"]
    assert notes[0]["error"] == "invalid_json"
    done = [e.data for e in res.trajectory if e.kind == "note" and e.reason == "workflow"]
    assert done[0]["nash"] is None
    assert res.status == "completed"


def test_backward_induction_levels() -> None:
    from accord.agents.structured import to_gbnf
    from accord.domains.games.llm import workflow_structured as wst

    schema = wst.level({"root": ["left", "right"]}, 2)
    value = schema["properties"]["root"]["properties"]["value"]
    assert (value["minItems"], value["maxItems"]) == (2, 2)
    assert '("," ws root-0-1-i){1,1}' in to_gbnf(schema)
    assert wst.plan_tags({"plan": {"root": "left"}, "strategy": "Go left."}) == \
        '<PLAN>{"root": "left"}</PLAN><STRATEGY>Go left.</STRATEGY>'
