"""The shared, append-only offer history (issue 30): O(1) appends, tuple-like reads, and
states that share a history never see each other's later rounds."""

import pickle

import pytest

from accord.core import Offer, Reject
from accord.domains.bargaining import resolve_scenario
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.history import History, appended, extended


def test_a_history_reads_like_the_tuple_it_replaces():
    h = History([1, 2, 3]).plus(4).plus(5)
    t = (1, 2, 3, 4, 5)
    assert len(h) == 5 and h == t and t == h and h == History(t)
    assert list(h) == list(t) and list(reversed(h)) == list(reversed(t))
    assert h[0] == 1 and h[-1] == 5 and h[-5] == 1
    for s in (slice(None), slice(1, 3), slice(-2, None), slice(None, None, -1),
              slice(3, 0, -2), slice(10, 20), slice(None, -8)):
        assert h[s] == t[s] and type(h[s]) is tuple
    with pytest.raises(IndexError):
        h[5]
    with pytest.raises(IndexError):
        h[-6]
    assert h + (6,) == (*t, 6) and (0,) + h == (0, *t)  # noqa: RUF005 (the + operator)
    assert hash(h) == hash(t) and 3 in h and h.index(4) == 3 and h.count(2) == 1
    assert h != (1, 2, 3, 4) and h != [1, 2, 3, 4, 5]
    assert pickle.loads(pickle.dumps(h)) == t
    assert not History() and appended((1, 2), 3) == (1, 2, 3)


def test_views_of_one_list_keep_their_own_length():
    base = History([1, 2])
    longer = base.plus(3)
    other = base.plus(30)  # base is no longer the tip: this one branches off with a copy
    assert base == (1, 2) and longer == (1, 2, 3) and other == (1, 2, 30)
    assert longer.plus(4) == (1, 2, 3, 4) and other.plus(40) == (1, 2, 30, 40)
    assert longer == (1, 2, 3) and other == (1, 2, 30)
    assert list(reversed(base)) == [2, 1] and base[-1] == 2 and base[1:] == (2,)
    empty = History()
    assert empty.plus(1) == (1,) and empty.plus(2) == (2,) and empty == ()


def test_extending_by_many_is_appending_each():
    base = History([1, 2])
    tip = base.extended([3, 4])
    branch = base.extended([30])  # base is no longer the tip: a copy, as plus makes
    assert tip == (1, 2, 3, 4) and branch == (1, 2, 30) and base == (1, 2)
    assert tip.extended([]) is tip and tip.extended([5]).plus(6) == (1, 2, 3, 4, 5, 6)
    assert History().extended([7, 8]) == (7, 8) and History() == ()
    assert extended((1,), [2, 3]) == (1, 2, 3) and type(extended((1,), [2])) is History
    assert extended(tip, [5]) == (1, 2, 3, 4, 5) and tip == (1, 2, 3, 4)


def test_states_sharing_a_history_do_not_see_each_others_later_rounds():
    split = resolve_scenario("split")
    for k in (0, 3):  # the bilateral fast path (no stagnation) and the general path
        proto = AlternatingOffers(split, AlternatingConfig(max_rounds=20, stagnation_rounds=k))
        s0 = proto.initial_state()
        s1, _ = proto.apply(s0, {"alice": Offer({"alice_share": 9})})
        # two different futures of the same state s1: bob counters 2 in one, 4 in the other
        a2, _ = proto.apply(s1, {"bob": Reject(counter=Offer({"alice_share": 2}))})
        b2, _ = proto.apply(s1, {"bob": Reject(counter=Offer({"alice_share": 4}))})
        a3, _ = proto.apply(a2, {"alice": Reject(counter=Offer({"alice_share": 8}))})
        b3, _ = proto.apply(b2, {"alice": Reject(counter=Offer({"alice_share": 7}))})
        a3_again, _ = proto.apply(a2, {"alice": Reject(counter=Offer({"alice_share": 6}))})
        shares = {name: [r.package["alice_share"] for r in s.history]
                  for name, s in (("s1", s1), ("a2", a2), ("b2", b2), ("a3", a3), ("b3", b3),
                                  ("a3_again", a3_again))}
        assert shares == {"s1": [9], "a2": [9, 2], "b2": [9, 4], "a3": [9, 2, 8],
                          "b3": [9, 4, 7], "a3_again": [9, 2, 6]}, k
        assert s0.history == () and len(s1.history) == 1
        # what an observation of an earlier state holds does not grow either
        obs = proto.observe(a2, "alice")
        proto.apply(a3, {"bob": Reject(counter=Offer({"alice_share": 3}))})
        assert [r.package["alice_share"] for r in obs.history] == [9, 2]
        assert [r.package["alice_share"] for r in reversed(obs.history)] == [2, 9]


def test_a_state_built_with_a_tuple_history_still_appends():
    split = resolve_scenario("split")
    proto = AlternatingOffers(split)
    s1, _ = proto.apply(proto.initial_state(), {"alice": Offer({"alice_share": 9})})
    as_tuple = type(s1)(**{**s1.__dict__, "history": tuple(s1.history)})
    s2, _ = proto.apply(as_tuple, {"bob": Reject(counter=Offer({"alice_share": 2}))})
    assert [r.package["alice_share"] for r in s2.history] == [9, 2]
    assert as_tuple.history == s1.history
