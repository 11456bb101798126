"""Generation settings: from agent specs, bench configs and the CLI into the request body,
per provider, over real HTTP to the stub server; the episode seed in the sampling seed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from accord.agents.llm_support import call_seed, seed_base
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.llm import GenerationConfig, LLMRuntime
from accord.llm.cache import cache_key
from accord.llm.generation import generation_config
from accord.llm.providers import resolve_model
from accord.testing.stub import ScriptedPolicy, StubServer

SPEC = ("llm:openai-api/stub/negotiator?reasoning_effort=low&thinking=off&stop=END"
        "&max_completion_tokens=300&extra_body.top_k=20"
        "&extra_body.chat_template_kwargs.add_generation_prompt=true")


def _bodies(stub: StubServer) -> list[dict[str, Any]]:
    return [r.params for r in stub.completion_requests]


def test_options_parse_into_the_config() -> None:
    cfg = generation_config({"thinking": False, "reasoning_effort": "high", "stop": "X",
                             "extra_body.a.b": 1, "extra_body": {"a": {"c": 2}},
                             "max_completion_tokens": 10})
    assert cfg.thinking is False and cfg.reasoning_effort == "high"
    assert cfg.stop == ("X",) and cfg.max_completion_tokens == 10
    assert cfg.extra == {"a": {"b": 1, "c": 2}}
    assert generation_config({"thinking": "on"}).thinking is True
    assert generation_config({"thinking": 2048}).thinking == 2048
    for bad, match in [({"reasoning": "low"}, "unknown LLM option"),
                       ({"thinking": "maybe"}, "thinking must be"),
                       ({"thinking": -5}, "thinking must be"),
                       ({"reasoning_effort": "x y"}, "reasoning_effort"),
                       ({"stop": [1]}, "stop must be"),
                       ({"extra_body.": 1}, "unknown LLM option"),
                       ({"extra_body.a..b": 1}, "empty part")]:
        with pytest.raises(ValueError, match=match):
            generation_config(bad)


def test_every_setting_is_part_of_the_cache_key() -> None:
    ep = resolve_model("mock/echo", {})
    msgs = [{"role": "user", "content": "hi"}]
    keys = {cache_key(ep, msgs, GenerationConfig(**kw), None)  # type: ignore[arg-type]
            for kw in [{}, {"reasoning_effort": "low"}, {"reasoning_effort": "high"},
                       {"thinking": False}, {"thinking": True}, {"thinking": 2048},
                       {"max_completion_tokens": 9}, {"extra": {"top_k": 2}}, {"seed": 1}]}
    assert len(keys) == 9
    # a config without the new settings keeps the key it had (recorded caches still hit)
    assert cache_key(ep, msgs, GenerationConfig(), None) == cache_key(  # type: ignore[arg-type]
        ep, msgs, GenerationConfig(thinking=None, reasoning_effort=None), None)


async def test_settings_reach_the_openai_compatible_body(
        stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"), [SPEC, "boulware"],
                                    params={"max_rounds": 2}, seed=0)
    assert res.status != "error", res.reason
    bodies = _bodies(stub)
    assert bodies
    for body in bodies:
        assert body["reasoning_effort"] == "low"
        assert body["stop"] == ["END"]
        assert body["max_completion_tokens"] == 300
        assert body["top_k"] == 20
        # thinking off is chat_template_kwargs.enable_thinking, merged with the user's own
        assert body["chat_template_kwargs"] == {"enable_thinking": False,
                                                "add_generation_prompt": True}
        assert isinstance(body["seed"], int)


async def _seeds(stub: StubServer, seed: int) -> list[int]:
    before = len(stub.completion_requests)
    await run_negotiation(resolve_scenario("buyer-seller"),
                          ["llm:openai-api/stub/negotiator?temperature=0.7", "boulware"],
                          params={"max_rounds": 3}, seed=seed)
    return [r.params["seed"] for r in stub.completion_requests[before:]]


async def test_the_episode_seed_is_the_sampling_seed(stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub_env(stub)
        a, again, other = await _seeds(stub, 0), await _seeds(stub, 0), await _seeds(stub, 7)
    assert len(a) >= 2
    assert a == again  # the same episode seed gives the same requests
    assert a != other and not set(a) & set(other)  # another seed, other samples
    assert len(set(a)) == len(a)  # each call of the episode its own seed
    assert all(0 <= s < 2**31 for s in a)


async def test_an_explicit_seed_wins_and_is_recorded(stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/negotiator?seed=42", "boulware"],
                                    params={"max_rounds": 2}, seed=3)
    assert {b["seed"] for b in _bodies(stub)} == {42}
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "llm_call"]
    assert notes and all(n.data["seed"] == 42 for n in notes)


def test_seed_derivation_keeps_parties_sessions_and_calls_apart() -> None:
    import numpy as np

    base = seed_base(np.random.default_rng([5, 0]))
    other_party = seed_base(np.random.default_rng([5, 1]))
    assert base is not None and other_party is not None
    seeds = {call_seed(base, 1), call_seed(base, 2), call_seed(other_party, 1),
             call_seed(base, 1, "alice/planning"), call_seed(base, 1, "alice/talk")}
    assert len(seeds) == 5
    assert call_seed(base, 1) == call_seed(seed_base(np.random.default_rng([5, 0])), 1)
    # reading the base draws nothing from the agent's generator
    rng = np.random.default_rng([5, 0])
    seed_base(rng)
    assert rng.random() == np.random.default_rng([5, 0]).random()


async def test_anthropic_takes_thinking_and_refuses_what_it_cannot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from accord.agents.llm_base import llm_client

    with StubServer(ScriptedPolicy(["<ACCEPT/>"])) as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
        async with LLMRuntime() as rt:
            client, config = llm_client(
                parse_agent_spec("llm:anthropic/claude-test?thinking=2048"), {"runtime": rt})
            await client.complete([{"role": "user", "content": "hi"}], config)
        for spec, match in [("llm:anthropic/claude-test?reasoning_effort=low",
                             "'anthropic'.*no reasoning_effort"),
                            ("llm:anthropic/claude-test?seed=1", "'anthropic'.*no sampling seed"),
                            ("llm:anthropic/claude-test?thinking=100", "at least 1024")]:
            with pytest.raises(AgentSpecError, match=match):
                llm_client(parse_agent_spec(spec), None)
    sent = stub.completion_requests[-1].params
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["max_tokens"] > 2048  # the budget counts against max_tokens
    assert "seed" not in sent


def test_openai_refuses_thinking_and_budgets_are_anthropic_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from accord.agents.llm_base import llm_client

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(AgentSpecError, match=r"provider 'openai'.*reasoning_effort"):
        llm_client(parse_agent_spec("llm:openai/o4-mini?thinking=off"), None)
    with pytest.raises(AgentSpecError, match=r"'vllm'.*no token budget"):
        llm_client(parse_agent_spec("llm:vllm/Qwen/Qwen3-8B?thinking=4096"), None)
    _, config = llm_client(parse_agent_spec("llm:openai/o4-mini?reasoning_effort=low"),
                                None)
    assert config.reasoning_effort == "low"


def test_run_and_bench_options_reach_every_llm_agent(tmp_path: Path,
                                                      stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub_env(stub)
        out = CliRunner().invoke(app, [
            "run", "bargaining/buyer-seller", "--agents",
            "llm:openai-api/stub/negotiator?temperature=0.1,boulware", "--max-rounds", "2",
            "--llm-option", "reasoning_effort=medium", "--llm-option", "temperature=0.9",
            "--llm-option", "extra_body.top_k=5", "--llm-timeout", "30", "--json"])
        assert out.exit_code in (0, 1), out.output
        json.loads(out.stdout)
        bodies = _bodies(stub)
        assert bodies and all(b["reasoning_effort"] == "medium" and b["top_k"] == 5
                              for b in bodies)
        assert all(b["temperature"] == 0.1 for b in bodies)  # the spec's own option wins
        bad = CliRunner().invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                                       "boulware,boulware", "--llm-option", "reasoning=low"])
        assert bad.exit_code == 2 and "unknown LLM option" in bad.output
        config = tmp_path / "spec.yaml"
        config.write_text(
            "name: gen\nllm: {options: {thinking: off, reasoning_effort: low}}\n"
            "sweeps:\n  - domain: bargaining\n    scenarios: [buyer-seller]\n"
            "    agents: [[llm:openai-api/stub/negotiator, boulware]]\n"
            "    params: {max_rounds: 2}\n    seeds: 1\n")
        before = len(stub.completion_requests)
        done = CliRunner().invoke(app, ["bench", str(config), "--out", str(tmp_path / "s.db"),
                                        "--quiet"])
        assert done.exit_code == 0, done.output
        sent = [r.params for r in stub.completion_requests[before:]]
        assert sent and all(b["chat_template_kwargs"] == {"enable_thinking": False}
                            and b["reasoning_effort"] == "low" for b in sent)
        config.write_text(config.read_text().replace("reasoning_effort: low",
                                                     "reasoning: low"))
        refused = CliRunner().invoke(app, ["bench", str(config), "--out",
                                           str(tmp_path / "t.db")])
        assert refused.exit_code == 2 and "llm.options" in refused.output


def test_timeout_from_the_environment_and_refused_values(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from accord.cli import common as c

    monkeypatch.setenv(c.TIMEOUT_ENV, "900")
    assert c.llm_settings(None, None)["timeout"] == 900.0
    assert c.llm_settings(None, None, timeout=5.0)["timeout"] == 5.0
    monkeypatch.setenv(c.TIMEOUT_ENV, "soon")
    with pytest.raises(typer.Exit) as info:
        c.llm_settings(None, None)
    assert info.value.exit_code == 2
    assert "ACCORD_LLM_TIMEOUT='soon' is not a number" in capsys.readouterr().err
    with pytest.raises(AgentSpecError, match="timeout must be"):
        from accord.agents.llm_base import llm_client

        llm_client(parse_agent_spec("llm:mock/echo?timeout=-1"), None)


async def test_log_prompts_records_each_calls_messages(stub_env: Callable[..., None],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_API_KEY", "sk-stub-secret-0123456789abcdef")
    with StubServer(api_key="sk-stub-secret-0123456789abcdef") as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/negotiator", "boulware"],
                                    params={"max_rounds": 3}, seed=0,
                                    ctx={"llm": {"log_prompts": True}})
        sent = [r.messages for r in stub.completion_requests]
    notes = [e.data for e in res.trajectory.of_kind("note") if e.reason == "llm_call"]
    assert len(notes) == len(sent) >= 2
    # the first call logs the system prompt and the turn; later ones what they added
    assert [m["role"] for m in notes[0]["prompt"]] == ["system", "user"]
    rebuilt: list[dict[str, str]] = []
    for note, messages in zip(notes, sent, strict=True):
        if rebuilt:
            rebuilt.append({"role": "assistant", "content": "?"})
        rebuilt += note["prompt"]
        assert [m["content"] for m in rebuilt if m["role"] != "assistant"] == [
            m["content"] for m in messages if m["role"] != "assistant"]
    off = await run_negotiation(resolve_scenario("buyer-seller"),
                                ["llm:mock/negotiator", "boulware"], params={"max_rounds": 2})
    assert all("prompt" not in e.data for e in off.trajectory.of_kind("note"))
