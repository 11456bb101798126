"""One round numbering everywhere: the transcript numbers an offer by the round it stands
in, as the protocol's offer records do (the record's ``round``, the play view's offer
table, built from the same records)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from accord.bench.store import Store
from accord.serve.transcript import counter_rounds, package_text, transcript


def _offer_lines(lines: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    return [(ln["round"], ln["party"], ln["detail"]) for ln in lines
            if ln["action"] in ("offer", "counter-offer")]


class _Recorder:
    """An agent that remembers the offer records its observations showed (what a person's
    seat shows as its table of offers) and otherwise is the agent it wraps."""

    def __init__(self, inner: Any, seen: list[Any]) -> None:
        self.inner = inner
        self.seen = seen

    async def act(self, obs: Any) -> Any:
        self.seen[:] = list(getattr(obs, "history", ()) or ())
        return await self.inner.act(obs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_offers_carry_the_round_the_protocol_gives_them() -> None:
    from accord.domains.bargaining.catalog import resolve_scenario
    from accord.domains.bargaining.runner import build_agents
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
    from accord.protocols.engine import run_episode

    sc = resolve_scenario("buyer-seller")
    seen: list[Any] = []
    agents = {k: _Recorder(a, seen) for k, a in
              build_agents(sc, ["boulware", "conceder"], 0).items()}
    res = asyncio.run(run_episode(AlternatingOffers(sc, AlternatingConfig()), agents))
    events = [e.to_dict() for e in res.trajectory.events]
    lines = transcript(json.loads(json.dumps(events)))["lines"]
    # every offer the last observation showed, with its round, is a transcript line with
    # that round (the last offer, accepted at once, is not in any observation before it)
    table = [(r.round, r.party, package_text(dict(r.package))) for r in seen]
    assert len(table) > 5 and _offer_lines(lines)[:len(table)] == table
    assert res.status == "agreement"
    last = _offer_lines(lines)[-1]
    assert last[0] == res.record["round"] and last[1] == res.record["proposer"]
    accept = [ln for ln in lines if ln["action"] == "accept"]
    assert accept and accept[0]["round"] == res.record["round"]


def test_stored_episodes_agree_with_their_record(gated_store: Path) -> None:
    st = Store.open_readonly(gated_store)
    try:
        rows = st.episodes("gated")
        for row in rows:
            rec = row.summary["record"]
            events = [json.loads(x) for x in st.trajectory(row.run, row.id).splitlines()]
            offers = _offer_lines(transcript(events)["lines"])
            # the agreed offer stands in the record's round, by the record's proposer
            assert offers[-1] == (rec["round"], rec["proposer"],
                                  package_text(rec["agreement"])), row.id
            # two parties: one offer on the table per round, rounds 1, 2, 3, ...
            assert [o[0] for o in offers] == list(range(1, len(offers) + 1)), row.id
    finally:
        st.conn.close()


def _move(rnd: int, party: str, kind: str, counter: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    move: dict[str, Any] = {"kind": kind}
    if kind == "offer":
        move["package"] = {"x": rnd}
    if counter is not None:
        move["counter"] = {"kind": "offer", "package": counter}
    return {"round": rnd, "party": party, "kind": "move", "move": move}


def test_three_parties_a_counter_waits_for_its_makers_turn() -> None:
    # round 1: a offers, b and c counter; round 2 is b's (its counter stands, a and c
    # answer; c counters again, replacing its first); round 3 is c's
    events = [_move(1, "a", "offer"), _move(1, "b", "reject", {"x": 10}),
              _move(1, "c", "reject", {"x": 11}), _move(2, "a", "reject"),
              _move(2, "c", "reject", {"x": 12}), _move(3, "a", "accept"),
              _move(3, "b", "accept")]
    assert counter_rounds(events) == {1: 2, 2: None, 4: 3}
    lines = transcript(events)["lines"]
    # in round order: a counter-offer is shown when its round opens
    assert [(ln["round"], ln["party"], ln["action"]) for ln in lines] == [
        (1, "a", "offer"), (1, "b", "reject"), (1, "c", "reject"),
        (1, "c", "counter-offer (never on the table)"), (2, "b", "counter-offer"),
        (2, "a", "reject"), (2, "c", "reject"), (3, "c", "counter-offer"),
        (3, "a", "accept"), (3, "b", "accept")]
    rounds = [ln["round"] for ln in lines]
    assert rounds == sorted(rounds)


def test_what_agents_say_and_notes_read_as_words_not_json(tmp_path: Path, make_client) -> None:
    """Issue 28's walk: a deliberation transcript showed the share agents' messages as
    JSON (``{"share":[["ingredients","pasta",2],...``), a talking turn as a bare
    ``offer`` and the stagnation note as ``last_move=0.0``; now the same words as
    ``accord show``."""
    from accord.bench import BenchOptions, parse_config, run_bench

    share = json.dumps({"share": [["ingredients", "pasta", 2],
                                  ["guest_scores", "Mei", "Pad Thai", 3.6234]],
                        "part": 1, "parts": 1})
    line = transcript([{"kind": "move", "round": 1, "party": "agent_0",
                        "move": {"kind": "offer", "package": {}, "message": share}}])["lines"][0]
    assert line["detail"] == "(no proposal)"
    assert line["message"] == "share: ingredients pasta 2; guest_scores Mei Pad Thai 3.62, " \
                              "part=1, parts=1"
    note = transcript([{"kind": "note", "round": 5, "reason": "stagnation",
                        "data": {"epsilon": 1e-09, "last_move": 0.0, "then": "walk",
                                 "fired": True}}])["lines"][0]
    assert note["detail"] == "epsilon=1e-09, last_move=0.00, then=walk, fired=yes"
    # the page of a stored share-vs-share deliberation
    store = tmp_path / "delib.db"
    cfg = parse_config({"name": "delib", "domain": "deliberation", "scenarios": ["menu-numeric"],
                        "agents": [["share", "share"]], "seeds": 1}, "<test>")
    assert run_bench(cfg, BenchOptions(store=str(store), quiet=True)).done == 1
    st = Store.open_readonly(store)
    try:
        eid = st.episodes("delib")[0].id
    finally:
        st.conn.close()
    page = make_client(store).get(f"/episodes/{eid}").text
    table = page[page.index('<table class="transcript"'):]
    table = table[:table.index("</table>")]
    assert "share: ingredients" in table
    assert "{&#34;share&#34;" not in table and '{"share"' not in table and "[[" not in table


def test_an_episode_that_fails_in_round_one_ends_in_round_one() -> None:
    """Issue 28's walk: an LLM episode whose first call failed showed "1 agent failed"
    then "0 ended: error (error): ..." (the record's count of completed rounds, and the
    reason repeating the status)."""
    lines = transcript([
        {"kind": "agent_error", "round": 1, "party": "buyer", "feedback": "RuntimeError: x"},
        {"kind": "end", "round": 0, "party": "buyer", "reason": "error",
         "data": {"status": "error", "detail": "RuntimeError: x"}},
    ])["lines"]
    assert [(ln["round"], ln["action"]) for ln in lines] == [(1, "agent failed"), (1, "ended")]
    assert lines[1]["detail"] == "error: RuntimeError: x"
    ended = transcript([{"kind": "end", "round": 4, "reason": "stagnation",
                         "data": {"status": "no_deal"}}])["lines"][0]
    assert (ended["round"], ended["detail"]) == (4, "no deal (stagnation)")
