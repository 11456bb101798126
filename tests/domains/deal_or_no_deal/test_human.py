"""The ``human`` Deal-or-No-Deal agent (a person) and ``dataset-human`` (the replay)."""

from __future__ import annotations

from pathlib import Path

from accord.agents.human import Seat, SeatClosed
from accord.domains.base import EpisodeSpec, RunContext, get_domain


class ScriptedSeat(Seat):
    def __init__(self, replies):
        self.replies = list(replies)
        self.turns = []

    async def ask(self, turn):
        self.turns.append(turn)
        if not self.replies:
            raise SeatClosed("gone")
        return self.replies.pop(0)


async def test_person_proposes_with_deal_semantics_and_sees_only_own_values(
        dond_dir: Path) -> None:
    seat = ScriptedSeat([
        {"kind": "offer", "package": {"book": "99", "hat": "0", "ball": "0"}},  # too many
        {"kind": "offer", "package": {"book": "x"}},                            # unreadable
        {"kind": "accept"},                                                     # nothing there
        {"kind": "message", "text": "<script>alert(1)</script>"},
        {"kind": "walk"},
    ])
    dom = get_domain("deal-or-no-deal")
    spec = EpisodeSpec("deal-or-no-deal", "test/0", ("human", "greedy"), {"data": str(dond_dir)})
    res = await dom.run_episode(spec, RunContext(extra={"seat": seat}))
    reasons = [e.reason for e in res.trajectory.of_kind("invalid")]
    assert reasons == ["count_out_of_range", "unreadable_reply", "nothing_to_accept"]
    view = seat.turns[0].view
    values = res.record["values"]
    assert [i["value"] for i in view["items"]] == values["alice"]
    assert [i["count"] for i in view["items"]] == res.record["counts"]
    assert "bob" not in repr({k: v for k, v in view.items() if k not in ("partner", "brief")})
    brief = view["brief"]  # names the partner ("Against"), shows the person's values only
    assert dict(brief["facts"])["Against"] == "bob"
    assert [int(r[2]) for r in brief["tables"][0]["rows"]] == values["alice"]
    assert "bob" not in repr(brief["tables"])
    assert seat.turns[1].feedback["reason"] == "count_out_of_range"
    worth = seat.turns[0].evaluate({"book": "1", "hat": "1", "ball": "1"})
    assert worth == sum(values["alice"])
    assert res.status == "no_deal" or res.status == "agreement"


async def test_person_accepts_the_partners_proposal(dond_dir: Path) -> None:
    seat = ScriptedSeat([{"kind": "message", "text": "your turn"}, {"kind": "accept"}])
    spec = EpisodeSpec("deal-or-no-deal", "test/0", ("human", "greedy"), {"data": str(dond_dir)})
    res = await get_domain("deal-or-no-deal").run_episode(spec, RunContext(extra={"seat": seat}))
    assert res.status == "agreement"
    offer = seat.turns[1].view["offer"]
    assert res.record["shares"]["alice"] == offer["you_get"]
    assert res.record["scores"]["alice"] == offer["worth"]


def test_dataset_human_is_the_replay_and_human_needs_a_seat(dond_dir: Path) -> None:
    import pytest

    from accord.agents.spec import AgentSpecError
    from accord.domains.deal_or_no_deal.agents import make_agent
    from accord.domains.deal_or_no_deal.baselines import HumanReplayAgent
    from accord.domains.deal_or_no_deal.episode import load_datapoints

    dp = load_datapoints(str(dond_dir), "test")[0]
    replay = make_agent("dataset-human", dp, "alice")
    assert isinstance(replay, HumanReplayAgent) and replay.name == "dataset-human"
    with pytest.raises(AgentSpecError, match="needs a person at a seat"):
        make_agent("human", dp, "alice")
