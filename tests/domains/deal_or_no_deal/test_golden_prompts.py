"""Golden files pin the exact prompt text each Deal-or-No-Deal LLM variant sends (issue 14).

The prompts are captured where a real endpoint would receive them: at the stub HTTP server.
Regenerate after a deliberate prompt change with ``ACCORD_UPDATE_GOLDEN=1`` and review the
diff (CONTRIBUTING.md).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.testing.golden import check_golden
from accord.testing.stub import FaultyPolicy, StubServer

GOLDEN = Path(__file__).parent / "golden"
STUB_ONLY = ("<DOND>", "<GAME>", "<GAME_STATE>")
POINT = Datapoint("hand/1", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                  "hand", (1,))
VARIANTS = {"raw": "llm", "assisted": "llm-workflow?mode=assisted",
            "seed": "llm-workflow?mode=seed", "seed-lam-half": "llm-workflow?lam=0.5&gamma=0.5"}


def _spec(kind: str, model: str) -> str:
    name, _, options = kind.partition("?")
    return f"{name}:openai-api/stub/{model}" + (f"?{options}" if options else "")


def transcript(kind: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """Alice's system prompt and user messages (one retry included), and every request body."""
    alice = FaultyPolicy("malformed", times=1, inner="dond")
    with StubServer(policies={"a": alice, "b": "dond"}) as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-golden")
        asyncio.run(play_datapoint(POINT, [_spec(kind, "a"), "llm:openai-api/stub/b"],
                                   rounds=4, seed=1))
        reqs = stub.completion_requests
    mine = [r for r in reqs if r.model == "a"]
    last = mine[-1].messages
    parts = [f"=== {m['role']} ===\n{m['content']}" for m in last if m["role"] != "assistant"]
    return "\n\n".join(parts) + "\n", [json.dumps(r.messages) for r in reqs]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prompt_text_is_pinned(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text, _ = transcript(VARIANTS[variant], monkeypatch)
    check_golden(GOLDEN / f"{variant}.txt", text)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_stub_only_block_reaches_the_endpoint(variant: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _, bodies = transcript(VARIANTS[variant], monkeypatch)
    assert bodies
    for body in bodies:
        for tag in STUB_ONLY:
            assert tag not in body
