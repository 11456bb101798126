"""Forking a stored episode (issue 29): the parent's rounds replayed through the protocol,
then live play; the same agents and seed reproduce the parent in every domain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.bench.fork import ForkRequest, load_parent, run_forks, save_forks
from accord.bench.store import Store
from accord.cli.main import app
from accord.protocols.fork import ForkError, ForkPlan, replay, turns_from_events

runner = CliRunner()


def shared_data() -> Path:
    """``../shared/data`` (or ``$ACCORD_DATA``): the Deal-or-No-Deal data set."""
    import os

    return Path(os.environ.get("ACCORD_DATA",
                               Path(__file__).resolve().parents[2].parent / "shared" / "data"))

#: one stored episode per domain, code agents only (random ones included: their random
#: stream must advance in the replayed rounds as it did in the parent)
EPISODES = [
    ("bargaining/buyer-seller", "boulware,random", []),
    ("games/stag-hunt", "random,random", ["--param", "negotiation_rounds=3"]),
    ("task-exchange/competitive", "utility-aware,utility-aware", []),
    ("deliberation/menu-numeric", "share,share", ["--instance", "3"]),
    ("deal-or-no-deal/test/3", "workflow,greedy", ["--data", str(shared_data())]),
]


def _store(tmp_path: Path, target: str, agents: str, extra: list[str]) -> tuple[Path, str]:
    db = tmp_path / "runs.db"
    res = runner.invoke(app, ["run", target, "--agents", agents, "--save", str(db), "--json",
                              *extra])
    assert res.exit_code == 0, res.output
    return db, json.loads(res.stdout)["stored"]["id"]


def _moves(events: Any) -> list[tuple[Any, ...]]:
    out = []
    for e in events:
        d = e if isinstance(e, dict) else e.to_dict()
        if d["kind"] == "move":
            out.append((d["party"], d["round"], json.dumps(d["move"], sort_keys=True)))
    return out


@pytest.mark.parametrize(("target", "agents", "extra"), EPISODES,
                         ids=[t.split("/")[0] for t, _, _ in EPISODES])
def test_the_same_agents_and_seed_reproduce_the_parent_from_every_round(
        tmp_path: Path, target: str, agents: str, extra: list[str]) -> None:
    db, eid = _store(tmp_path, target, agents, extra)
    parent = load_parent(db, eid)
    data = str(shared_data()) if "--data" in extra else None
    rounds = parent.row.summary["rounds"]
    assert rounds >= 2
    for at in range(1, rounds + 1):
        fork = run_forks(parent, ForkRequest(at=at), data=data)[0]
        assert _moves(fork.result.trajectory) == _moves(parent.events), at
        assert fork.result.status == parent.row.summary["status"]
        assert fork.result.record == parent.row.summary["record"]
        notes = [e for e in fork.result.trajectory.events if e.reason == "fork"]
        assert len(notes) == 1 and notes[0].round == at
        assert notes[0].data == {"parent": eid, "at": at, "changed": []}


def test_another_agent_keeps_the_prefix_and_changes_what_follows(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,boulware", [])
    parent = load_parent(db, eid)
    fork = run_forks(parent, ForkRequest(at=4, party={"buyer": "conceder"}))[0]
    before = [m for m in _moves(parent.events) if m[1] < 4]
    assert [m for m in _moves(fork.result.trajectory) if m[1] < 4] == before
    assert len(before) >= 3
    assert _moves(fork.result.trajectory) != _moves(parent.events)
    assert fork.info["changes"] == {"agents": {"buyer": "conceder"}}
    assert fork.spec.agents[0].kind == "conceder"
    # the seat by position means the same
    same = run_forks(parent, ForkRequest(at=4, party={"1": "conceder"}))[0]
    assert same.id == fork.id and _moves(same.result.trajectory) == \
        _moves(fork.result.trajectory)


def _tamper(db: Path, eid: str, change: Any) -> None:
    """Rewrite the stored trajectory of ``eid`` through ``change(events)``."""
    with Store.open(db) as st:
        row = st.find(eid)
        text = st.trajectory(row.run, row.id)
        assert text is not None
        events = [json.loads(line) for line in text.splitlines()]
        change(events)
        st.conn.execute("UPDATE trajectories SET jsonl=? WHERE run=? AND id=?",
                        (st._pack("".join(json.dumps(e) + "\n" for e in events)), row.run,
                         row.id))
        st.conn.commit()


def test_a_tampered_log_is_a_clear_error_not_a_fork(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,boulware", [])

    def illegal_price(events: list[dict[str, Any]]) -> None:
        first = next(e for e in events if e["kind"] == "move" and e["round"] == 2)
        first["move"]["counter"]["package"]["price"] = 123_456
    _tamper(db, eid, illegal_price)
    with pytest.raises(ForkError, match=r"move of buyer in round 2 is not legal"):
        run_forks(load_parent(db, eid), ForkRequest(at=3))
    # forking before the tampered round replays nothing wrong
    assert run_forks(load_parent(db, eid), ForkRequest(at=2))[0].result.status == "agreement"
    res = runner.invoke(app, ["fork", str(db), eid[:8], "--at", "3"])
    assert res.exit_code == 2 and "not legal" in res.output


def test_a_log_out_of_turn_is_refused(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,boulware", [])

    def swap(events: list[dict[str, Any]]) -> None:
        moves = [e for e in events if e["kind"] == "move"]
        moves[1]["party"], moves[2]["party"] = moves[2]["party"], moves[1]["party"]
    _tamper(db, eid, swap)
    with pytest.raises(ForkError, match="does not follow the protocol"):
        run_forks(load_parent(db, eid), ForkRequest(at=3))


def test_fork_rounds_and_seats_are_checked(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,boulware", [])
    parent = load_parent(db, eid)
    with pytest.raises(ForkError, match="has moves in rounds 1 to"):
        run_forks(parent, ForkRequest(at=99))
    with pytest.raises(ForkError, match="no such seat; the seats are buyer, seller"):
        run_forks(parent, ForkRequest(at=2, party={"mediator": "conceder"}))
    with pytest.raises(ForkError, match="gives 3 agents"):
        run_forks(parent, ForkRequest(at=2, agents=("a", "b", "c")))


def test_replay_stops_at_an_ended_parent() -> None:
    from accord.domains.bargaining import resolve_scenario
    from accord.protocols.alternating import AlternatingOffers

    proto = AlternatingOffers(resolve_scenario("buyer-seller"))
    offer = {"kind": "offer", "package": {"price": 1000, "delivery_days": 10,
                                          "warranty_years": 1}, "message": None}
    events = [{"seq": 0, "round": 1, "party": "buyer", "kind": "move", "move": offer},
              {"seq": 1, "round": 1, "party": "seller", "kind": "move",
               "move": {"kind": "accept", "message": None}},
              {"seq": 2, "round": 2, "party": "buyer", "kind": "move", "move": offer}]
    with pytest.raises(ForkError, match="ended before round 3"):
        replay(proto, ForkPlan("p", 3, turns_from_events(events, 3)))
    with pytest.raises(ForkError, match="ended before round 2"):
        replay(proto, ForkPlan("p", 2, turns_from_events(events, 2)))
    queues = replay(proto, ForkPlan("p", 1, turns_from_events(events, 1)))
    assert queues == {}


def test_forks_are_stored_with_their_parent_and_compared(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,random", [])
    res = runner.invoke(app, ["fork", str(db), eid[:8], "--at", "3", "--party",
                              "seller=conceder", "--repeat", "2", "--save", str(db), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["at"] == 3 and out["changes"] == {"agents": {"seller": "conceder"}}
    assert [r["episode"] for r in out["comparison"]] == ["parent", "fork 1", "fork 2"]
    assert [f["seed"] for f in out["forks"]] == [0, 1]
    with Store.open_readonly(db) as st:
        forks = st.episodes("accord-fork")
    assert len(forks) == 2
    assert all(f.spec["fork"]["parent"] == eid and f.spec["fork"]["at"] == 3 for f in forks)
    assert all(f.labels["parent"] == eid for f in forks)
    res = runner.invoke(app, ["results", str(db), "--forks", "--json"])
    rows = json.loads(res.stdout)["forks"][0]["rows"]
    assert rows[0]["id"] == eid and len(rows) == 3
    assert set(rows[1]["values"]) == {"buyer", "seller"}
    res = runner.invoke(app, ["show", str(db), forks[0].id[:10]])
    assert res.exit_code == 0
    assert f"fork of {eid} (run accord-run) from round 3; changed agents: seller=conceder" \
        in " ".join(res.stdout.split())
    assert "The fork starts here" in res.stdout


def test_a_fork_saved_to_another_store_names_its_parent(tmp_path: Path) -> None:
    db, eid = _store(tmp_path, "bargaining/buyer-seller", "boulware,boulware", [])
    other = tmp_path / "forks.db"
    forks = run_forks(load_parent(db, eid), ForkRequest(at=2))
    save_forks(other, forks)
    res = runner.invoke(app, ["results", str(other), "--forks", "--json"])
    assert res.exit_code == 0
    rows = json.loads(res.stdout)["forks"][0]["rows"]
    assert rows[0] == {"episode": "parent (not in this store)", "id": eid, "lineup": "–",
                       "status": None, "reason": None, "rounds": None, "values": {}}
    assert rows[1]["status"] == "agreement"
