"""Repeated play (issue 29): memory carries only what a party observed, the critic's
feedback reaches the next episode, and the series metrics read trends and repetition."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.bench.series import diversity, series_metrics, slope
from accord.cli.main import app
from accord.testing.marked import Marked
from accord.testing.stub import StubServer

runner = CliRunner()
LLM = "llm:openai-api/stub/negotiator"


def _series(marked: Marked, *extra: str) -> dict[str, Any]:
    """A 3-episode series of the marked scenario (the stub LLM as buyer), as JSON."""
    res = runner.invoke(app, ["series", str(marked.path), "--agents", f"{LLM},boulware",
                              "-n", "3", "--json", *extra])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout))


def _systems(stub: StubServer) -> list[str]:
    """The system prompt of each buyer session, in order (one per episode)."""
    return [r.messages[0]["content"] for r in stub.completion_requests
            if len(r.messages) == 2]


def test_memory_carries_only_what_the_party_observed(stub_env: Any, marked: Marked) -> None:
    with StubServer() as stub:
        stub_env(stub)
        out = _series(marked)
        systems = _systems(stub)
    assert len(systems) == 3
    assert "EARLIER NEGOTIATIONS" not in systems[0]
    assert "Episode 1:" in systems[1] and "Episode 2:" not in systems[1]
    assert "Episode 1:" in systems[2] and "Episode 2:" in systems[2]
    memory = out["episodes"][2]["memory_in"]["buyer"]
    assert "your result" in memory and "your BATNA 0.132" in memory
    assert "the other side made" in memory
    for text in (*systems, *(e["memory_in"].get("buyer", "") for e in out["episodes"])):
        assert not any(x in text for x in marked.seller)
    # the seller plays a code strategy: it has a memory too (never read, harmless), and it
    # holds its own numbers only
    assert not any(x in out["episodes"][1]["memory_in"]["seller"] for x in marked.buyer)


def test_no_memory_means_the_same_first_prompt(stub_env: Any, marked: Marked) -> None:
    with StubServer() as stub:
        stub_env(stub)
        out = _series(marked, "--no-memory")
        systems = _systems(stub)
    assert len(set(systems)) == 1 and "EARLIER" not in systems[0]
    assert all(e["memory_in"] == {} for e in out["episodes"])


def test_a_code_critics_feedback_reaches_the_next_episode(stub_env: Any, tmp_path: Path,
                                                          marked: Marked) -> None:
    with StubServer() as stub:
        stub_env(stub)
        out = _series(marked, "--critic", "code", "--critic-for", "buyer",
                      "--save", str(tmp_path / "s.db"))
        systems = _systems(stub)
    fb = out["episodes"][0]["feedback"]
    assert set(fb) == {"buyer"} and "No deal was reached" in fb["buyer"]
    assert "FEEDBACK ON YOUR LATEST NEGOTIATION" in systems[1]
    assert fb["buyer"] in systems[1]
    res = runner.invoke(app, ["results", str(tmp_path / "s.db"), "--series", "--json"])
    stored = json.loads(res.stdout)["series"][0]
    assert stored["id"] == out["series"]
    assert [e["feedback"] for e in stored["episodes"]] == \
        [e["feedback"] for e in out["episodes"]]
    assert stored["metrics"] == out["metrics"]


def test_an_llm_critic_sees_the_partys_own_view(stub_env: Any, marked: Marked) -> None:
    with StubServer(policies={"coach": "echo"}) as stub:
        stub_env(stub)
        out = _series(marked, "--critic", "llm:openai-api/stub/coach", "--critic-for",
                      "buyer")
        asked = [r for r in stub.completion_requests if r.model == "coach"]
    assert len(asked) == 3
    turn = asked[0].messages[-1]["content"]
    assert "You coach buyer" in turn and "TRANSCRIPT" in turn and "BATNA 0.132" in turn
    assert not any(x in turn for x in marked.seller)
    assert out["episodes"][0]["feedback"]["buyer"]


def test_slope_and_diversity_on_known_series() -> None:
    assert slope([1, 2, 3, 4]) == pytest.approx(1.0)
    assert slope([0.5, None, 0.5]) == pytest.approx(0.0)
    assert slope([1.0]) is None
    same = [["a", "b"], ["a", "b"], ["b", "a"]]
    assert diversity(same) == 0.0  # every episode repeats the same offers
    assert diversity([["a"], ["b"], ["c"]]) == 1.0
    assert diversity([["a", "b"], ["b", "c"]]) == pytest.approx(2 / 3)
    assert diversity([["a"], []]) is None


def _episode(buyer: float, seller: float, offers: list[dict[str, Any]]) -> dict[str, Any]:
    events = [{"kind": "move", "party": p, "round": i + 1,
               "move": {"kind": "offer", "package": pkg}} for i, (p, pkg) in
              enumerate((o["party"], o["package"]) for o in offers)]
    return {"summary": {"status": "agreement", "record": {
        "utilities": {"buyer": buyer, "seller": seller},
        "batna": {"buyer": 0.2, "seller": 0.1}}}, "metrics": {}, "events": events}


def test_series_metrics_show_a_drifting_share_and_repetition() -> None:
    offer = [{"party": "buyer", "package": {"price": 10}},
             {"party": "seller", "package": {"price": 40}}]
    eps = [_episode(0.5 - 0.1 * i, 0.5 + 0.1 * i, offer) for i in range(4)]
    m = series_metrics(eps)
    assert m["agreement_rate"] == 1.0 and m["agreement_trend"] == 0.0
    assert m["share_trend_buyer"] == pytest.approx(-0.1)
    assert m["share_trend_seller"] == pytest.approx(0.1)
    assert m["surplus_trend_buyer"] == pytest.approx(-0.1)
    assert m["surplus_buyer"] == pytest.approx(0.15)
    assert m["diversity"] == 0.0 and m["diversity_buyer"] == 0.0
    varied = [_episode(0.5, 0.5, [{"party": "buyer", "package": {"price": p}}])
              for p in (10, 20, 30)]
    assert series_metrics(varied)["diversity_buyer"] == 1.0


def test_the_code_critic_reads_the_partys_own_result() -> None:
    from accord.bench.critic import CodeCritic
    from accord.domains import EpisodeSpec

    spec = EpisodeSpec("bargaining", "marked", (), {"max_rounds": 10}, 0)
    ep = _episode(0.15, 0.9, [{"party": "buyer", "package": {"price": 10}}])
    ep["summary"]["rounds"] = 9
    text = CodeCritic().advise("buyer", spec, ep["summary"], {}, ep["events"], 0)
    assert text.startswith("You agreed at 0.15, -0.05 against your BATNA.")
    assert "below your BATNA" in text and "The deal came late" in text
    assert "0.9" not in text  # the seller's result is not the buyer's business
    walked = {"status": "no_deal", "reason": "walk", "who": "buyer", "rounds": 3,
              "record": {}}
    assert "You walked away" in CodeCritic().advise("buyer", spec, walked, {}, [], 0)


def test_the_series_table_shows_the_agreement_rate_as_a_percentage() -> None:
    """It read ``agreement rate │ 1`` where every other table reads rates in %."""
    res = runner.invoke(app, ["series", "bargaining/buyer-seller", "--agents",
                              "boulware,conceder", "-n", "2"])
    assert res.exit_code == 0, res.output
    assert re.search(r"│ agreement rate\s+│ 100%\s+│", res.stdout)
    assert re.search(r"│ episodes\s+│ 2\s+│", res.stdout)
