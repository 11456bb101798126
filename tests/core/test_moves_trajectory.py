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
