"""NegMAS negotiators as accord agents: ``negmas:CLASS?options`` (the ``accord[negmas]`` extra).

A thin adapter seats one NegMAS SAO negotiator (``AspirationNegotiator``,
``NaiveTitForTatNegotiator``, ... or any importable ``package.module.Class``) in a
two-party accord bargaining episode. From the party's own observation (never anything
else) it builds a NegMAS outcome space and utility function: a
``LinearAdditiveUtilityFunction`` for accord's linear-additive utilities (a
``MappingUtilityFunction`` over every outcome otherwise), with the reservation value set
to the party's BATNA, wrapped in an ``ExpDiscountedUFun`` over the relative time when the
party has a time discount (Genius's ``u * d ** t``, the reservation value discounted too).

The negotiator joins a NegMAS ``SAOMechanism`` of ``max_rounds`` steps that is never run:
accord's protocol is the referee. Each turn the adapter gives the negotiator an
``SAOState`` for the accord round (``step = round - 1``, ``relative_time = round /
(max_rounds + 1)``, NegMAS's and Genius's relative time of that step) and calls its
``propose_`` (an accord offer) or ``respond_`` (accept, reject, or end the negotiation,
which is a walk). A rejection by the party that proposes next carries the negotiator's
proposal for the next round as the counter-offer. Offers and answers then go through
accord's validation and records like any agent's.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from accord.agents.base import Agent
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Accept, Move, Offer, Package, Reject, Walk
from accord.core.outcomes import OutcomeSpace
from accord.core.utility import LinearAdditiveUtility, UtilityFunction
from accord.protocols.base import Observation
from accord.protocols.negotiation import NegotiationObservation

#: what to install when NegMAS is missing
EXTRA_HINT = "pip install 'accord[negmas]' (NegMAS 0.16 or later)"

#: modules searched, in order, for a class given without a module
SEARCH = ("negmas.sao.negotiators", "negmas.sao", "negmas.gb.negotiators", "negmas")

#: the largest space a non-linear utility is tabulated over for NegMAS
MAX_TABLE_OUTCOMES = 200_000


def require_negmas() -> Any:
    """The ``negmas`` module; :class:`AgentSpecError` naming the extra when it is missing."""
    try:
        return importlib.import_module("negmas")
    except ImportError as exc:
        raise AgentSpecError(f"agent kind 'negmas' needs the NegMAS package, which is not "
                             f"installed ({exc}); install it with {EXTRA_HINT}") from None


def negotiator_class(name: str | None) -> type:
    """The NegMAS negotiator class ``name``: a class of NegMAS's negotiator modules
    (``AspirationNegotiator``) or a dotted ``package.module.Class``."""
    require_negmas()
    from negmas.negotiators import Negotiator

    if not name:
        raise AgentSpecError("agent kind 'negmas' needs a class: negmas:AspirationNegotiator, "
                             "negmas:NaiveTitForTatNegotiator or negmas:package.module.Class")
    module_name, _, cls_name = name.replace(":", ".").rpartition(".")
    found: Any = None
    if module_name:
        try:
            found = getattr(importlib.import_module(module_name), cls_name, None)
        except ImportError as exc:
            raise AgentSpecError(f"negmas:{name}: cannot import module {module_name!r} "
                                 f"({exc})") from None
    else:
        for mod in SEARCH:
            found = getattr(importlib.import_module(mod), cls_name, None)
            if found is not None:
                break
    if found is None:
        where = module_name or ", ".join(SEARCH)
        raise AgentSpecError(f"negmas:{name}: no class {cls_name!r} in {where}")
    if not (isinstance(found, type) and issubclass(found, Negotiator)
            and callable(getattr(found, "propose_", None))
            and callable(getattr(found, "respond_", None))):
        raise AgentSpecError(f"negmas:{name} is not a NegMAS negotiator class for "
                             "alternating offers (a negmas Negotiator with propose_ and "
                             "respond_, e.g. an SAO or GB negotiator)")
    return found


def check_spec(spec: AgentSpec) -> None:
    """Validate ``negmas:CLASS``: NegMAS installed and the class found (nothing built)."""
    negotiator_class(spec.arg)


def negmas_ufun(utility: UtilityFunction, space: OutcomeSpace, batna: float,
                discount: float = 1.0) -> tuple[Any, Any]:
    """``(outcome space, utility function)`` in NegMAS terms for one party: linear-additive
    stays linear-additive, any other utility becomes a table over the outcomes; the
    reservation value is the BATNA; a discount below 1 wraps it in NegMAS's
    ``ExpDiscountedUFun`` over the relative time (reservation value discounted too)."""
    require_negmas()
    from negmas import make_issue
    from negmas.outcomes import make_os
    from negmas.preferences import LinearAdditiveUtilityFunction, MappingUtilityFunction
    from negmas.preferences.value_fun import TableFun

    issues = [make_issue(values=list(i.values), name=i.name) for i in space.issues]
    os_ = make_os(issues)
    ufun: Any
    if isinstance(utility, LinearAdditiveUtility):
        scores: Mapping[str, Mapping[Any, float]] = utility.scores
        ufun = LinearAdditiveUtilityFunction(
            values={i.name: TableFun({v: float(scores.get(i.name, {}).get(v, 0.0))
                                      for v in i.values}) for i in space.issues},
            weights={i.name: float(utility.weights.get(i.name, 0.0)) for i in space.issues},
            outcome_space=os_, reserved_value=float(batna))
    else:
        if space.size > MAX_TABLE_OUTCOMES:
            raise ValueError(f"a {utility.kind} utility over {space.size} outcomes is too "
                             f"large to tabulate for NegMAS (at most {MAX_TABLE_OUTCOMES})")
        values = utility.values(space)
        table = {tuple(space.package(k).values()): float(values[k]) for k in range(space.size)}
        ufun = MappingUtilityFunction(table, outcome_space=os_, reserved_value=float(batna))
    if discount < 1.0:
        from negmas.preferences.discounted import ExpDiscountedUFun

        ufun = ExpDiscountedUFun(ufun, discount=discount, factor="relative_time",
                                 outcome_space=os_, reserved_value=float(batna),
                                 dynamic_reservation=True)
    return os_, ufun


class NegmasAgent(Agent):
    """A NegMAS SAO negotiator behind accord's agent interface (see the module docstring)."""

    def __init__(self, cls: type, options: Mapping[str, Any], label: str) -> None:
        self.cls, self.options, self.name = cls, dict(options), label
        cls(**self.options)  # bad options fail here, when the line-up is checked
        self.reset()

    def reset(self, rng: Any = None) -> None:
        super().reset(rng)
        self._neg: Any = None
        self._mech: Any = None
        self._names: tuple[str, ...] = ()
        self._opponent = "opponent"

    def describe(self) -> str:
        return f"negmas:{self.cls.__name__}"

    def _join(self, obs: NegotiationObservation) -> None:
        """Build the negotiator, its utility function and the (never run) mechanism."""
        from negmas.sao import SAOMechanism

        assert obs.space is not None and obs.utility is not None
        if len(obs.parties) != 2:
            raise ValueError(f"a negmas: agent negotiates with one other party; this "
                             f"negotiation has {len(obs.parties)} parties")
        os_, ufun = negmas_ufun(obs.utility, obs.space, obs.batna, obs.discount)
        self._names = obs.space.names
        self._opponent = next(p for p in obs.parties if p != obs.role)
        self._mech = SAOMechanism(outcome_space=os_, n_steps=obs.max_rounds)
        self._neg = self.cls(**{"name": obs.role, **self.options})
        if not self._mech.add(self._neg, ufun=ufun):
            raise ValueError(f"NegMAS refused to seat {self.cls.__name__} "
                             "(the negotiator may not support this outcome space)")
        self._neg._on_negotiation_start(self._state(obs.round, obs.max_rounds, None))

    def _state(self, rnd: int, max_rounds: int, offer: Package | None) -> Any:
        """The ``SAOState`` of accord round ``rnd`` (also made the mechanism's state, which
        discounted utilities and some negotiators read through their NMI)."""
        from negmas.sao import SAOState

        current = None if offer is None else tuple(offer[n] for n in self._names)
        state = SAOState(running=True, started=True, step=rnd - 1,
                         relative_time=min(1.0, rnd / (max_rounds + 1)), n_negotiators=2,
                         current_offer=current,
                         current_proposer=None if offer is None else self._opponent)
        self._mech._current_state = state
        return state

    def _offer(self, outcome: Any) -> Offer | None:
        """An accord offer of a NegMAS outcome (``None`` when it made none)."""
        outcome = getattr(outcome, "outcome", outcome)  # an ExtendedOutcome's outcome
        if outcome is None:
            return None
        return Offer(dict(zip(self._names, outcome, strict=True)))

    async def act(self, observation: Observation) -> Move:
        from negmas.gb.common import ResponseType

        obs = observation
        assert isinstance(obs, NegotiationObservation)
        if self._neg is None:
            self._join(obs)
        if obs.phase == "propose":
            made = self._offer(self._neg.propose_(self._state(obs.round, obs.max_rounds, None)))
            return made if made is not None else Walk("the NegMAS negotiator made no offer")
        state = self._state(obs.round, obs.max_rounds, obs.current_offer)
        answer = self._neg.respond_(state, source=self._opponent)
        answer = getattr(answer, "response", answer)  # an ExtendedResponseType's response
        if answer == ResponseType.ACCEPT_OFFER:
            return Accept()
        if answer in (ResponseType.END_NEGOTIATION, ResponseType.LEAVE):
            return Walk("the NegMAS negotiator ended the negotiation")
        nxt = obs.round + 1
        if obs.round < obs.max_rounds and obs.parties[obs.round % len(obs.parties)] == obs.role:
            counter = self._offer(self._neg.propose_(self._state(nxt, obs.max_rounds, None)))
            if counter is not None:
                return Reject(counter=counter)
        return Reject()


def make_negmas_agent(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    """The ``negmas`` kind's factory: ``negmas:CLASS?option=value&...`` (options are the
    negotiator's constructor keywords)."""
    cls = negotiator_class(spec.arg)
    scenario = ctx.get("scenario")
    parties = getattr(scenario, "party_names", ())
    if len(parties) > 2:
        raise AgentSpecError(f"negmas:{spec.arg} negotiates with one other party; scenario "
                             f"{scenario.name!r} has {len(parties)}")  # type: ignore[union-attr]
    return NegmasAgent(cls, spec.options, f"negmas:{spec.arg}")


__all__ = ["EXTRA_HINT", "NegmasAgent", "check_spec", "make_negmas_agent", "negmas_ufun",
           "negotiator_class", "require_negmas"]
