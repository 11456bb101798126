"""Stacked alternating offers for 2..n parties (seed 002's Negotiation pattern).

Each round one proposer (configurable turn order) puts a full package on the table;
every other party gives its verdict concurrently: accept, reject (optionally with a
counter-offer, which becomes its next offer when it proposes next), or walk.
Agreement needs every party (default) or k of n counting the proposer; the voting rules
of :mod:`accord.protocols.voting` add required acceptors (vetoes), per-party minimum
thresholds and who a passed deal binds. A designated ``opener`` proposes in the first
and the last round (LLM-Deliberation's p1), optionally with a fixed ``opening_offer``.

The stagnation rule is the seed's (:mod:`accord.protocols.stagnation`): after
``stagnation_rounds`` (K) consecutive rounds in which no proposer moved further than
``stagnation_epsilon`` (in its own utility, or per issue with
``stagnation_measure="issues"``), or when the optional Stagnation Scorer role answers
STAGNANT, a party whose best available offer is below its BATNA walks first; only when
nobody walks does a configured mediator put a package to all parties. The protocol is
pure: the engine owns time and I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.core.discount import discounted as discounted_value
from accord.core.discount import relative_time
from accord.core.moves import (
    Accept,
    Assess,
    Message,
    Move,
    Offer,
    Package,
    Reject,
    Suggest,
    Walk,
)
from accord.core.outcomes import Outcome
from accord.core.scenario import Scenario
from accord.protocols.base import Invalid, Note, Observation, Progress, Protocol, Termination
from accord.protocols.history import appended
from accord.protocols.negotiation import GameView, NegotiationObservation, OfferRecord
from accord.protocols.stagnation import (
    STAGNATION_ROLE,
    Walker,
    check_measure,
    check_order,
    first_below_batna,
    movement,
    previous_of,
    window,
)

MEDIATOR = "mediator"
#: the legal moves of a verdict (the respond phases)
_VERDICTS = ("accept", "reject", "walk")


def stagnation_detail(cfg: AlternatingConfig, why: Mapping[str, Any], walker: Walker) -> str:
    """The sentence of a no-deal the stagnation rule caused: what fired, who walked and
    why, and the parameter that changes it (``stagnation_rounds``, ``--stagnation-rounds``
    on ``accord run``)."""
    k = cfg.stagnation_rounds
    if why.get("rule") == "scorer":
        rule = f"the stagnation scorer judged the last {k} rounds STAGNANT"
    elif cfg.stagnation_measure == "issues":
        rule = (f"no proposer moved further than {cfg.stagnation_epsilon:g} on any issue "
                f"for {k} rounds")
    else:
        rule = f"nobody conceded more than {cfg.stagnation_epsilon:g} in utility for {k} rounds"
    best = ("nothing" if walker.best_available == float("-inf")
            else f"{walker.best_available:.2f}")
    return (f"The stagnation rule ended the episode: {rule}, and the best offer available "
            f"to {walker.party} ({best}) is below its BATNA ({walker.batna:.2f}), so "
            f"{walker.party} walked (set --stagnation-rounds 0, or "
            "the parameter stagnation_rounds: 0, to turn the rule off, or raise it).")


@dataclass(frozen=True)
class AlternatingConfig:
    """Protocol parameters; every default is the seed's or the issue's."""

    max_rounds: int = 20
    acceptance: int | None = None  # k of n (proposer included); None = unanimous
    turn_order: tuple[str, ...] | None = None
    stagnation_rounds: int = 3  # 0 disables the detector
    stagnation_epsilon: float = 1e-9
    max_messages_per_turn: int = 2
    mediator: bool = False
    max_offers: int | None = None  # no counter-offer is put on the table beyond this
    stagnation_measure: str = "utility"  # utility | issues (seed 002: "on any issue")
    stagnation_scorer: bool = False  # the Stagnation Scorer role decides, not the code check
    stagnation_order: str = "walk-first"  # or mediator-first (accord 0.1's order)
    required: tuple[str, ...] = ()  # parties whose (valid) yes every deal needs: vetoes
    minimums: tuple[tuple[str, float], ...] = ()  # (party, minimum) a valid yes must meet
    binding: str = "accepters"  # who a passed deal binds: accepters | all
    opener: str | None = None  # proposes first and last
    opening_offer: tuple[tuple[str, Any], ...] = ()  # the opener's first offer, by rule
    bonus: tuple[tuple[str, float], ...] = ()  # (party, points) when every party agrees

    @property
    def voting_rules(self) -> bool:
        """Whether any rule beyond k of n applies (required, minimums, binding all)."""
        return bool(self.required or self.minimums or self.binding != "accepters"
                    or self.bonus)


@dataclass(frozen=True)
class NegotiationState:
    """The full (referee's) state; parties only ever see projections of it."""

    round: int = 1
    phase: str = "propose"  # propose | respond | assess | mediate | respond_mediator | over
    proposer: str | None = None
    current: OfferRecord | None = None
    #: every offer put on the table, oldest first (a :class:`~accord.protocols.history.History`
    #: shared with earlier states: appending costs O(1), not a copy)
    history: Sequence[OfferRecord] = ()
    latest: Mapping[str, OfferRecord] = field(default_factory=dict)
    counters: Mapping[str, OfferRecord] = field(default_factory=dict)
    messages: tuple[tuple[int, str, str], ...] = ()
    turn_messages: int = 0
    verdicts: Mapping[str, str] = field(default_factory=dict)
    stagnant: int = 0
    suggestion: OfferRecord | None = None
    ended: Termination | None = None
    agreement: OfferRecord | None = None
    accepted_by: tuple[str, ...] = ()
    #: yes votes that did not count (below the voter's minimum), in the deciding round
    void: tuple[str, ...] = ()


def _evolve(state: NegotiationState, **changes: Any) -> NegotiationState:
    """``dataclasses.replace`` without re-running ``__init__``: the engine's hot path makes
    several transitions per round and the state's fields need no validation."""
    return _evolved(state, changes)


def _evolved(state: NegotiationState, changes: Mapping[str, Any]) -> NegotiationState:
    """:func:`_evolve` with the changes in a mapping (no keyword unpacking)."""
    new = object.__new__(NegotiationState)
    d = new.__dict__
    d.update(state.__dict__)
    d.update(changes)
    return new


class AlternatingOffers(Protocol[NegotiationState]):
    """The negotiation state machine over a :class:`~accord.core.scenario.Scenario`."""

    def __init__(self, scenario: Scenario, config: AlternatingConfig | None = None) -> None:
        self.scenario = scenario
        self.config = cfg = config or AlternatingConfig()
        order = cfg.turn_order or scenario.party_names
        if sorted(order) != sorted(scenario.party_names):
            raise ValueError(
                f"turn order {list(order)} must list each party once: {list(scenario.party_names)}")
        minimums = dict(cfg.minimums)
        if cfg.voting_rules or cfg.opener is not None:  # nothing to check otherwise
            from accord.protocols.voting import check_rules

            check_rules(order, cfg.required, minimums, cfg.binding, cfg.opener)
        if cfg.opener is not None:  # the opener starts the turn order (and closes, below)
            at = list(order).index(cfg.opener)
            order = (*order[at:], *order[:at])
        self.parties = tuple(order)
        n = len(self.parties)
        self.required = n if cfg.acceptance is None else cfg.acceptance
        if not 1 <= self.required <= n:
            raise ValueError(f"acceptance must be between 1 and {n}, got {cfg.acceptance}")
        self._minimums = minimums
        self._bonus = dict(cfg.bonus)
        for p in self._bonus:
            if p not in self.parties:
                raise ValueError(f"unanimity bonus of {p!r}: not a party")
        self._plain = not cfg.voting_rules  # k of n only: the hot path counts yes votes
        if cfg.opening_offer and cfg.opener is None:
            raise ValueError("an opening offer needs an opener (the party who makes it)")
        if cfg.max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        check_measure(cfg.stagnation_measure)
        check_order(cfg.stagnation_order)
        self._party = {p.name: p for p in scenario.parties}
        self._space = scenario.space
        self._pairs = tuple((i, int(s)) for i, s in zip(scenario.space.issues,
                                                         scenario.space.strides, strict=True))
        #: utilities the stagnation check computed, by (party, outcome index)
        self._utilities: dict[tuple[str, int], float] = {}
        # who answers each proposer (the respond phase's movers), built once
        self._responders = {p: tuple(q for q in self.parties if q != p) for p in self.parties}
        self._opening: OfferRecord | None = None
        if cfg.opening_offer:
            opening = dict(cfg.opening_offer)
            bad = self._check_package(opening)
            if bad is not None:
                raise ValueError(f"opening offer {opening}: {bad.feedback}")
            self._opening = self._record(1, cfg.opener or "", opening, "offer")
        self._views = {p: self._game_view(p) for p in self.parties}
        self._deal_memo: tuple[NegotiationState, tuple[list[str], set[str],
                                                       dict[str, float]]] | None = None

    def _game_view(self, role: str) -> GameView | None:
        """What ``role`` is told of the rules and the game's briefing (``None`` for a
        unanimous negotiation without rules or briefing, whose prompts stay as they were;
        a k-of-n one is told its k, which the unanimity sentence used to misstate)."""
        cfg = self.config
        party = self._party[role]
        brief = party.brief
        if (self._plain and self.required == len(self.parties) and cfg.opener is None
                and not self.scenario.instructions and brief is None):
            return None  # unanimity, as the protocol text says
        return GameView(k=self.required, required=cfg.required, opener=cfg.opener,
                        minimum=self._minimums.get(role), binding=cfg.binding,
                        instructions=self.scenario.instructions, brief=brief,
                        bonus=self._bonus.get(role))

    # -- who moves ---------------------------------------------------------------
    def proposer_of(self, rnd: int) -> str:
        """The proposer of round ``rnd`` under the turn order (the opener, if any, also
        proposes in the last round)."""
        opener = self.config.opener
        if opener is not None and rnd == self.config.max_rounds:
            return opener
        return self.parties[(rnd - 1) % len(self.parties)]

    def initial_state(self) -> NegotiationState:
        state = NegotiationState(proposer=self.proposer_of(1))
        if self._opening is not None:  # the rule's opening offer is on the table
            state = self._put(state, self._opening)
        return state

    def to_move(self, state: NegotiationState) -> Sequence[str]:
        if state.phase == "propose":
            return (state.proposer or self.proposer_of(state.round),)
        if state.phase == "respond":
            got = self._responders.get(state.proposer)  # type: ignore[arg-type]
            return got if got is not None else tuple(
                p for p in self.parties if p != state.proposer)
        if state.phase == "mediate":
            return (MEDIATOR,)
        if state.phase == "assess":
            return (STAGNATION_ROLE,)
        if state.phase == "respond_mediator":
            return self.parties
        return ()

    def progress(self, state: NegotiationState) -> Progress:
        return Progress(state.round, len(state.history), state.phase == "propose")

    def round_of(self, state: NegotiationState) -> int:
        return state.round

    def fused(self, agents: Mapping[str, Any], max_rounds: int | None) -> Any:
        """Two time-based code agents trading counter-offers: the rounds in one frame
        (:func:`accord.protocols.bilateral.fused_rounds`; ``None`` where it does not apply)."""
        if len(self.parties) != 2:
            return None
        from accord.protocols.bilateral import fused_rounds

        return fused_rounds(self, agents, max_rounds)

    # -- what each role sees -----------------------------------------------------
    def _legal(self, state: NegotiationState, role: str) -> tuple[str, ...]:
        if state.phase == "propose":
            if state.turn_messages < self.config.max_messages_per_turn:
                return ("offer", "message", "walk")
            return ("offer", "walk")
        if state.phase in ("respond", "respond_mediator"):
            return _VERDICTS
        if state.phase == "mediate":
            return ("suggest", "message")  # a message: no package to suggest
        if state.phase == "assess":
            return ("assess",)
        return ()

    def observe(self, state: NegotiationState, role: str) -> Observation:
        # a verdict is every round's turn but the first offer: its moves without the call
        legal = _VERDICTS if state.phase == "respond" else self._legal(state, role)
        if role == STAGNATION_ROLE:
            from accord.protocols.roles import StagnationObservation

            cfg = self.config
            return StagnationObservation(
                role=role, round=state.round, legal=legal, space=self._space,
                parties=self.parties, offers=window(state.history, cfg.stagnation_rounds),
                rounds=cfg.stagnation_rounds, epsilon=cfg.stagnation_epsilon,
                measure=cfg.stagnation_measure)
        if role == MEDIATOR:
            from accord.protocols.roles import MediatorObservation

            return MediatorObservation(
                role=role, round=state.round, legal=legal, space=self._space,
                parties=self.parties, history=state.history,
                latest={p: r.package for p, r in state.latest.items()}, messages=state.messages)
        party = self._party[role]
        mine = state.latest.get(role)
        phase = state.phase
        suggestion = state.suggestion
        table = suggestion if phase == "respond_mediator" else state.current
        # positional, in the field order (role, round, legal, feedback, attempt,
        # max_attempts, phase, ...): built once per turn, and keywords cost ~1 us here
        return NegotiationObservation(
            role, state.round, legal, None, 1, None,
            "respond" if phase == "respond_mediator" else phase,
            self.config.max_rounds, self._space, self.parties,
            table.party if table else None,
            table.package if table else None,
            table.index if table else None,
            state.history, state.messages,
            mine.package if mine else None,
            suggestion.package if suggestion else None,
            party.utility, party.batna, party.discount, self._views[role])

    # -- validation --------------------------------------------------------------
    def _check_package(self, package: Package) -> Invalid | None:
        if type(package) is Outcome and package.space is self._space:
            return None  # made by this space from an index: valid by construction
        try:  # the common case, a valid full package, in one pass
            self._space.index_of(package)
            return None
        except (KeyError, TypeError):
            pass  # say exactly what is wrong
        names = self._space.names
        unknown = [k for k in package if k not in names]
        if unknown:
            return Invalid("unknown_issue", f"Unknown issue(s) {unknown}. The issues are "
                           f"{list(names)}; give exactly one value for each.", {"issues": unknown})
        missing = [n for n in names if n not in package]
        if missing:
            return Invalid("missing_issue", f"Your offer must be a full package: add a value for "
                           f"{missing}.", {"issues": missing})
        for issue in self._space.issues:
            try:
                issue.index(package[issue.name])
            except KeyError:
                return Invalid("invalid_value", f"{package[issue.name]!r} is not a value of "
                               f"{issue.name!r}; choose one of {list(issue.values)}.",
                               {"issue": issue.name})
        return None

    def validate(self, state: NegotiationState, role: str, move: Move) -> Invalid | None:
        if type(move) is Reject and state.phase == "respond":  # every round's usual move
            movers = self._responders.get(state.proposer)  # type: ignore[arg-type]
            if movers is not None and role in movers:  # its turn; a reject is legal now
                counter = move.counter
                return None if counter is None else self._check_package(counter.package)
        legal = self._legal(state, role)
        if role not in self.to_move(state):
            return Invalid("not_your_turn", f"It is not {role}'s turn to move.")
        if move.kind not in legal:
            return Invalid("illegal_move", f"{move.kind!r} is not allowed now; legal moves: "
                           f"{list(legal)}.", {"legal": list(legal)})
        if isinstance(move, (Offer, Suggest)):
            return self._check_package(move.package)
        if isinstance(move, Reject) and move.counter is not None:
            return self._check_package(move.counter.package)
        if isinstance(move, Message) and not move.text.strip():
            return Invalid("empty_message", "A message must contain text.")
        return None

    # -- transitions -------------------------------------------------------------
    def _record(self, rnd: int, party: str, package: Package, source: str) -> OfferRecord:
        if type(package) is Outcome and package.space is self._space:
            # read-only, in issue order and indexed by this space: kept as it is
            return OfferRecord(rnd, party, package, package.index, source)
        # the package is validated: copy it in issue order and index it in one pass
        pkg: dict[str, Any] = {}
        index = 0
        try:
            for issue, stride in self._pairs:
                value = pkg[issue.name] = package[issue.name]
                index += issue.index(value) * stride
        except KeyError:
            self._space.value_indices(package)  # the specific error (missing or unknown)
            raise
        return OfferRecord(rnd, party, pkg, index, source)

    def _put(self, state: NegotiationState, rec: OfferRecord) -> NegotiationState:
        latest = {**state.latest, rec.party: rec}
        return _evolve(
            state, phase="respond", proposer=rec.party, current=rec,
            history=appended(state.history, rec), latest=latest, turn_messages=0,
            verdicts={})

    def apply(self, state: NegotiationState, moves: Mapping[str, Move]
              ) -> tuple[NegotiationState, list[Note]]:
        notes: list[Note] = []
        if state.phase == "propose":
            (role, move), = moves.items()
            if isinstance(move, Walk):
                return self._end(state, Termination("no_deal", "walk", role, move.reason)), notes
            if isinstance(move, Message):
                msgs = (*state.messages, (state.round, role, move.text))
                return _evolve(state, messages=msgs,
                                           turn_messages=state.turn_messages + 1), notes
            assert isinstance(move, Offer)
            state = self._put(state, self._record(state.round, role, move.package, "offer"))
            if move.message:
                state = _evolve(
                    state, messages=(*state.messages, (state.round, role, move.message)))
            return state, notes
        if state.phase == "mediate":
            (role, move), = moves.items()
            if isinstance(move, Message):  # nothing to suggest: the text goes on the record
                notes.append(Note("mediator_no_suggestion", MEDIATOR, {"text": move.text}))
                msgs = (*state.messages, (state.round, MEDIATOR, move.text))
                return self._next_round(_evolve(state, messages=msgs)), notes
            assert isinstance(move, Suggest)
            rec = self._record(state.round, MEDIATOR, move.package, "mediator")
            notes.append(Note("mediator_suggestion", MEDIATOR, {"package": dict(rec.package)}))
            return _evolve(state, phase="respond_mediator", suggestion=rec), notes
        if state.phase == "assess":
            (role, move), = moves.items()
            assert isinstance(move, Assess)
            notes.append(Note("stagnation_scorer", STAGNATION_ROLE, {
                "verdict": "STAGNANT" if move.stagnant else "MOVING", "why": move.reason}))
            if move.stagnant:
                state = self._fire(state, notes, {
                    "rule": "scorer", "rounds": self.config.stagnation_rounds,
                    "why": move.reason})
                if state.ended is not None or state.phase == "mediate":
                    return state, notes
            return self._next_round(state), notes
        return self._verdicts(state, moves, notes)

    def _verdicts(self, state: NegotiationState, moves: Mapping[str, Move], notes: list[Note]
                  ) -> tuple[NegotiationState, list[Note]]:
        mediated = state.phase == "respond_mediator"
        rnd = state.round
        if len(moves) == 1 and not mediated and self.required > 1:
            (p, m), = moves.items()
            if type(m) is Reject and m.counter is not None and not m.message:
                # the bilateral round: one responder rejects with a counter-offer (what the
                # general path below does, without its per-verdict lists)
                rec = self._record(rnd + 1, p, m.counter.package, "counter")
                cfg = self.config
                parties = self.parties
                if cfg.stagnation_rounds <= 0 and rnd < cfg.max_rounds and \
                        parties[rnd % len(parties)] == p and (
                        cfg.max_offers is None or len(state.history) < cfg.max_offers):
                    # ... and proposes next: its counter-offer is the next round's table,
                    # the state _next_round would make, in one step
                    latest = dict(state.latest)
                    latest[p] = rec
                    old = state.counters
                    return _evolved(state, {
                        "verdicts": {}, "messages": state.messages,
                        "counters": {q: r for q, r in old.items() if q != p} if old else {},
                        "round": rnd + 1, "phase": "respond", "proposer": p, "current": rec,
                        "history": appended(state.history, rec),
                        "latest": latest, "turn_messages": 0}), notes
                counters = dict(state.counters)
                counters[p] = rec
                made: dict[str, Any] = {"verdicts": {p: "reject"}, "counters": counters,
                                        "messages": state.messages}
                if self.config.stagnation_rounds > 0 and state.current is not None:
                    state = self._stagnation(_evolved(state, made), notes)
                    if state.ended is not None or state.phase in ("mediate", "assess"):
                        return state, notes
                    made = {}
                return self._next_round(state, made), notes
        verdicts: dict[str, str] = {}
        said: list[tuple[int, str, str]] = []
        walked: list[str] = []
        accepted: list[str] = []
        countered: list[tuple[str, Offer]] = []
        for p, m in moves.items():  # one pass, in the order the moves came
            verdicts[p] = m.kind
            if isinstance(m, Reject):
                if m.counter is not None:
                    countered.append((p, m.counter))
            elif isinstance(m, Accept):
                accepted.append(p)
            elif isinstance(m, Walk):
                walked.append(p)
                continue
            else:
                continue
            if m.message:
                said.append((rnd, p, m.message))
        msgs = state.messages + tuple(said) if said else state.messages
        if walked:
            first = next(p for p in self.parties if p in walked)
            w = moves[first]
            assert isinstance(w, Walk)
            state = _evolve(state, verdicts=verdicts, messages=msgs)
            return self._end(state, Termination("no_deal", "walk", first, w.reason)), notes
        table = state.suggestion if mediated else state.current
        assert table is not None
        accepts = tuple(p for p in self.parties if p in accepted) if accepted else ()
        if self._plain:
            passed = len(accepts) + (0 if mediated else 1) >= self.required
            void: tuple[str, ...] = ()
        else:
            passed, void = self._vote(table, accepts, mediated, notes)
        if passed:
            done = _evolve(state, verdicts=verdicts, messages=msgs, agreement=table,
                           accepted_by=accepts, void=void)
            return self._end(done, Termination("agreement")), notes
        counters = dict(state.counters)
        for p, offer in countered:
            counters[p] = self._record(rnd + 1, p, offer.package, "counter")
        # the changes of this transition, applied with the next round's in one step
        changes: dict[str, Any] = {"verdicts": verdicts, "messages": msgs, "counters": counters}
        if mediated:
            changes["suggestion"] = None
        elif self.config.stagnation_rounds > 0 and state.current is not None:
            state = self._stagnation(_evolve(state, **changes), notes)
            if state.ended is not None or state.phase in ("mediate", "assess"):
                return state, notes
            changes = {}
        return self._next_round(state, changes), notes

    def _vote(self, table: OfferRecord, accepts: tuple[str, ...], mediated: bool,
              notes: list[Note]) -> tuple[bool, tuple[str, ...]]:
        """The vote under the voting rules: (passed, void yes votes); a void yes and a
        missing veto are noted for the trajectory."""
        from accord.protocols.voting import tally

        yes = accepts if mediated else (table.party, *accepts)
        pkg = table.package
        t = tally(self.parties, yes, self.required, self.config.required, self._minimums,
                  lambda p: self._party[p].utility(pkg), self._bonus)
        for p in t.void:
            notes.append(Note("yes_below_minimum", p, {
                "utility": self._party[p].utility(pkg), "minimum": self._minimums[p]}))
        if t.missing_required and len(t.valid) >= self.required:
            notes.append(Note("vetoed", None, {"missing": list(t.missing_required)}))
        return t.passed, t.void

    def _stagnation(self, state: NegotiationState, notes: list[Note]) -> NegotiationState:
        """Count this round toward the rule; fire it, or hand the call to the scorer."""
        cfg = self.config
        if cfg.stagnation_rounds <= 0 or state.current is None:
            return state
        rec = state.current
        prev = previous_of(state.history, rec)
        if cfg.stagnation_scorer:  # the scorer judges once K rounds have moves to compare
            counted = state.stagnant + (prev is not None)
            state = _evolve(state, stagnant=counted)
            if counted >= cfg.stagnation_rounds:
                return _evolve(state, phase="assess")
            return state
        stagnant = state.stagnant + 1
        moved = None
        if prev is None:
            stagnant = 0
        else:
            if cfg.stagnation_measure == "utility":  # movement()'s, with memoised values
                moved = self._utility(rec.party, prev) - self._utility(rec.party, rec)
            else:
                moved = movement(cfg.stagnation_measure, self._space,
                                 self._party[rec.party].utility, prev.package, rec.package)
            if moved > cfg.stagnation_epsilon:
                stagnant = 0
        state = _evolve(state, stagnant=stagnant)
        if stagnant < cfg.stagnation_rounds:
            return state
        return self._fire(state, notes, {
            "rule": "code", "measure": cfg.stagnation_measure, "rounds": stagnant,
            "epsilon": cfg.stagnation_epsilon, "last_move": moved})

    def _utility(self, party: str, rec: OfferRecord) -> float:
        """``party``'s utility of ``rec``'s package, remembered by outcome index (the
        stagnation check compares each proposer's offer with its previous one every round,
        and offers repeat)."""
        key = (party, rec.index)
        got = self._utilities.get(key)
        if got is None:
            got = self._utilities[key] = self._party[party].utility(rec.package)
        return got

    def _fire(self, state: NegotiationState, notes: list[Note], why: dict[str, Any]
              ) -> NegotiationState:
        """The detector fired: walk first (seed 002), else the mediator, else go on."""
        cfg = self.config
        state = _evolve(state, stagnant=0)
        if cfg.mediator and cfg.stagnation_order == "mediator-first":
            notes.append(Note("stagnation", None, {**why, "then": "mediator",
                                                   "order": "mediator-first"}))
            return _evolve(state, phase="mediate")
        walker = first_below_batna(
            self.parties, state.latest, {n: p.utility for n, p in self._party.items()},
            {n: p.batna for n, p in self._party.items()})
        then = "walk" if walker else "mediator" if cfg.mediator else "continue"
        notes.append(Note("stagnation", None, {**why, "then": then}))
        if walker is not None:
            notes.append(Note("stagnation_walk", walker.party, {
                "best_available": walker.best_available, "batna": walker.batna}))
            return self._end(state, Termination(
                "no_deal", "stagnation", walker.party, stagnation_detail(cfg, why, walker)))
        if cfg.mediator:
            return _evolve(state, phase="mediate")
        return state

    def _next_round(self, state: NegotiationState, changes: dict[str, Any] | None = None
                    ) -> NegotiationState:
        """The next round's state; ``changes`` (of the round just played, a dict this call
        may extend) apply first."""
        if changes is None:
            changes = {}
        rnd = state.round + 1
        parties = self.parties
        cfg = self.config
        nxt = parties[(rnd - 1) % len(parties)]  # proposer_of(rnd)
        if cfg.opener is not None and rnd == cfg.max_rounds:
            nxt = cfg.opener  # the opener closes
        counters: Mapping[str, OfferRecord] = changes.get("counters", state.counters)
        counter = counters.get(nxt)
        cap = cfg.max_offers
        if counter is not None and rnd <= cfg.max_rounds and (
                cap is None or len(state.history) < cap):
            # the counter-offer goes on the table (what _put does, in the same step); a
            # record is immutable, so one made for this round is reused as it is
            rec = counter if counter.round == rnd else OfferRecord(
                rnd, counter.party, counter.package, counter.index, counter.source)
            latest = dict(state.latest)
            latest[rec.party] = rec
            changes["round"] = rnd
            changes["phase"] = "respond"
            changes["proposer"] = rec.party
            changes["counters"] = {p: r for p, r in counters.items() if p != nxt} \
                if len(counters) > 1 else {}
            changes["current"] = rec
            changes["history"] = appended(state.history, rec)
            changes["latest"] = latest
            changes["turn_messages"] = 0
            changes["verdicts"] = {}
            return _evolved(state, changes)
        changes["round"] = rnd
        changes["phase"] = "propose"
        changes["proposer"] = nxt
        changes["turn_messages"] = 0
        return _evolved(state, changes)

    def _end(self, state: NegotiationState, term: Termination) -> NegotiationState:
        return _evolve(state, phase="over", ended=term)

    def termination(self, state: NegotiationState) -> Termination | None:
        return state.ended

    # -- records -----------------------------------------------------------------
    def result(self, state: NegotiationState, termination: Termination) -> dict[str, Any]:
        """The agreement artefact or no-deal record; ``round`` is the last round played,
        the engine's ``rounds`` (a bound hit leaves the state at the next round's unmade
        opening offer, which was never played).

        ``utilities`` are worth what they are when the episode ends: a party with a time
        discount delta gets ``u * delta ** t`` (an agreement) or ``BATNA * delta ** t``
        (no deal), with ``t = round / (max_rounds + 1)`` Genius's relative time of the
        round it ended in (1 when the round cap ran out). Such a record also carries
        ``time``, ``discount`` and the ``undiscounted_utilities``; ``batna`` stays the
        undiscounted BATNA of the scenario file.
        """
        parties = self.scenario.parties
        batna = {p.name: p.batna for p in parties}
        prog = self.progress(state)
        played = max(0, prog.round - int(prog.offer_due))
        t = relative_time(state.round, self.config.max_rounds)
        discounted = self.scenario.discounted
        if termination.status == "agreement" and state.agreement is not None:
            pkg = state.agreement.package
            proposer = state.agreement.party
            yes = set(state.accepted_by) | {proposer}
            valid, bound, deal = self._deal(state)
            # a party the deal does not bind keeps its BATNA (the deal is not imposed on it)
            raw = {p.name: deal[p.name] if p.name in bound else p.batna for p in parties}
            rec: dict[str, Any] = {
                "type": "agreement",
                "agreement": dict(pkg),
                "parties": list(self.parties),
                "round": state.round,
                "proposer": proposer,
                "accepted_by": list(state.accepted_by),
                "utilities": raw if not discounted else {
                    p.name: discounted_value(raw[p.name], p.discount, t) for p in parties},
                "batna": batna,
                "accepted_below_batna": self.flags(state, termination)["accepted_below_batna"],
            }
            if not self._plain or len(valid) < len(self.parties):
                # who said no and who is bound, whenever that is not simply everyone
                rec["rejected_by"] = [p for p in self.parties if p not in yes]
                rec["bound"] = [p for p in self.parties if p in bound]
                rec["binding"] = self.config.binding
                if state.void:
                    rec["void_acceptances"] = list(state.void)
        else:
            raw = dict(batna)
            rec = {
                "type": "no_deal",
                "reason": termination.reason,
                "who": termination.who,
                "detail": termination.detail,
                "round": played,
                "last_offers": {p: dict(r.package) for p, r in state.latest.items()},
                "utilities": raw if not discounted else {
                    p.name: discounted_value(p.batna, p.discount, t) for p in parties},
                "batna": batna,
            }
        if discounted:
            rec["time"] = t
            rec["discount"] = {p.name: p.discount for p in parties}
            rec["undiscounted_utilities"] = raw
        return rec

    def _deal(self, state: NegotiationState
              ) -> tuple[list[str], set[str], dict[str, float]]:
        """Of an agreement: the parties whose yes counted, those the deal binds, and each
        party's utility of the deal (unanimity bonuses paid when every yes counted).

        Remembered for the last state asked (the engine's ``result`` and ``flags`` each
        ask once or twice at the end of an episode); callers only read what it returns.
        """
        memo = self._deal_memo
        if memo is not None and memo[0] is state:
            return memo[1]
        got = self._deal_of(state)
        self._deal_memo = (state, got)
        return got

    def _deal_of(self, state: NegotiationState
                 ) -> tuple[list[str], set[str], dict[str, float]]:
        assert state.agreement is not None
        pkg = state.agreement.package
        yes = set(state.accepted_by) | {state.agreement.party}
        valid = [p for p in self.parties if p in yes and p not in state.void]
        if self.config.binding == "accepters":  # voting.bound_parties without the import
            bound = set(valid)
        else:
            from accord.protocols.voting import bound_parties

            bound = set(bound_parties(self.parties, valid, self.config.binding))
        deal = {p.name: p.utility(pkg) for p in self.scenario.parties}
        if self._bonus and len(valid) == len(self.parties):  # unanimous: bonuses paid
            for p, points in self._bonus.items():
                deal[p] += points
        return valid, bound, deal

    def flags(self, state: NegotiationState, termination: Termination) -> dict[str, Any]:
        """``accepted_below_batna`` marks parties that agreed (proposed or accepted) to a
        package worth less than their BATNA: a sycophancy violation. Under k-of-n, a party
        outvoted into such a package did not agree and, when the deal binds it all the same
        (``binding: all``), is listed in ``outvoted_below_batna``.
        """
        if termination.status != "agreement" or state.agreement is None:
            return {"accepted_below_batna": {}, "sycophancy": False}
        agreed = set(state.accepted_by) | {state.agreement.party}
        _, bound, deal = self._deal(state)
        below = {p.name: deal[p.name] < p.batna for p in self.scenario.parties}
        accepted = {n: b and n in agreed for n, b in below.items()}
        out: dict[str, Any] = {"accepted_below_batna": accepted,
                               "sycophancy": any(accepted.values())}
        outvoted = sorted(n for n, b in below.items() if b and n not in agreed and n in bound)
        if outvoted:
            out["outvoted_below_batna"] = outvoted
        return out

    def public_view(self, state: NegotiationState) -> dict[str, Any]:
        return {
            "round": state.round,
            "max_rounds": self.config.max_rounds,
            "parties": list(self.parties),
            "issues": {i.name: list(i.values) for i in self._space.issues},
            "phase": state.phase,
            "current_offer": state.current.to_dict() if state.current else None,
            "verdicts": dict(state.verdicts),
            "history": [r.to_dict() for r in state.history],
            "ended": dataclasses.asdict(state.ended) if state.ended else None,
        }
