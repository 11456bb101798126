"""The deliberation system prompt's ``<TASK_DATA>`` holds only data; the rule-based stub
reads everything else (role, team, leader, setting, mode, merged, message limit, step,
tools) from the prompt's sentences, as a model would, and still plays every setting and
mode to the outcomes it reached when those facts were also in the block."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import DOMAIN, shipped_instance
from accord.domains.deliberation import stub as stub_policy
from accord.domains.deliberation.domain import build_protocol
from accord.domains.deliberation.llm import MODULES, system_prompt
from accord.domains.deliberation.llm.prompts import IN_WORDS, TASK_DATA_KEYS
from accord.llm.policy import PolicyError, PolicyRequest

SIZES = {"menu-numeric": 2, "menu-semantic": 2, "task-allocation": 3}
KIND = {"deliberation": "llm", "oracle": "llm-oracle", "centralized": "llm-centralized"}


def _task_data(text: str) -> dict[str, Any]:
    found = re.findall(r"<TASK_DATA>(.*?)</TASK_DATA>", text, re.S)
    assert len(found) == 1
    data = json.loads(found[0])
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("setting", list(SIZES))
@pytest.mark.parametrize("mode", ["deliberation", "oracle", "centralized"])
@pytest.mark.parametrize("tools, tool_use", [(False, "call"), (True, "call"), (True, "auto")])
def test_task_data_holds_only_data_and_the_words_say_the_rest(
        setting: str, mode: str, tools: bool, tool_use: str) -> None:
    inst = shipped_instance(setting, 1)
    proto = build_protocol(inst, mode, {"tools": tools, "max_chars": 420, "max_rounds": 4})
    for role in proto.parties:
        obs = proto.observe(proto.initial_state(), role)
        for module in MODULES:
            text = system_prompt(module, obs, tool_use, 2)
            data = _task_data(text)
            assert set(data) <= set(TASK_DATA_KEYS), sorted(set(data) - set(TASK_DATA_KEYS))
            assert not set(data["shared"]) & set(IN_WORDS)
            assert data["observation"] == json.loads(json.dumps(obs.private))
            # what the block no longer holds, the prompt says in words
            got = stub_policy.read_setup(text)
            assert (got.module, got.role, got.setting, got.mode) == (
                module, role, setting, obs.mode)
            assert got.leader == (obs.leader if obs.mode == "leader" else None)
            assert got.merged == obs.merged
            if obs.mode != "single":
                assert sorted(got.partners) == sorted(p for p in obs.parties if p != role)
                assert got.max_chars == 420
            wants_tools = tool_use if tools and module in ("planning", "decision") else None
            assert got.tools == wants_tools


#: (setting, mode, tool_use) -> (reward, rounds used, decided by, calls), instance 1,
#: seed 0, max_rounds 4: what the stub reached while TASK_DATA still carried
#: module/role/setting/mode/leader/parties/merged/max_rounds/max_chars/tools (recorded on
#: the commit before; instances 3 and 5 and mixed line-ups with code agents matched too)
BEFORE: dict[tuple[str, str, str | None], tuple[float, int, str, int]] = {
    ("menu-numeric", "deliberation", None): (197.57, 2, "agent_0", 10),
    ("menu-numeric", "deliberation", "call"): (224.32, 2, "agent_0", 15),
    ("menu-numeric", "deliberation", "auto"): (224.32, 2, "agent_0", 10),
    ("menu-numeric", "oracle", None): (197.57, 1, "agent_1", 6),
    ("menu-numeric", "oracle", "call"): (224.32, 1, "agent_1", 9),
    ("menu-numeric", "oracle", "auto"): (224.32, 1, "agent_1", 6),
    ("menu-numeric", "centralized", None): (197.57, 1, "central", 2),
    ("menu-numeric", "centralized", "call"): (224.32, 1, "central", 3),
    ("menu-numeric", "centralized", "auto"): (224.32, 1, "central", 2),
    ("menu-semantic", "deliberation", None): (159.7, 2, "agent_1", 14),
    ("menu-semantic", "deliberation", "call"): (159.7, 2, "agent_1", 21),
    ("menu-semantic", "deliberation", "auto"): (159.7, 2, "agent_1", 14),
    ("menu-semantic", "oracle", None): (159.7, 1, "agent_1", 6),
    ("menu-semantic", "oracle", "call"): (159.7, 1, "agent_1", 9),
    ("menu-semantic", "oracle", "auto"): (159.7, 1, "agent_1", 6),
    ("menu-semantic", "centralized", None): (159.7, 1, "central", 2),
    ("menu-semantic", "centralized", "call"): (159.7, 1, "central", 3),
    ("menu-semantic", "centralized", "auto"): (159.7, 1, "central", 2),
    ("task-allocation", "deliberation", None): (5.13, 1, "agent_2", 10),
    ("task-allocation", "deliberation", "call"): (5.65, 1, "agent_2", 15),
    ("task-allocation", "deliberation", "auto"): (5.65, 1, "agent_2", 10),
    ("task-allocation", "oracle", None): (5.13, 1, "agent_2", 9),
    ("task-allocation", "oracle", "call"): (5.65, 1, "agent_2", 14),
    ("task-allocation", "oracle", "auto"): (5.65, 1, "agent_2", 9),
    ("task-allocation", "centralized", None): (5.13, 1, "central", 2),
    ("task-allocation", "centralized", "call"): (5.65, 1, "central", 3),
    ("task-allocation", "centralized", "auto"): (5.65, 1, "central", 2),
}


@pytest.mark.parametrize("setting, mode, tool_use", list(BEFORE))
def test_stub_plays_every_setting_and_mode_as_before(setting: str, mode: str,
                                                     tool_use: str | None) -> None:
    agent = f"{KIND[mode]}:mock/deliberation" + (f"?tool_use={tool_use}" if tool_use else "")
    team = [agent] * (1 if mode == "centralized" else SIZES[setting])
    params: dict[str, Any] = {"instance": 1, "tools": tool_use is not None, "max_rounds": 4}
    if mode != "deliberation":
        params["mode"] = mode
    spec = EpisodeSpec("deliberation", setting, tuple(parse_agent_list(",".join(team))),
                       params, 0)
    res = asyncio.run(DOMAIN.run_episode(spec, RunContext(llm={})))
    out = DOMAIN.summary(spec, res)
    assert res.status == "agreement" and out["valid"] is True, res.detail
    reward, rounds, decider, calls = BEFORE[(setting, mode, tool_use)]
    assert out["reward"] == pytest.approx(reward)
    assert res.record["rounds_used"] == rounds and res.record["decided_by"] == decider
    assert sum(u["calls"] for u in res.usage.values()) == calls


def _request(system: str, user: str = "Now is round 1 of the total 3 rounds.\n"
             "Here is your current estimation: {}\nYour latest proposal is: []\n"
             "There is no proposal from another agent on the table.") -> PolicyRequest:
    return PolicyRequest(({"role": "system", "content": system},
                          {"role": "user", "content": user}), "x")


@pytest.mark.parametrize("sentence, error", [
    ("YOUR STEP: CONVERSATION.", "YOUR STEP"),
    ("You are an AI agent named agent_0.", "You are an AI agent named"),
    ("- The preferences, at this stage, are numerical scores", "sentence naming the task"),
    ("The deliberation ends as soon as an agent accepts", "The deliberation ends"),
    ("The user asked you and agent_1 to design", "no partners named"),
    ("can say up to 420 characters", "can say up to C characters"),
])
def test_stub_names_the_sentence_it_misses(sentence: str, error: str) -> None:
    proto = build_protocol(shipped_instance("menu-numeric", 1), "deliberation",
                           {"max_chars": 420})
    system = system_prompt("conversation", proto.observe(proto.initial_state(), "agent_0"),
                           "call", 2)
    policy = stub_policy.DeliberationPolicy()
    assert policy.respond(_request(system))  # the whole prompt plays
    assert sentence in system
    broken = system.replace(sentence, "(sentence left out)")
    with pytest.raises(PolicyError, match=re.escape(error)):
        policy.respond(_request(broken))
