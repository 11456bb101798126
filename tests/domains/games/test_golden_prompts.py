"""Golden files pin the exact prompt text of the games LLM agents per prompt variant (issue 14).

The prompts are captured where a real endpoint receives them: at the stub HTTP server. Each
file holds Alice's whole session as sent in her last request (system prompt and every user
message; her own replies left out). Regenerate after a deliberate prompt change with
``ACCORD_UPDATE_GOLDEN=1`` and review the diff (CONTRIBUTING.md).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.games import GamesDomain
from accord.testing.golden import check_golden
from accord.testing.stub import StubServer

GOLDEN = Path(__file__).parent / "golden"
STUB_ONLY = ("<DOND>", "<GAME>", "<GAME_STATE>")
A = "openai-api/stub/games"
#: variant -> (game, Alice's spec, negotiation rounds)
VARIANTS: dict[str, tuple[str, str, int]] = {
    "cot-no-talk": ("prisoners-dilemma", f"llm:{A}", 0),
    "cot-talk": ("prisoners-dilemma", f"llm:{A}", 1),
    **{f"prompt-{n}": ("prisoners-dilemma", f"llm:{A}?prompt={n}", 1) for n in range(1, 7)},
    "personality-witty": ("golden-balls", f"llm:{A}?personality=witty", 1),
    "cheap-talk-option": ("prisoners-dilemma", f"llm:{A}?cheap_talk=true", 1),
    "workflow-simultaneous": ("stag-hunt", f"llm-workflow:{A}", 1),
    "workflow-sequential": ("escalation", f"llm-workflow:{A}", 1),
    "cot-sequential": ("trigame", f"llm:{A}", 1),
}


def transcript(variant: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """Alice's session text and every request body the endpoint received."""
    game, alice, k = VARIANTS[variant]
    params: dict[str, Any] = {"negotiation_rounds": k}
    if game == "golden-balls":
        params["jackpot"] = 100
    with StubServer("games") as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-golden")
        spec = EpisodeSpec("games", game, (parse_agent_spec(alice), parse_agent_spec(f"llm:{A}")),
                           params, 0)
        res = asyncio.run(GamesDomain().run_episode(spec, RunContext()))
        reqs = stub.completion_requests
    assert res.status != "error", res.detail
    mine = [r for r in reqs if r.messages[0]["content"].count("You are Alice, a player") == 1]
    parts = [f"=== {m['role']} ===\n{m['content']}" for m in mine[-1].messages
             if m["role"] != "assistant"]
    return "\n\n".join(parts) + "\n", [json.dumps(r.messages) for r in reqs]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prompt_text_is_pinned(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text, _ = transcript(variant, monkeypatch)
    check_golden(GOLDEN / f"{variant}.txt", text)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_stub_only_block_reaches_the_endpoint(variant: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _, bodies = transcript(variant, monkeypatch)
    assert bodies
    for body in bodies:
        for tag in STUB_ONLY:
            assert tag not in body
        if "cheap_talk" not in VARIANTS[variant][1]:
            assert "binds anybody" not in body and "binds nobody" not in body
