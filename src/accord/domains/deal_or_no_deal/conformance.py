"""The conformance kit of Deal or No Deal (:class:`~accord.protocols.kit.ProtocolKit`).

Episodes run on real datapoints of the test split (``<data>/dealornodeal/test.txt``, the
domain's loader); when the data is not installed the kit falls back to
:data:`FALLBACK_POINTS`, three fixed datapoints written in code (counts and both value
vectors in the data's format), so the check still runs on a fresh checkout. The round cap
(1 to 6) and the opener vary with the episode.

Random legal moves: any share of the items as an offer (with and without a message),
messages of any non-empty length, walks, and - while the partner's offer is on the table -
accepts and rejects with and without a counter-offer. Random illegal moves: offers naming
an unknown item, missing one, with a count that is not a whole number or is out of range,
accepting or rejecting with no partner offer on the table, a bad counter-offer, empty
messages, and move kinds that are not Deal-or-No-Deal moves (suggest, decide, action).
Privacy: each side's value vector is private to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.moves import Accept, Action, Decide, Message, Move, Offer, Reject, Suggest, Walk
from accord.domains.deal_or_no_deal.protocol import ROLES, DondObservation, DondProtocol
from accord.domains.deal_or_no_deal.rules import complement, utility
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit, observation_check, result_check

Point = tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""``(id, counts, alice's values, bob's values)`` of one datapoint."""

FALLBACK_POINTS: tuple[Point, ...] = (
    ("fixed/0", (1, 4, 1), (4, 1, 2), (2, 1, 4)),
    ("fixed/1", (3, 1, 2), (0, 4, 3), (2, 2, 1)),
    ("fixed/2", (2, 2, 2), (1, 3, 1), (3, 0, 2)),
)
"""Datapoints used when the data set is not installed (each side's values total 10)."""

ROUND_CAPS = (1, 2, 3, 6)
"""Round caps the episodes cycle through (1: a single round; 6: room for long talks)."""

WORDS = ("I", "need", "the", "books", "hats", "balls", "deal", "no", "please", "you", "take")


def _text(rng: np.random.Generator) -> str:
    n = int(rng.choice((1, 3, 12, 400)))
    return " ".join(str(w) for w in rng.choice(WORDS, size=n))


def _share(obs: DondObservation, rng: np.random.Generator) -> dict[str, Any]:
    return {item: int(rng.integers(c + 1)) for item, c in zip(obs.items, obs.counts, strict=True)}


def legal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move Deal or No Deal accepts from ``obs``."""
    assert isinstance(obs, DondObservation)
    r = rng.random()
    if r < 0.03:
        return Walk(None if rng.random() < 0.5 else "no deal for me")
    if obs.offer is not None and r < 0.6:
        kind = int(rng.integers(3))
        if kind == 0:
            return Accept(message=None if rng.random() < 0.5 else _text(rng))
        if kind == 1:
            return Reject(message=None if rng.random() < 0.5 else _text(rng))
        return Reject(counter=Offer(_share(obs, rng)))
    if r < 0.8:
        return Offer(_share(obs, rng), message=None if rng.random() < 0.5 else _text(rng))
    return Message(_text(rng))


def _bad_package(obs: DondObservation, rng: np.random.Generator) -> dict[str, Any]:
    pkg: dict[str, Any] = _share(obs, rng)
    item = obs.items[int(rng.integers(len(obs.items)))]
    count = obs.counts[obs.items.index(item)]
    flaw = int(rng.integers(5))
    if flaw == 0:
        pkg["car"] = 1
    elif flaw == 1:
        del pkg[item]
    elif flaw == 2:
        pkg[item] = ("1", 0.5, True, None)[int(rng.integers(4))]
    elif flaw == 3:
        pkg[item] = count + 1 + int(rng.integers(3))
    else:
        pkg[item] = -1 - int(rng.integers(3))
    return pkg


def illegal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move Deal or No Deal must refuse from ``obs``."""
    assert isinstance(obs, DondObservation)
    choice = int(rng.integers(6))
    if choice == 0:
        return Offer(_bad_package(obs, rng))
    if choice == 1:
        if obs.offer is None:
            return Accept() if rng.random() < 0.5 else Reject(counter=Offer(_share(obs, rng)))
        return Reject(counter=Offer(_bad_package(obs, rng)))
    if choice == 2:
        return Message(str(rng.choice(("", " ", "\n\t"))))
    if choice == 3:
        return Suggest(_share(obs, rng))
    if choice == 4:
        return Decide(_share(obs, rng))
    return Action("deal")


def check_observation(protocol: DondProtocol, role: str, obs: Observation) -> None:
    """A side sees the counts, its own values only and the table from its side."""
    assert isinstance(obs, DondObservation), f"{role} got {type(obs).__name__}"
    if obs.values != protocol.values[role]:
        raise AssertionError(f"{role}'s observation carries values that are not its own")
    if obs.counts != protocol.counts:
        raise AssertionError(f"{role}'s observation carries wrong item counts")
    if obs.offer is not None and obs.my_offer is not None:
        raise AssertionError(f"{role} sees both its own and the partner's offer on the table")
    if obs.offer is not None:
        took = tuple(obs.offer[i] for i in obs.items)
        left = tuple(obs.offer_for_you[i] for i in obs.items) if obs.offer_for_you else None
        if left != complement(obs.counts, took):
            raise AssertionError(f"{role}'s offer_for_you is not what the partner's offer leaves")
    if ("accept" in obs.legal) != (obs.offer is not None):
        raise AssertionError(f"{role} may accept exactly when the partner's offer is on the table")


def check_result(protocol: DondProtocol, res: EpisodeResult) -> None:
    """Shares split the items, scores are the values of the shares, endings are logged."""
    rec = res.record
    if res.status == "agreement":
        shares = rec["shares"]
        got = [tuple(shares[r][i] for i in protocol.items) for r in ROLES]
        if tuple(a + b for a, b in zip(*got, strict=True)) != protocol.counts:
            raise AssertionError(f"agreed shares {shares} do not split the items")
        for role, share in zip(ROLES, got, strict=True):
            if rec["scores"][role] != utility(protocol.values[role], share):
                raise AssertionError(f"{role}'s recorded score disagrees with its values")
        if not any(e.move and e.move["kind"] == "accept" for e in res.trajectory.of_kind("move")):
            raise AssertionError("agreement without any logged accept")
    elif res.status == "no_deal":
        if any(rec["scores"].values()) or rec["shares"] is not None:
            raise AssertionError("no deal, yet shares or scores were recorded")
        if res.reason == "walk" and rec["walked_by"] != res.who:
            raise AssertionError("the walk is recorded for the wrong side")
        if res.reason not in ("walk", "max_rounds", "bound_hit"):
            raise AssertionError(f"unexpected no-deal reason {res.reason!r}")


def kit(points: Sequence[Point] = FALLBACK_POINTS) -> ProtocolKit:
    """The kit for Deal or No Deal on ``points`` (episode ``i`` plays point ``i`` mod n)."""
    if not points:
        raise ValueError("the Deal-or-No-Deal kit needs at least one datapoint")

    def make(i: int) -> Protocol[Any]:
        ident, counts, alice, bob = points[i % len(points)]
        return DondProtocol(counts, {"alice": alice, "bob": bob},
                            rounds=ROUND_CAPS[i % len(ROUND_CAPS)],
                            first=ROLES[(i // len(ROUND_CAPS)) % 2], scenario=ident)

    def private(protocol: Protocol[Any], role: str) -> Sequence[object]:
        assert isinstance(protocol, DondProtocol)
        return (protocol.values[role],)

    return ProtocolKit(
        name="deal-or-no-deal", make=make, legal=legal_move, illegal=illegal_move,
        private=private, max_rounds=max(ROUND_CAPS),
        check_observation=observation_check(DondProtocol, check_observation),
        check_result=result_check(DondProtocol, check_result))


def data_points(data: str | None = None, limit: int = 12) -> tuple[Point, ...]:
    """The first ``limit`` unique datapoints of the installed test split, or the fallback
    points when the data set is not installed."""
    from accord.domains.deal_or_no_deal.episode import load_datapoints
    from accord.domains.deal_or_no_deal.location import DataNotFoundError

    try:
        points = load_datapoints(data, "test")[:limit]
    except DataNotFoundError:
        return FALLBACK_POINTS
    return tuple((dp.id, dp.counts, dp.alice, dp.bob) for dp in points) or FALLBACK_POINTS


__all__ = ["FALLBACK_POINTS", "check_observation", "check_result", "data_points",
           "illegal_move", "kit", "legal_move"]
