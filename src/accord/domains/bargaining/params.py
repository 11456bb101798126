"""Episode parameters of bargaining: :class:`BargainingParams`, the one home of their defaults.

The protocol's defaults are :class:`~accord.protocols.alternating.AlternatingConfig`'s and
the engine's :class:`~accord.protocols.engine.Bounds`' (read from there, never repeated
here); the model adds what only the domain knows: the mediator, judge and Stagnation
Scorer specs and the scenario's outcome cap. ``accord run`` options, ``--param KEY=VALUE``
and a bench config's ``params`` are all read through it, so an unknown key or a wrong
value is refused by name (``accord bench`` points at the config line).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field, ValidationInfo, field_validator

from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.domains.params import DomainParams
from accord.protocols.alternating import AlternatingConfig
from accord.protocols.engine import Bounds
from accord.protocols.stagnation import MEASURES, ORDERS

_PROTOCOL = AlternatingConfig()
_BOUNDS = Bounds()

#: the default of ``judge``: the rule-based termination judge (seed 002)
DEFAULT_JUDGE = "rules"
#: the default of ``stagnation``: the code check (seed 002's detector), not a model
CODE_STAGNATION = "code"


class BargainingParams(DomainParams):
    """Episode parameters of alternating-offers bargaining (seed 002's Negotiation pattern)."""

    max_rounds: int = Field(_PROTOCOL.max_rounds, ge=1, description="round cap")
    acceptance: int | None = Field(_PROTOCOL.acceptance, ge=1, description="k of n parties "
                                   "(proposer included) whose yes makes an agreement; "
                                   "default unanimous")
    turn_order: list[str] | None = Field(
        None if _PROTOCOL.turn_order is None else list(_PROTOCOL.turn_order),
        description="the proposers' order (each party once); default the scenario's")
    stagnation_rounds: int = Field(_PROTOCOL.stagnation_rounds, ge=0, description="K: "
                                   "rounds without movement before the detector fires "
                                   "(0 disables it)")
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
        if self.acceptance is not None and self.acceptance > len(parties):
            raise ValueError(f"bargaining parameter 'acceptance': must be at most the "
                             f"{len(parties)} parties of {scenario!r}, got {self.acceptance!r}")

    def protocol_config(self) -> AlternatingConfig:
        """The alternating-offers configuration these parameters ask for."""
        return AlternatingConfig(
            max_rounds=self.max_rounds,
            acceptance=self.acceptance,
            turn_order=None if self.turn_order is None else tuple(self.turn_order),
            stagnation_rounds=self.stagnation_rounds,
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


__all__ = ["CODE_STAGNATION", "DEFAULT_JUDGE", "BargainingParams"]
