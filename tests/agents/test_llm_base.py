"""The one LLM agent base (``accord.agents.llm_base``): the client from a spec with the
missing-SDK check (for every domain's LLM kinds), the ``llm_call`` note, error wrapping,
and the retry loop: a reply the parser cannot read gets the parser's feedback and another
attempt, until the engine's budget (``Bounds.max_retries``) is used up. Real HTTP against
the stub server throughout."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, cast

import pytest

from accord.agents.concession import HardlinerAgent
from accord.agents.llm_base import LLMAgent, llm_call_note, llm_client
from accord.agents.llm_support import runtime_for
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.core.moves import Malformed, Move, Walk
from accord.domains.bargaining import resolve_scenario
from accord.llm import GenerationConfig
from accord.protocols.alternating import AlternatingOffers
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.testing.stub import StubServer
from accord.testing.stub.policies import HttpError, ScriptedPolicy

FEEDBACK = "Answer with <WALK> and nothing else."


class Walker(LLMAgent):
    """The smallest domain on the base: a prompt, and a parser that knows one tag."""

    def system_prompt(self, obs: Observation) -> str:
        return f"You are {obs.role}. Answer <WALK>."

    def turn_prompt(self, obs: Observation) -> str:
        if obs.feedback is not None:
            return (f"Refused ({obs.feedback.reason}): {obs.feedback.feedback} "
                    f"This is attempt {obs.attempt} of {self.attempts(obs)}.")
        return f"Round {obs.round}: your move."

    def parse(self, text: str, obs: Observation) -> Move:
        if "<WALK>" in text:
            return Walk("done")
        return Malformed("no_walk_tag", FEEDBACK, raw=text)


def _walker(stub: StubServer, model: str, max_retries: int = 5) -> Walker:
    client = runtime_for({"concurrency": 2}).client(f"openai-api/stub/{model}")
    return Walker(client, GenerationConfig(), episode=None, max_retries=max_retries)


def _episode(agent: Walker, max_retries: int) -> EpisodeResult:
    protocol = AlternatingOffers(resolve_scenario("buyer-seller"))
    return asyncio.run(run_episode(protocol, {"buyer": agent, "seller": HardlinerAgent()},
                                   bounds=Bounds(max_rounds=4, max_retries=max_retries)))


def test_malformed_gets_the_parsers_feedback_and_a_retry_until_the_budget(stub_env: Any
                                                                          ) -> None:
    with StubServer(policies={"junk": ScriptedPolicy(["no idea"], cycle=True)}) as stub:
        stub_env(stub)
        res = _episode(_walker(stub, "junk"), max_retries=2)
        prompts = [r.messages[-1]["content"] for r in stub.completion_requests]
        sessions = [r.messages for r in stub.completion_requests]
    assert (res.status, res.who) == ("error", "buyer")
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == ["no_walk_tag"] * 3  # 1 + Bounds.max_retries
    assert all(e.feedback == FEEDBACK for e in invalid)
    assert "3 invalid attempts" in (res.detail or "") and FEEDBACK in (res.detail or "")
    assert len(prompts) == 3
    assert prompts[0] == "Round 1: your move."
    # a retry resends the turn's prompt with the feedback; the broken reply is not shown
    assert prompts[1] == ("Round 1: your move.\n\n"
                          f"Refused (no_walk_tag): {FEEDBACK} This is attempt 2 of 3.")
    assert prompts[2] == ("Round 1: your move.\n\n"
                          f"Refused (no_walk_tag): {FEEDBACK} This is attempt 3 of 3.")
    assert all([m["role"] for m in msgs] == ["system", "user"] for msgs in sessions)
    assert not any("no idea" in m["content"] for msgs in sessions for m in msgs)


def test_keep_failed_replies_keeps_the_old_session(stub_env: Any) -> None:
    with StubServer(policies={"junk": ScriptedPolicy(["no idea"], cycle=True)}) as stub:
        stub_env(stub)
        agent = _walker(stub, "junk")
        agent.keep_failed_replies = True
        _episode(agent, max_retries=1)
        last = stub.completion_requests[-1].messages
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user"]
    assert last[2]["content"] == "no idea"
    assert last[3]["content"].startswith("Refused (no_walk_tag)")


def test_a_cut_off_reply_is_told_so(stub_env: Any) -> None:
    from accord.agents.llm_base import CUT_OFF

    with StubServer(policies={"long": ScriptedPolicy(["word " * 400, "<WALK>"])}) as stub:
        stub_env(stub)
        client = runtime_for({"concurrency": 2}).client("openai-api/stub/long")
        agent = Walker(client, GenerationConfig(max_tokens=20), episode=None)
        res = _episode(agent, max_retries=2)
    invalid = res.trajectory.of_kind("invalid")
    assert len(invalid) == 1 and (invalid[0].feedback or "").startswith(CUT_OFF)
    assert res.reason == "walk"


def test_a_retry_that_parses_is_the_move(stub_env: Any) -> None:
    script = ScriptedPolicy(["<THINK>the secret is 42</THINK> hmm", "<WALK>"])
    with StubServer(policies={"late": script}) as stub:
        stub_env(stub)
        res = _episode(_walker(stub, "late"), max_retries=5)
        history = stub.completion_requests[-1].messages
    assert (res.status, res.reason, res.who) == ("no_deal", "walk", "buyer")
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["no_walk_tag"]
    # one session: system, then the turn's prompt with the feedback (the failed attempt
    # is taken out)
    assert [m["role"] for m in history] == ["system", "user"]
    assert history[0]["content"] == "You are buyer. Answer <WALK>."


def test_llm_call_note_shape_without_private_text(stub_env: Any) -> None:
    script = ScriptedPolicy(["<THINK>the secret is 42</THINK><WALK>"])
    with StubServer(policies={"one": script}) as stub:
        stub_env(stub)
        res = _episode(_walker(stub, "one"), max_retries=5)
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "llm_call"]
    assert len(notes) == 1 and notes[0].party == "buyer"
    data = notes[0].data
    assert list(data) == ["model", "latency", "from_cache", "prompt_tokens",
                          "completion_tokens", "reply"]
    assert data["model"].endswith("one")
    assert data["from_cache"] is False and data["prompt_tokens"] > 0
    assert "<WALK>" in data["reply"] and "secret" not in data["reply"]


def test_llm_call_note_lead_and_detail() -> None:
    from accord.llm import Completion

    done = cast(Completion, SimpleNamespace(
        model="m", latency=0.123456, from_cache=True, finish_reason="stop",
        usage=SimpleNamespace(prompt_tokens=10, completion_tokens=3, cached_tokens=8)))
    data = llm_call_note(done, "x" * 5000, lead={"call": "talk"}, detail=True)
    assert list(data) == ["call", "model", "latency", "from_cache", "finish_reason",
                          "prompt_tokens", "completion_tokens", "cached_tokens", "reply"]
    assert data["latency"] == 0.1235 and len(data["reply"]) == 2000


def test_a_provider_error_ends_the_episode_cleanly_naming_the_role(stub_env: Any) -> None:
    bad = ScriptedPolicy([HttpError(400, "model not found", error_type="invalid_request")],
                         cycle=True)
    with StubServer(policies={"gone": bad}) as stub:
        stub_env(stub)
        res = _episode(_walker(stub, "gone"), max_retries=5)
    assert (res.status, res.who) == ("error", "buyer")
    assert (res.detail or "").startswith("RuntimeError: LLM call failed for buyer:")
    assert "model not found" in (res.detail or "")


def _no_sdk(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == missing else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def _bargaining(spec: str) -> object:
    from accord.agents.llm_negotiator import _negotiator
    return _negotiator(parse_agent_spec(spec), {})


def _task_exchange(spec: str) -> object:
    from accord.domains.task_exchange.llm.agent import build_llm_agent
    return build_llm_agent(parse_agent_spec(spec), {})


def _dond(spec: str) -> object:
    from accord.domains.deal_or_no_deal.llm.agents import make_raw_llm
    return make_raw_llm(parse_agent_spec(spec), cast(Any, None), "YOU", {})


def _games(spec: str) -> object:
    from accord.domains.games.llm.agents import make_llm_agent
    return make_llm_agent(parse_agent_spec(spec), cast(Any, None), 0, {})


def _deliberation(spec: str) -> object:
    from accord.domains.deliberation.llm import build_agent
    ctx = SimpleNamespace(run=SimpleNamespace(llm=None, episode_id=None))
    return build_agent(parse_agent_spec(spec), cast(Any, ctx))


BUILDERS: dict[str, Callable[[str], object]] = {
    "bargaining": _bargaining, "task-exchange": _task_exchange, "deal-or-no-deal": _dond,
    "games": _games, "deliberation": _deliberation}


@pytest.mark.parametrize("domain", sorted(BUILDERS))
@pytest.mark.parametrize(("sdk", "model", "key"), [
    ("openai", "openai/gpt-4.1-mini", "OPENAI_API_KEY"),
    ("anthropic", "anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
])
def test_a_missing_sdk_is_a_clear_error_in_every_domain(
        monkeypatch: pytest.MonkeyPatch, domain: str, sdk: str, model: str, key: str) -> None:
    monkeypatch.setenv(key, "sk-test-not-used")
    _no_sdk(monkeypatch, sdk)
    with pytest.raises(AgentSpecError) as err:
        BUILDERS[domain](f"llm:{model}")
    text = str(err.value)
    assert f"the {sdk!r} package is not installed" in text
    assert "pip install 'accord[llm]'" in text and model in text
    assert "sk-test" not in text


def test_with_the_sdk_installed_the_client_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    client, config = llm_client(parse_agent_spec("llm:openai/gpt-4.1-mini?temperature=0.2"),
                                None)
    assert client.model.endswith("gpt-4.1-mini") and config.temperature == 0.2


@pytest.mark.parametrize(("spec", "match"), [
    ("llm", "llm needs a model: e.g. llm:openai/gpt-4.1-mini"),
    ("llm:openai/gpt-4.1-mini?colour=red",
     r"unknown LLM option.*agent options: \['guard', 'history', 'retry', 'timeout'\]"),
    ("llm:nosuchprovider/x", "agent llm:nosuchprovider/x: "),
])
def test_usage_errors_name_the_problem(spec: str, match: str) -> None:
    with pytest.raises(AgentSpecError, match=match):
        llm_client(parse_agent_spec(spec), None, ("guard",))
