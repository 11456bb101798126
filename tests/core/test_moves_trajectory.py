from accord.core import Accept, Offer, Reject, Trajectory, Walk, move_from_dict


def test_moves_roundtrip():
    for m in [Offer({"a": 1}, message="hi"), Accept(), Reject(counter=Offer({"a": 2})),
              Reject(), Walk("batna")]:
        assert move_from_dict(m.to_dict()) == m


def test_trajectory_jsonl_roundtrip(tmp_path):
    log = Trajectory()
    log.add(1, "a", "move", move=Offer({"x": 1}).to_dict(), t=0.1)
    log.add(1, "b", "invalid", reason="bad", feedback="fix it", data={"attempt": 1})
    log.add(2, None, "end", data={"status": "no_deal"})
    path = tmp_path / "log.jsonl"
    log.write(path)
    again = Trajectory.read(path)
    assert [e.to_dict() for e in again] == [e.to_dict() for e in log]
    assert again.of_kind("invalid")[0].feedback == "fix it"


def test_bad_log_line_names_file_and_line(tmp_path):
    import pytest

    path = tmp_path / "bad.jsonl"
    path.write_text('{"seq": 0, "round": 1, "kind": "move"}\n{"seq": 1}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not a trajectory event"):
        Trajectory.read(path)


def test_event_to_dict_equals_asdict_without_empty_fields() -> None:
    from collections import namedtuple
    from dataclasses import asdict, dataclass

    from accord.core.trajectory import Event

    @dataclass
    class Inner:
        a: int
        b: list[int]

    pair = namedtuple("pair", "x y")
    events = [
        Event(0, 0, None, "note"),
        Event(1, 2, "buyer", "move", move={"type": "offer", "package": {"p": 1}}, t=0.5),
        Event(2, 2, "seller", "invalid", move={}, reason="bad", feedback="fix it",
              data={"attempt": 1, "nested": [Inner(1, [2, 3]), (4, 5), pair(6, 7)],
                    "none": None}),
    ]
    for ev in events:
        want = {k: v for k, v in asdict(ev).items() if v not in (None, {})}
        got = ev.to_dict()
        assert got == want
        assert list(got) == list(want)
        assert Event.from_dict(got) == Event.from_dict(want)
    got = events[2].to_dict()
    assert got["data"]["nested"][0] == {"a": 1, "b": [2, 3]}
    got["data"]["nested"].append(0)  # a copy: the event is unchanged
    assert len(events[2].data["nested"]) == 3
