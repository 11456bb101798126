"""Replies that copy the prompt are not moves: echoed instruction lines are data, template
placeholders are malformed (issue 25's findings against a real model)."""

from __future__ import annotations

from collections.abc import Callable

from accord.agents import echo
from accord.core.moves import Malformed
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.stub import ScriptedPolicy, StubServer

ECHO = "Your move: OFFER a full package (<PROPOSAL>{...}</PROPOSAL>), or <WALK/>."


def test_instruction_lines_are_found_and_dropped() -> None:
    prompt = f"Round 1 of 6.\n{ECHO}\n<PROPOSAL>{{\"price\": 800}}</PROPOSAL>"
    lines = echo.instruction_lines([prompt])
    assert lines == {ECHO}  # an example package alone is not an instruction
    example = "<ACCEPT> I agree with this allocation. </ACCEPT>"  # seed 000's reply format
    assert echo.instruction_lines([f"Response format:\n{example}"]) == set()
    reply, dropped = echo.unecho(f"I think about it.\n  {ECHO}  \n<ACCEPT/>", lines)
    assert dropped == 1 and "<WALK/>" not in reply and "<ACCEPT/>" in reply
    assert echo.unecho("<WALK/>", lines) == ("<WALK/>", 0)


def test_placeholders_are_malformed() -> None:
    for text in ["<MESSAGE>...</MESSAGE>", "<PROPOSAL> {...} </PROPOSAL>", "<DEAL>…</DEAL>"]:
        found = echo.placeholder(text)
        assert isinstance(found, Malformed) and found.reason == "placeholder", text
    assert echo.placeholder("<MESSAGE>Fine, 900 it is...</MESSAGE>") is None
    assert echo.placeholder("<MESSAGE>" + "." * 10_000) is None


async def test_an_echoed_walk_line_is_not_a_walk(stub_env: Callable[..., None]) -> None:
    # the reply that ended an episode against a real model: rambling, then the prompt's line
    rambling = ("I would like to buy the laptop at a good price and I think we can agree. "
                f"I will consider the offer carefully.\n{ECHO}")
    offer = '<PROPOSAL>{"price": 900, "delivery_days": 5, "warranty_years": 1}</PROPOSAL>'
    with StubServer(ScriptedPolicy([rambling, offer, "<ACCEPT/>"])) as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/x", "conceder"],
                                    params={"max_rounds": 4}, seed=0)
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "buyer"]
    assert len(invalid) == 1 and invalid[0].reason != "walk"
    assert "repeated 1 line(s) of the instructions" in (invalid[0].feedback or "")
    assert res.reason != "walk" or res.who != "buyer"
    moves = [e for e in res.trajectory if e.kind == "move" and e.party == "buyer"]
    assert moves and moves[0].move is not None and moves[0].move["kind"] == "offer"


async def test_a_copied_template_message_is_not_a_move(stub_env: Callable[..., None]) -> None:
    offer = '<PROPOSAL>{"price": 900, "delivery_days": 5, "warranty_years": 1}</PROPOSAL>'
    with StubServer(ScriptedPolicy(["<MESSAGE>...</MESSAGE>", offer, "<ACCEPT/>"])) as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/x", "conceder"],
                                    params={"max_rounds": 4}, seed=0)
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "buyer"]
    assert [e.reason for e in invalid] == ["placeholder"]
