"""The Deal-or-No-Deal protocol: moves, validation feedback, endings, private observations."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from accord.agents.base import Agent
from accord.core.moves import Accept, Action, Malformed, Message, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal import DondObservation, DondProtocol, DondState
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, check_move, run_episode

COUNTS = (1, 2, 3)
VALUES = {"alice": (4, 0, 2), "bob": (1, 3, 1)}


def proto(**kw: object) -> DondProtocol:
    return DondProtocol(COUNTS, VALUES, scenario="hand/0", **kw)  # type: ignore[arg-type]


def pkg(book: int, hat: int, ball: int) -> dict[str, int]:
    return {"book": book, "hat": hat, "ball": ball}


def play(p: DondProtocol, moves: Sequence[Move]) -> DondState:
    s = p.initial_state()
    for m in moves:
        role = p.to_move(s)[0]
        assert p.validate(s, role, m) is None, (role, m, p.validate(s, role, m))
        s, _ = p.apply(s, {role: m})
    return s


def test_offer_accept_records_both_shares() -> None:
    p = proto()
    s = play(p, [Offer(pkg(1, 0, 2)), Accept()])
    term = p.termination(s)
    assert term is not None and term.status == "agreement"
    rec = p.result(s, term)
    assert rec["shares"] == {"alice": pkg(1, 0, 2), "bob": pkg(0, 2, 1)}
    assert rec["scores"] == {"alice": 8, "bob": 7}
    assert rec["rounds"] == 1 and rec["offers"] == 1 and rec["agreement"]


def test_counter_offer_then_accept_by_first_mover() -> None:
    p = proto()
    s = play(p, [Offer(pkg(1, 2, 3)), Reject(counter=Offer(pkg(0, 2, 0)), message="no"),
                 Accept()])
    rec = p.result(s, p.termination(s))  # type: ignore[arg-type]
    assert rec["shares"] == {"alice": pkg(1, 0, 3), "bob": pkg(0, 2, 0)}
    assert rec["rounds"] == 2
    kinds = [e["kind"] for e in s.history]
    assert kinds == ["offer", "offer", "accept"]
    assert s.history[1]["rejected"] == pkg(1, 2, 3) and s.history[1]["text"] == "no"


def test_message_keeps_offer_reject_clears_it() -> None:
    p = proto()
    s = play(p, [Offer(pkg(1, 0, 0)), Message("hmm"), Message("well?")])
    obs = p.observe(s, "bob")
    assert obs.offer == pkg(1, 0, 0) and obs.offer_for_you == pkg(0, 2, 3)
    assert "accept" in obs.legal
    s = play(p, [Offer(pkg(1, 0, 0)), Reject()])
    assert s.table is None
    assert p.validate(s, "alice", Accept()) is not None


def test_walk_ends_without_deal() -> None:
    p = proto()
    s = play(p, [Offer(pkg(1, 0, 0)), Walk(reason="bye")])
    term = p.termination(s)
    assert term is not None and (term.status, term.reason, term.who) == ("no_deal", "walk", "bob")
    rec = p.result(s, term)
    assert rec["shares"] is None and rec["scores"] == {"alice": 0, "bob": 0}


def test_round_cap() -> None:
    p = proto(rounds=2)
    s = play(p, [Message("a"), Message("b"), Message("c")])
    assert p.termination(s) is None and p.observe(s, "bob").last_turn
    s = play(p, [Message("a"), Message("b"), Message("c"), Message("d")])
    term = p.termination(s)
    assert term is not None and term.reason == "max_rounds"
    assert p.progress(s).round == 2


def test_first_mover_bob() -> None:
    p = proto(first="bob")
    assert p.to_move(p.initial_state()) == ("bob",)


def test_invalid_moves_get_targeted_feedback() -> None:
    p = proto()
    s = p.initial_state()
    cases = {
        "count_out_of_range": Offer(pkg(2, 0, 0)),
        "unknown_item": Offer({"book": 1, "hat": 0, "ball": 0, "car": 1}),
        "missing_item": Offer({"book": 1, "hat": 0}),
        "not_integer": Offer({"book": True, "hat": 0, "ball": 0}),
        "nothing_to_accept": Accept(),
        "nothing_to_reject": Reject(),
        "empty_message": Message("  "),
        "illegal_move": Action("defect"),
        "bad_tag": Malformed("bad_tag", "write <deal>book=1 hat=0 ball=0</deal>"),
    }
    for reason, move in cases.items():
        inv = check_move(p, s, "alice", move)  # the engine's step: Malformed included
        assert inv is not None and inv.reason == reason, (reason, inv)
        assert inv.feedback
    assert "0..1" in p.validate(s, "alice", Offer(pkg(2, 0, 0))).feedback  # type: ignore[union-attr]
    neg = p.validate(s, "alice", Offer(pkg(0, -1, 0)))
    assert neg is not None and neg.reason == "count_out_of_range"
    s = play(p, [Offer(pkg(1, 0, 0))])
    s = play(p, [Offer(pkg(1, 0, 0)), Message("x")])
    own = p.validate(s, "alice", Accept())
    assert own is not None and "your own offer" in own.feedback
    bad_counter = p.validate(play(p, [Offer(pkg(1, 0, 0))]), "bob",
                             Reject(counter=Offer(pkg(0, 9, 0))))
    assert bad_counter is not None and bad_counter.reason == "count_out_of_range"


def test_observation_never_holds_partner_values() -> None:
    p = proto()
    s = play(p, [Offer(pkg(1, 0, 2), message="take it")])
    for role, partner in (("alice", "bob"), ("bob", "alice")):
        obs = p.observe(s, role)
        assert isinstance(obs, DondObservation)
        assert obs.values == VALUES[role]
        for f in dataclasses.fields(obs):
            val = getattr(obs, f.name)
            assert val != VALUES[partner] and val != list(VALUES[partner]), f.name
        assert "values" not in repr(obs.history)
    assert "values" not in p.public_view(s)


class Script(Agent):
    """Plays a fixed list of moves; records what it saw."""

    def __init__(self, moves: Sequence[Move]) -> None:
        self.moves = list(moves)
        self.seen: list[Observation] = []

    async def act(self, observation: Observation) -> Move:
        self.seen.append(observation)
        return self.moves.pop(0)


async def test_engine_retries_invalid_offer_with_feedback() -> None:
    alice = Script([Offer(pkg(1, 5, 0)), Offer(pkg(1, 0, 2))])
    bob = Script([Accept()])
    res = await run_episode(proto(), {"alice": alice, "bob": bob}, bounds=Bounds(max_rounds=20))
    assert res.status == "agreement"
    assert res.record["shares"]["alice"] == pkg(1, 0, 2)
    fb = alice.seen[1].feedback
    assert fb is not None and fb.reason == "count_out_of_range" and "hat" in fb.feedback
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["count_out_of_range"]
