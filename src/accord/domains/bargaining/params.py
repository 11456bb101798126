"""Episode parameters of bargaining: :class:`BargainingParams`, the one home of their defaults.

The protocol's defaults are :class:`~accord.protocols.alternating.AlternatingConfig`'s and
the engine's :class:`~accord.protocols.engine.Bounds`' (read from there, never repeated
here); the model adds what only the domain knows: the mediator, judge and Stagnation
Scorer specs and the scenario's outcome cap. ``accord run`` options, ``--param KEY=VALUE``
and a bench config's ``params`` are all read through it, so an unknown key or a wrong
value is refused by name (``accord bench`` points at the config line).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from accord.agents.spec import AgentSpec, parse_agent_spec
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.domains.params import DomainParams
from accord.protocols.alternating import AlternatingConfig
from accord.protocols.engine import Bounds
from accord.protocols.stagnation import MEASURES, ORDERS
from accord.protocols.voting import BINDINGS

_PROTOCOL = AlternatingConfig()
_BOUNDS = Bounds()

#: the default of ``judge``: the rule-based termination judge (seed 002)
DEFAULT_JUDGE = "rules"
#: the default of ``stagnation``: the code check (seed 002's detector), not a model
CODE_STAGNATION = "code"
#: K when the stagnation rule is on by default: seed 002's "reasonable starting point"
SEED_STAGNATION_ROUNDS = _PROTOCOL.stagnation_rounds
#: the value of ``stagnation_rounds`` that asks for the default rule (also ``None``)
AUTO = "auto"


@dataclass(frozen=True)
class StagnationSetting:
    """The stagnation rule an episode runs under: ``rounds`` (K, 0 = off), whether it was
    set explicitly, by the scenario's rules or chosen by the default rule (``rule``:
    ``explicit``, ``scenario`` or ``auto``), and
    ``why`` in one sentence - recorded in the episode's record so a reader knows which
    rule applied."""

    rounds: int
    rule: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        """The record's ``stagnation`` entry."""
        return {"rounds": self.rounds, "rule": self.rule, "why": self.why}


class AcceptanceRule(BaseModel):
    """``acceptance: {k: 5, required: [p1, p2]}``: ``k`` yes votes (the proposer's offer
    counts as its own; default every party) including each ``required`` party (a veto)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    k: int | None = Field(None, ge=1)
    required: tuple[str, ...] = ()


#: a finite number (a minimum or a bonus)
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _acceptance(value: object) -> object:
    """An ``acceptance`` mapping read with errors that name the key (pydantic's union
    errors would report the int branch first)."""
    if not isinstance(value, Mapping):
        return value
    bad = [k for k in value if k not in ("k", "required")]
    if bad:
        raise ValueError(f"unknown key {bad[0]!r} in acceptance (known: k, required)")
    k = value.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"acceptance k must be a positive integer, got {k!r}")
    req = value.get("required", [])
    if not isinstance(req, (list, tuple)) or not all(isinstance(r, str) for r in req):
        raise ValueError(f"acceptance required must be a list of party names, got {req!r}")
    return AcceptanceRule(k=k, required=tuple(req))


def is_model_agent(spec: AgentSpec | str) -> bool:
    """Whether an agent spec names a model-driven kind (``llm``, ``llm-...``)."""
    kind = parse_agent_spec(spec).kind
    return kind == "llm" or kind.startswith("llm-")


class BargainingParams(DomainParams):
    """Episode parameters of alternating-offers bargaining (seed 002's Negotiation pattern)."""

    max_rounds: int = Field(_PROTOCOL.max_rounds, ge=1, description="round cap")
    acceptance: int | AcceptanceRule | None = Field(
        _PROTOCOL.acceptance, description="k of n parties (proposer included) whose yes "
        "makes an agreement, or {k: K, required: [PARTY, ...]} where each required party's "
        "yes is also needed (a veto); default unanimous")
    thresholds: bool | dict[str, Finite] = Field(
        False, description="per-party minimums: a yes counts only if the deal gives the "
        "voter at least its minimum; true = every party's BATNA, or {party: minimum}")
    binding: str = Field(_PROTOCOL.binding, description="who a passed deal binds: "
                         "'accepters' (the parties whose yes counted; the others keep their "
                         "BATNA) or 'all' (the vote decides for everyone)")
    opener: str | None = Field(_PROTOCOL.opener, description="a party who proposes in the "
                               "first and the last round; default none")
    unanimity_bonus: dict[str, Finite] | None = Field(
        None, description="{party: points} a party gains when every party agrees (its "
        "minimum is then met with the points added); LLM-Deliberation's p1 gets 10")
    opening_offer: dict[str, Any] | None = Field(
        None, description="the opener's first offer, put on the table by the rule "
        "({issue: value}); needs opener")
    turn_order: list[str] | None = Field(
        None if _PROTOCOL.turn_order is None else list(_PROTOCOL.turn_order),
        description="the proposers' order (each party once); default the scenario's")
    stagnation_rounds: int | None = Field(
        None, ge=0, description="K: rounds without movement before the stagnation rule "
        f"fires (0 disables it); default 'auto': {SEED_STAGNATION_ROUNDS} (seed 002) when "
        "an LLM party, a mediator or a model stagnation scorer takes part, else 0 (code "
        "strategies and people keep to their own schedules; the round cap ends the episode)")
    stagnation_epsilon: float = Field(_PROTOCOL.stagnation_epsilon, ge=0, allow_inf_nan=False,
                                      description="a move up to this is no move")
    stagnation_measure: str = Field(_PROTOCOL.stagnation_measure, description="measure a "
                                    "move in the proposer's utility or per issue: "
                                    + ", ".join(MEASURES))
    stagnation_order: str = Field(_PROTOCOL.stagnation_order, description="who acts first "
                                  "when the detector fires: " + ", ".join(ORDERS))
    stagnation: str = Field(CODE_STAGNATION, description="who judges stagnation: 'code' or "
                            "'llm:MODEL' (the seed's Stagnation Scorer)")
    max_messages_per_turn: int = Field(_PROTOCOL.max_messages_per_turn, ge=0,
                                       description="free-text messages a party may send "
                                       "per turn")
    mediator: str | None = Field(None, description="mediator agent spec (pareto, midpoint, "
                                 "llm:MODEL); default none")
    judge: str = Field(DEFAULT_JUDGE, description="termination judge spec (rules or "
                       "llm:MODEL)")
    max_offers: int | None = Field(_PROTOCOL.max_offers, ge=1, description="no offer is put "
                                   "on the table beyond this many")
    wall_clock: float | None = Field(_BOUNDS.wall_clock, gt=0, allow_inf_nan=False,
                                     description="seconds before the episode ends in "
                                     "bound_hit")
    max_outcomes: int = Field(DEFAULT_MAX_OUTCOMES, ge=1, description="refuse a scenario "
                              "file with more outcomes than this")

    @field_validator("stagnation_rounds", mode="before")
    @classmethod
    def _auto(cls, value: object) -> object:
        return None if value == AUTO else value

    @field_validator("acceptance", mode="before")
    @classmethod
    def _acceptance_rule(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise ValueError("must be at least 1")
        return _acceptance(value)

    @field_validator("thresholds", mode="before")
    @classmethod
    def _thresholds(cls, value: object) -> object:
        if isinstance(value, bool):
            return value
        if not isinstance(value, Mapping):
            raise ValueError("must be true, false or {party: minimum}")
        for party, floor in value.items():
            if isinstance(floor, bool) or not isinstance(floor, (int, float)) or \
                    not math.isfinite(floor):
                raise ValueError(f"the minimum of {party!r} must be a finite number, "
                                 f"got {floor!r}")
        return value

    @field_validator("binding")
    @classmethod
    def _binding(cls, value: str) -> str:
        if value not in BINDINGS:
            raise ValueError(f"must be one of {', '.join(BINDINGS)}")
        return value

    @property
    def k(self) -> int | None:
        """The yes votes a deal needs (``None``: every party)."""
        a = self.acceptance
        return a.k if isinstance(a, AcceptanceRule) else a

    @property
    def required(self) -> tuple[str, ...]:
        """The parties whose yes every deal needs."""
        a = self.acceptance
        return a.required if isinstance(a, AcceptanceRule) else ()

    def minimums(self, batnas: Mapping[str, float]) -> dict[str, float]:
        """Each party's minimum under ``thresholds`` (``batnas``: the scenario's)."""
        t = self.thresholds
        if t is True:
            return dict(batnas)
        return dict(t) if isinstance(t, dict) else {}

    @field_validator("stagnation_measure", "stagnation_order")
    @classmethod
    def _one_of(cls, value: str, info: ValidationInfo) -> str:
        choices = MEASURES if info.field_name == "stagnation_measure" else ORDERS
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value

    @field_validator("stagnation")
    @classmethod
    def _scorer(cls, value: str) -> str:
        if value != CODE_STAGNATION and not (value.startswith("llm:") and value[4:]):
            raise ValueError("must be 'code' or 'llm:MODEL' (the seed's Stagnation Scorer)")
        return value

    def check_parties(self, scenario: str, parties: Sequence[str]) -> None:
        """Refuse the settings that do not fit a scenario's parties (turn order, k of n)
        with a ``ValueError`` worded as :func:`~accord.domains.params.read_params` words
        its own (so ``accord bench`` points at the parameter's line)."""
        if self.turn_order is not None and sorted(self.turn_order) != sorted(parties):
            raise ValueError(f"bargaining parameter 'turn_order': must list each party of "
                             f"{scenario!r} once ({', '.join(parties)}), got {self.turn_order!r}")
        if self.k is not None and self.k > len(parties):
            raise ValueError(f"bargaining parameter 'acceptance': must be at most the "
                             f"{len(parties)} parties of {scenario!r}, got {self.k!r}")
        listed = ", ".join(parties)
        for name, where in ([(r, "acceptance") for r in self.required]
                            + ([(self.opener, "opener")] if self.opener else [])
                            + [(t, "thresholds") for t in (
                                self.thresholds if isinstance(self.thresholds, dict) else ())]
                            + [(b, "unanimity_bonus") for b in self.unanimity_bonus or ()]):
            if name not in parties:
                raise ValueError(f"bargaining parameter {where!r}: {name!r} is not a party "
                                 f"of {scenario!r} ({listed})")
        if self.opening_offer is not None and self.opener is None:
            raise ValueError("bargaining parameter 'opening_offer': needs an opener (the "
                             "party who makes it)")

    def stagnation_setting(self, specs: Sequence[AgentSpec | str]) -> StagnationSetting:
        """The stagnation rule for a line-up: an explicit ``stagnation_rounds`` always wins;
        the default (``None`` / ``'auto'``) is seed 002's K where the rule is what the
        line-up needs and off where it only cuts schedules short.

        On: an LLM party (seed 002 proposes K=3 for LLM agents, which can repeat themselves
        indefinitely), a configured mediator (it acts only when the rule fires) or a model
        Stagnation Scorer (asked for by name). Off: code strategies and people only - a
        time-dependent agent (Faratin et al.) that holds its package early is following
        its schedule, not stalling, and the round cap bounds the episode.
        """
        if self.stagnation_rounds is not None:
            return StagnationSetting(self.stagnation_rounds, "explicit", "set explicitly")
        k = SEED_STAGNATION_ROUNDS
        if any(is_model_agent(s) for s in specs):
            return StagnationSetting(k, "auto", "the default when an LLM party negotiates "
                                     "(seed 002)")
        if self.mediator:
            return StagnationSetting(k, "auto", "the default when a mediator is configured "
                                     "(it acts only when the rule fires)")
        if self.stagnation != CODE_STAGNATION:
            return StagnationSetting(k, "auto", "the default when a model stagnation scorer "
                                     "is configured")
        return StagnationSetting(0, "auto", "the default when every party is a code "
                                 "strategy or a person (they follow their own schedules; "
                                 "the round cap ends the episode)")

    def protocol_config(self, stagnation_rounds: int | None = None,
                        batnas: Mapping[str, float] | None = None) -> AlternatingConfig:
        """The alternating-offers configuration these parameters ask for; the stagnation
        rule's K is ``stagnation_rounds`` (resolved by :meth:`stagnation_setting` for the
        line-up), else the explicit value, else seed 002's K; ``batnas`` are the minimums
        of ``thresholds: true``."""
        k = stagnation_rounds if stagnation_rounds is not None else self.stagnation_rounds
        if self.thresholds is True and batnas is None:
            raise ValueError("thresholds: true needs the scenario's BATNAs")
        return AlternatingConfig(
            max_rounds=self.max_rounds,
            acceptance=self.k,
            required=self.required,
            minimums=tuple(self.minimums(batnas or {}).items()),
            binding=self.binding,
            opener=self.opener,
            opening_offer=tuple((self.opening_offer or {}).items()),
            bonus=tuple((self.unanimity_bonus or {}).items()),
            turn_order=None if self.turn_order is None else tuple(self.turn_order),
            stagnation_rounds=SEED_STAGNATION_ROUNDS if k is None else k,
            stagnation_epsilon=self.stagnation_epsilon,
            max_messages_per_turn=self.max_messages_per_turn,
            mediator=bool(self.mediator),
            max_offers=self.max_offers,
            stagnation_measure=self.stagnation_measure,
            stagnation_scorer=self.stagnation != CODE_STAGNATION,
            stagnation_order=self.stagnation_order,
        )

    def bounds(self) -> Bounds:
        """The engine's bounds of one episode under these parameters."""
        return Bounds(max_rounds=self.max_rounds, max_offers=self.max_offers,
                      wall_clock=self.wall_clock, max_retries=self.max_retries)


__all__ = ["AUTO", "CODE_STAGNATION", "DEFAULT_JUDGE", "SEED_STAGNATION_ROUNDS",
           "AcceptanceRule", "BargainingParams", "StagnationSetting", "is_model_agent"]
