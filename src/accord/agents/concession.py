"""Classic concession strategies for multi-issue negotiation.

Time-based agents (Faratin, Sierra & Jennings 1998) aim at a utility that falls with
relative time ``t`` in [0, 1] from their best outcome to their floor
``max(BATNA, worst outcome)``::

    target(t) = floor + (best - floor) * (1 - t ** (1 / e))

Exponent convention: ``e < 1`` is Boulware (holds firm, concedes late; ``boulware``
uses e = 0.2), ``e = 1`` is linear (``linear``), ``e > 1`` is Conceder (concedes
early; ``conceder`` uses e = 2). Every agent here accepts only offers at or above
its BATNA, and offers only packages at or above it.

Time discounts (a party with ``discount`` delta < 1, Genius's ``u * delta ** t``): the
targets are in undiscounted units (the discounted target is the same curve times
``delta ** t``, so the offers are the same packages), but acceptance compares discounted
values, as a Genius agent does with ``getUtilityWithDiscount``: an offer worth ``u`` now
is accepted when it is at least the discounted value of waiting, what the agent would
demand next round worth one round less, ``next_target * delta ** (t_next - t_now)``. The
BATNA floor is unchanged: Genius discounts the reservation value by the same factor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.core.moves import Accept, Move, Offer, Reject, Walk
from accord.core.outcomes import OutcomeSpace
from accord.core.utility import UtilityFunction
from accord.protocols.agent import CodeAgent
from accord.protocols.base import Observation
from accord.protocols.negotiation import NegotiationObservation


@dataclass
class _Prepared:
    space: OutcomeSpace
    values: np.ndarray  # utility of every outcome index
    order: np.ndarray  # outcome indices sorted by ascending utility
    sorted_u: np.ndarray
    best: float
    floor: float
    utility: UtilityFunction
    #: ``codes`` by outcome index and in ``order`` (None: the space has none)
    codes: np.ndarray | None
    ranked_codes: np.ndarray | None
    #: grid rows in ``order``: made on first use (with unary codes and one offer to match,
    #: the usual bilateral case, never), a sizeable sort-order copy of the grid per party
    ranked_grid: np.ndarray | None = None
    #: memos of pure functions of the tables above (an agent's offers repeat a lot), shared
    #: by every episode of the scenario (:meth:`UtilityFunction.memo`)
    window_end: dict[int, int] = field(default_factory=dict)  # pos -> end of its window
    picks: dict[tuple[int, tuple[int, ...]], int] = field(default_factory=dict)
    offers: dict[int, Offer] = field(default_factory=dict)  # moves by outcome index
    counters: dict[int, Reject] = field(default_factory=dict)
    last_pos: int = -1  # the last search's answer: targets move slowly, often it holds

    @property
    def grid(self) -> np.ndarray:
        """The space's outcome grid, built on first use (matching one offer by its unary
        codes, the usual bilateral case, never needs it)."""
        return self.space.grid


#: entries a shared memo of near-target choices or moves may hold before it is cleared
_MEMO_CAP = 1 << 16
#: windows of at most this many candidates are matched by a scan in Python (a few at the
#: ends of a target curve, a few dozen in its middle), larger ones by numpy
_SCAN = 64


def _bounded(memo: dict[Any, Any]) -> dict[Any, Any]:
    """``memo``, emptied first if it holds more than ``_MEMO_CAP`` entries."""
    if len(memo) > _MEMO_CAP:
        memo.clear()
    return memo


def _offer_of(p: _Prepared, index: int) -> Offer:
    """The offer of outcome ``index``, built once per outcome (see ``offer``)."""
    got = p.offers.get(index)
    if got is None:
        got = p.offers[index] = Offer(p.space.outcome(index))
    return got


def _counter_of(p: _Prepared, index: int) -> Reject:
    """The rejection countering with outcome ``index``, built once per outcome."""
    got = p.counters.get(index)
    if got is None:
        got = p.counters[index] = Reject(counter=_offer_of(p, index))
    return got


class NegotiatorAgent(CodeAgent):
    """Shared machinery: per-episode utility tables, offer choice and acceptance."""

    #: how many near-target candidates to consider when matching the opponent's offer
    window: int = 64

    def __init__(self) -> None:
        self._prep: _Prepared | None = None
        self._utility: UtilityFunction | None = None
        self.reset()

    def prepare(self, obs: NegotiationObservation) -> _Prepared:
        """Utility tables for this observation's space and utility (the sort is cached per
        scenario by the utility, the rest per episode)."""
        p = self._prep
        if p is not None and p.space is obs.space and self._utility is obs.utility:
            return p  # called several times per move: identity checks only
        assert obs.space is not None and obs.utility is not None
        values = obs.utility.values(obs.space)
        utility = obs.utility
        order, su = utility.ranking(obs.space)  # sorted once per scenario
        floor = max(float(obs.batna), float(su[0]))
        # memos of the tables, the floor and the window: shared by the episodes of a
        # scenario, and emptied if one grows large
        key = (floor, self.window)
        window_end = _bounded(utility.memo(obs.space, ("concession.window_end", *key)))
        picks = _bounded(utility.memo(obs.space, ("concession.picks", *key)))
        offers = _bounded(utility.memo(obs.space, "concession.offers"))
        counters = _bounded(utility.memo(obs.space, "concession.counters"))
        p = self._prep = _Prepared(obs.space, values, order, su, float(su[-1]), floor,
                                   utility, obs.space.l1_codes, utility.ranked_codes(obs.space),
                                   None, window_end, picks, offers, counters)
        self._utility = utility
        return p

    def utility_of(self, obs: NegotiationObservation, utility: UtilityFunction) -> float:
        """Own utility of the offer on the table."""
        p = self.prepare(obs)
        if obs.current_index is not None:
            return p.values.item(obs.current_index)  # a Python float, as float(...) gives
        assert obs.current_offer is not None
        return utility(obs.current_offer)

    def choose(self, obs: NegotiationObservation, target: float) -> int:
        """An outcome index with utility at or just above ``target`` (and above BATNA).

        Among near-target candidates it picks the one closest to the other parties'
        latest offers, which finds integrative trades without knowing their utilities.
        """
        p = self.prepare(obs)
        pos, hi = self._near(p, target)
        if hi - pos <= 1:
            return p.order.item(pos)  # a Python int, as int(...) gives
        role = obs.role
        others = tuple([r.index for r in obs.history[-len(obs.parties):] if r.party != role])
        return self._pick(p, pos, hi, others)

    def _near(self, p: _Prepared, target: float) -> tuple[int, int]:
        """The near-target window of :meth:`choose`: sorted positions ``[pos, hi)`` of the
        candidates at or just above ``target`` (one position when the target is above
        every outcome: the best one)."""
        floor = p.floor
        su = p.sorted_u
        # a tolerance for float noise in the target, never below the floor (the BATNA)
        x = target - 1e-12 if target - 1e-12 > floor else floor
        pos = p.last_pos  # searchsorted's answer (side="left") when it brackets x
        if not (0 <= pos < len(su) and su.item(pos) >= x and (pos == 0 or su.item(pos - 1) < x)):
            pos = p.last_pos = int(su.searchsorted(x))  # side="left"
        hi = p.window_end.get(pos)
        if hi is None:
            n = len(su)
            if pos >= n:
                return n - 1, n  # the best outcome, alone
            # candidates within 5% of the range above the first one, at most ``window``:
            # a prefix of the window, since the utilities are sorted (the first past the
            # limit, searched in the whole table, is where it ends within the window)
            limit = su.item(pos) + 0.05 * (p.best - p.floor + 1e-12)
            hi = p.window_end[pos] = min(pos + self.window,
                                         int(su.searchsorted(limit, "right")))
        return pos, hi

    def _pick(self, p: _Prepared, pos: int, hi: int, others: tuple[int, ...]) -> int:
        """The candidate among sorted positions ``[pos, hi)`` closest to the other parties'
        latest offers (outcome indices ``others``; none: the first candidate)."""
        if not others:
            return p.order.item(pos)
        key = (pos, others)
        got = p.picks.get(key)
        if got is None:
            codes = p.ranked_codes
            if len(others) == 1 and codes is not None and hi - pos <= _SCAN:
                # one offer to match, a few candidates: integer L1 distances, as popcounts
                # of unary codes, over the window's codes as Python ints (the first of the
                # nearest, as argmin's): fewer instructions than numpy's xor, popcount and
                # argmin on a few dozen, and no numpy machinery on a first, cold episode
                assert p.codes is not None
                ref = p.codes.item(others[0])
                dist = [(c ^ ref).bit_count() for c in codes[pos:hi].tolist()]
                got = p.picks[key] = p.order.item(pos + dist.index(min(dist)))
                return got
            if len(others) == 1 and codes is not None:
                # one offer to match: integer L1 distances, as popcounts of unary codes
                # (exactly the row sums below, in one array operation)
                assert p.codes is not None
                dist = np.bitwise_count(codes[pos:hi] ^ p.codes[others[0]])
            else:
                grid = p.grid
                # the mean of one offer is that offer: integer distances order the
                # candidates alike
                ref = grid[others[0]] if len(others) == 1 else \
                    grid[list(others)].astype(np.float64).mean(axis=0)
                ranked = p.ranked_grid
                if ranked is None:
                    ranked = p.ranked_grid = p.utility.ranked_grid(p.space)
                dist = np.abs(ranked[pos:hi] - ref).sum(axis=1)  # rows of order[pos:hi]
            got = p.picks[key] = int(p.order[pos + int(dist.argmin())])
        return got

    def offer(self, obs: NegotiationObservation, index: int) -> Offer:
        """The offer of outcome ``index``: moves are immutable, so one per outcome is built
        and reused (its package is the space's read-only :class:`Outcome`)."""
        return _offer_of(self.prepare(obs), index)

    def counter(self, obs: NegotiationObservation, index: int) -> Reject:
        """A rejection countering with outcome ``index`` (built once per outcome, as
        :meth:`offer`)."""
        return _counter_of(self.prepare(obs), index)

    def target(self, obs: NegotiationObservation) -> float:
        """The utility this agent demands now."""
        raise NotImplementedError

    def next_proposer(self, obs: NegotiationObservation) -> str:
        """Who proposes in the next round."""
        return obs.parties[obs.round % len(obs.parties)]

    def act_now(self, observation: Observation) -> Move:
        obs = observation
        assert isinstance(obs, NegotiationObservation)
        p = self.prepare(obs)
        if p.best < obs.batna:
            return Walk("no package reaches my BATNA")  # nothing here beats the alternative
        if obs.phase == "propose":
            return self.offer(obs, self.choose(obs, self.target(obs)))
        assert obs.utility is not None
        u = self.utility_of(obs, obs.utility)
        if u >= obs.batna and self.accepts(obs, u):
            return Accept()
        if obs.round >= obs.max_rounds and self.walk_at_deadline and u < obs.batna:
            return Walk("final offer is below my BATNA")
        if self.next_proposer(obs) == obs.role and obs.round < obs.max_rounds:
            nxt = self.next_target(obs)
            return self.counter(obs, self.choose(obs, nxt))
        return Reject()

    #: walk instead of letting the bound hit when the last offer is below BATNA
    walk_at_deadline: bool = True

    def accepts(self, obs: NegotiationObservation, u: float) -> bool:
        """Acceptance rule: the offer is worth at least what we would demand next, that
        demand discounted by one round's waiting when this party's utility is
        time-discounted (``u * d_now >= next * d_next``)."""
        return u >= self.next_target(obs) * obs.waiting_discount - 1e-12

    def next_target(self, obs: NegotiationObservation) -> float:
        """The target at the next round (what a counter-offer would ask)."""
        return self.target(obs)


class TimeBasedAgent(NegotiatorAgent):
    """Faratin time-dependent tactic with exponent ``e`` (see module docstring)."""

    def __init__(self, e: float = 1.0, name: str = "time-based") -> None:
        if e <= 0:
            raise ValueError("the concession exponent e must be positive")
        self.e = float(e)
        self.name = name
        self._next_memo: tuple[NegotiationObservation, float] | None = None
        super().__init__()

    def target_at(self, obs: NegotiationObservation, t: float) -> float:
        """Target utility at relative time ``t``."""
        p = self.prepare(obs)
        t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
        return p.floor + (p.best - p.floor) * (1.0 - t ** (1.0 / self.e))

    def target(self, obs: NegotiationObservation) -> float:
        return self.target_at(obs, obs.time)

    def next_target(self, obs: NegotiationObservation) -> float:
        memo = self._next_memo
        if memo is not None and memo[0] is obs:  # acceptance and counter-offer ask alike
            return memo[1]
        step = 1.0 / max(1, obs.max_rounds - 1)
        value = self.target_at(obs, obs.time + step)
        self._next_memo = (obs, value)
        return value

    def act_now(self, observation: Observation) -> Move:
        """:meth:`NegotiatorAgent.act_now`; a verdict (every round's move but the first
        offer) is decided in one frame, with the same arithmetic in the same order, when
        the class keeps this class's rules (:func:`_inlined`)."""
        obs = observation
        if type(obs) is not NegotiationObservation or obs.phase != "respond" \
                or not _inlined(type(self)):
            return super().act_now(obs)
        p = self._prep
        if p is None or p.space is not obs.space or self._utility is not obs.utility:
            p = self.prepare(obs)
        batna = obs.batna
        if p.best < batna:
            return Walk("no package reaches my BATNA")
        idx = obs.current_index
        if idx is not None:
            u = p.values.item(idx)
        else:
            assert obs.utility is not None and obs.current_offer is not None
            u = obs.utility(obs.current_offer)
        rnd = obs.round
        last = obs.max_rounds
        memo = self._next_memo
        if memo is not None and memo[0] is obs:
            nxt = memo[1]
        else:  # next_target: target_at(time + step), time and step as obs.time computes
            t = 1.0 if last <= 1 else min(1.0, (rnd - 1) / (last - 1))
            t = t + 1.0 / max(1, last - 1)
            t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
            nxt = p.floor + (p.best - p.floor) * (1.0 - t ** (1.0 / self.e))
            self._next_memo = (obs, nxt)
        if u >= batna and u >= nxt * (1.0 if obs.discount >= 1.0 else obs.waiting_discount) \
                - 1e-12:
            return Accept()
        if rnd >= last and self.walk_at_deadline and u < batna:
            return Walk("final offer is below my BATNA")
        parties = obs.parties
        if parties[rnd % len(parties)] == obs.role and rnd < last:
            index = self.choose(obs, nxt)
            got = p.counters.get(index)
            if got is None:
                got = self.counter(obs, index)
            return got
        return Reject()

    def fused_counter(self, obs: NegotiationObservation
                      ) -> Callable[[int, int, tuple[int, ...]], Reject | None] | None:
        """This agent's verdict as a plain function, for an engine loop that asks it without
        observations (:mod:`accord.protocols.bilateral`): ``(round, index of the offer on the
        table, the other parties' latest offers) -> the counter-offer`` it would make, or
        ``None`` when its verdict is anything else (accept, walk, a bare reject), which the
        loop then asks for through :meth:`act_now`.

        The arithmetic is :meth:`act_now`'s, in the same order, so the moves are the same;
        ``obs`` is any observation of this episode for the role (its space, utility, BATNA,
        round cap). ``None`` instead of a function when the fused loop cannot ask this agent:
        a class or instance that changes a rule, a time discount, or a BATNA above every
        package (it walks at once).
        """
        cls = type(self)
        if (cls.act_now is not TimeBasedAgent.act_now or not _inlined(cls)
                or cls.choose is not NegotiatorAgent.choose or vars(self).keys() & _OWN
                or obs.discount < 1.0):
            return None
        p = self.prepare(obs)
        batna = obs.batna
        if p.best < batna:
            return None
        last = obs.max_rounds
        floor = p.floor
        span = p.best - p.floor
        inv = 1.0 / self.e
        step = 1.0 / max(1, last - 1)
        value = p.values.item
        counters = p.counters
        near = self._near
        pick = self._pick
        order = p.order.item
        su = p.sorted_u.item
        n = len(p.sorted_u)
        window_end = p.window_end
        picks = p.picks

        def counter(rnd: int, index: int, others: tuple[int, ...]) -> Reject | None:
            u = value(index)
            t = 1.0 if last <= 1 else min(1.0, (rnd - 1) / (last - 1))
            t = t + step
            t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
            nxt = floor + span * (1.0 - t ** inv)
            if (u >= batna and u >= nxt - 1e-12) or rnd >= last:
                return None  # accepts, or the last round: act_now decides
            # _near's and _pick's answers where their memos have them (most rounds), else
            # theirs: the same lookups, without two calls a round
            x = nxt - 1e-12 if nxt - 1e-12 > floor else floor
            pos = p.last_pos
            hi = window_end.get(pos) if 0 <= pos < n and su(pos) >= x and (
                pos == 0 or su(pos - 1) < x) else None
            if hi is None:
                pos, hi = near(p, nxt)
            if hi - pos <= 1 or not others:
                got = order(pos)
            else:
                got = picks.get((pos, others))
                if got is None:
                    got = pick(p, pos, hi, others)
            move = counters.get(got)
            return move if move is not None else _counter_of(p, got)

        return counter


#: instance attributes that would change how an agent decides (a test's patch)
_OWN = frozenset({"act", "act_now", "choose", "counter", "offer", "prepare", "accepts",
                  "next_target", "target_at", "target", "next_proposer", "utility_of"})

#: per class: whether TimeBasedAgent.act_now may decide a verdict in one frame
_INLINED: dict[type, bool] = {}
_RULES = ("prepare", "utility_of", "accepts", "next_target", "target_at", "next_proposer",
          "counter", "offer")


def _inlined(cls: type) -> bool:
    """Whether ``cls`` keeps the rules :meth:`TimeBasedAgent.act_now` inlines (a subclass
    that overrides any of them is asked through them)."""
    got = _INLINED.get(cls)
    if got is None:
        got = _INLINED[cls] = all(getattr(cls, name) is getattr(TimeBasedAgent, name)
                                  for name in _RULES)
    return got


class TitForTatAgent(NegotiatorAgent):
    """Relative tit-for-tat: concede, as a share of its own concession range, what the
    other side's moves gained it (Faratin's imitative tactic, delta = 1).

    The demanded level is a pure function of the offers seen so far: it starts at 1 (its
    best package), drops by ``initial_concession`` once the other side has made an offer,
    and then by the share of its range that each new offer of the other side gained it.
    """

    name = "tit-for-tat"

    def __init__(self, initial_concession: float = 0.02) -> None:
        if not 0.0 <= initial_concession <= 1.0:
            raise ValueError("initial_concession must be between 0 and 1")
        self.initial_concession = initial_concession
        super().__init__()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self._tft: list[Any] | None = None  # see _gains

    def target(self, obs: NegotiationObservation) -> float:
        p = self.prepare(obs)
        gains = self._gains(obs)
        level = 1.0
        if gains is not None:
            span = max(p.best - p.floor, 1e-12)
            gained = sum(gains)
            level = 1.0 - self.initial_concession - gained / span
        return p.floor + (p.best - p.floor) * min(1.0, max(0.0, level))

    def _gains(self, obs: NegotiationObservation) -> list[float] | None:
        """What each new offer of the other side gained it over the one before
        (``max(0, u(b) - u(a))`` for each consecutive pair, in order), ``None`` before the
        other side's first offer.

        Kept from call to call and extended by the records added since (each offer's
        utility is computed once, not once a round: the scan of the whole history made a
        round's cost grow with the episode); recomputed whenever the history is not the
        one seen last extended (another episode, role or utility)."""
        assert obs.utility is not None
        history = obs.history
        memo = getattr(self, "_tft", None)
        if (memo is None or memo[0] is not obs.utility or memo[1] != obs.role
                or memo[2] > len(history) or (memo[2] and history[memo[2] - 1] is not memo[3])):
            memo = [obs.utility, obs.role, 0, None, None, []]  # key, seen, last, u, gains
        seen = memo[2]
        if seen < len(history):
            u = obs.utility
            role = obs.role
            prev: float | None = memo[4]
            gains: list[float] = memo[5]
            for r in history[seen:]:
                if r.party != role:
                    now = u(r.package)
                    if prev is not None:
                        gains.append(max(0.0, now - prev))
                    prev = now
            memo[2] = len(history)
            memo[3] = history[-1]
            memo[4] = prev
        self._tft = memo
        return None if memo[4] is None else memo[5]


class HardlinerAgent(NegotiatorAgent):
    """Never concedes: offers its best package and accepts only that value."""

    name = "hardliner"
    walk_at_deadline = False

    def target(self, obs: NegotiationObservation) -> float:
        return self.prepare(obs).best

    def accepts(self, obs: NegotiationObservation, u: float) -> bool:
        """Only its best value, discount or not (a hardliner does not trade time)."""
        return u >= self.prepare(obs).best - 1e-12


class RandomAgent(NegotiatorAgent):
    """Offers random packages at or above its BATNA; accepts such offers with prob. ``p``."""

    name = "random"

    def __init__(self, p_accept: float = 0.5) -> None:
        if not 0.0 <= p_accept <= 1.0:
            raise ValueError("p_accept must be a probability between 0 and 1")
        self.p_accept = p_accept
        super().__init__()

    def target(self, obs: NegotiationObservation) -> float:
        return self.prepare(obs).floor

    def choose(self, obs: NegotiationObservation, target: float) -> int:
        p = self.prepare(obs)
        ok = np.flatnonzero(p.values >= p.floor)
        pool = ok if len(ok) else np.arange(len(p.values))
        return int(self.rng.choice(pool))

    def accepts(self, obs: NegotiationObservation, u: float) -> bool:
        return bool(self.rng.random() < self.p_accept)


class AcceptAllAgent(NegotiatorAgent):
    """A deliberately sycophantic test agent: accepts every offer, even below its BATNA.

    It exists so tests and audits can show the ``accepted_below_batna`` flag firing; it is
    the only agent in accord that breaks the BATNA floor.
    """

    name = "accept-all"

    def target(self, obs: NegotiationObservation) -> float:
        return self.prepare(obs).best

    def act_now(self, observation: Observation) -> Move:
        obs = observation
        assert isinstance(obs, NegotiationObservation)
        if obs.phase == "respond":
            return Accept()
        return super().act_now(obs)
