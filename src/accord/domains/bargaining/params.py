"""Episode parameters of bargaining: :class:`BargainingParams`, the pydantic model that
checks them.

The defaults live in :mod:`accord.domains.bargaining.settings` (:class:`BargainingSettings`,
which reads the protocol's from :class:`~accord.protocols.alternating.AlternatingConfig`
and the engine's from :class:`~accord.protocols.engine.Bounds`); this model adds the
checks: ``accord run`` options, ``--param KEY=VALUE`` and a bench config's ``params`` are
all read through it, so an unknown key or a wrong value is refused by name (``accord
bench`` points at the config line). :meth:`BargainingParams.settings` gives the checked
values as the plain settings an episode runs on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from accord.agents.spec import AgentSpec
from accord.domains.bargaining.settings import (
    AUTO,
    CODE_STAGNATION,
    DEFAULT_JUDGE,
    SEED_STAGNATION_ROUNDS,
    BargainingSettings,
    StagnationSetting,
    is_model_agent,
)
from accord.domains.params import DomainParams
from accord.protocols.alternating import AlternatingConfig
from accord.protocols.engine import Bounds
from accord.protocols.stagnation import MEASURES, ORDERS
from accord.protocols.voting import BINDINGS

_D = BargainingSettings()  # the defaults' one home


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


class BargainingParams(DomainParams):
    """Episode parameters of alternating-offers bargaining (seed 002's Negotiation pattern)."""

    max_rounds: int = Field(_D.max_rounds, ge=1, description="round cap")
    acceptance: int | AcceptanceRule | None = Field(
        _D.acceptance, description="k of n parties (proposer included) whose yes "
        "makes an agreement, or {k: K, required: [PARTY, ...]} where each required party's "
        "yes is also needed (a veto); default unanimous")
    thresholds: bool | dict[str, Finite] = Field(
        False, description="per-party minimums: a yes counts only if the deal gives the "
        "voter at least its minimum; true = every party's BATNA, or {party: minimum}")
    binding: str = Field(_D.binding, description="who a passed deal binds: "
                         "'accepters' (the parties whose yes counted; the others keep their "
                         "BATNA) or 'all' (the vote decides for everyone)")
    opener: str | None = Field(_D.opener, description="a party who proposes in the "
                               "first and the last round; default none")
    unanimity_bonus: dict[str, Finite] | None = Field(
        None, description="{party: points} a party gains when every party agrees (its "
        "minimum is then met with the points added); LLM-Deliberation's p1 gets 10")
    opening_offer: dict[str, Any] | None = Field(
        None, description="the opener's first offer, put on the table by the rule "
        "({issue: value}); needs opener")
    turn_order: list[str] | None = Field(
        _D.turn_order,
        description="the proposers' order (each party once); default the scenario's")
    stagnation_rounds: int | None = Field(
        _D.stagnation_rounds, ge=0, description="K: rounds without movement before the "
        f"stagnation rule fires (0 disables it); default 'auto': {SEED_STAGNATION_ROUNDS} "
        "(seed 002) when an LLM party, a mediator or a model stagnation scorer takes part, "
        "else 0 (code strategies and people keep to their own schedules; the round cap ends "
        "the episode)")
    stagnation_epsilon: float = Field(_D.stagnation_epsilon, ge=0, allow_inf_nan=False,
                                      description="a move up to this is no move")
    stagnation_measure: str = Field(_D.stagnation_measure, description="measure a "
                                    "move in the proposer's utility or per issue: "
                                    + ", ".join(MEASURES))
    stagnation_order: str = Field(_D.stagnation_order, description="who acts first "
                                  "when the detector fires: " + ", ".join(ORDERS))
    stagnation: str = Field(_D.stagnation, description="who judges stagnation: 'code' or "
                            "'llm:MODEL' (the seed's Stagnation Scorer)")
    max_messages_per_turn: int = Field(_D.max_messages_per_turn, ge=0,
                                       description="free-text messages a party may send "
                                       "per turn")
    mediator: str | None = Field(_D.mediator, description="mediator agent spec (pareto, midpoint, "
                                 "llm:MODEL); default none")
    judge: str = Field(_D.judge, description="termination judge spec (rules or "
                       "llm:MODEL)")
    max_offers: int | None = Field(_D.max_offers, ge=1, description="no offer is put "
                                   "on the table beyond this many")
    wall_clock: float | None = Field(_D.wall_clock, gt=0, allow_inf_nan=False,
                                     description="seconds before the episode ends in "
                                     "bound_hit")
    max_outcomes: int = Field(_D.max_outcomes, ge=1, description="refuse a scenario "
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

    def settings(self) -> BargainingSettings:
        """The checked values as the plain settings an episode runs on."""
        return BargainingSettings(**{name: getattr(self, name)
                                     for name in type(self).model_fields})

    def check_parties(self, scenario: str, parties: Sequence[str]) -> None:
        """:meth:`BargainingSettings.check_parties` of these parameters."""
        self.settings().check_parties(scenario, parties)

    def stagnation_setting(self, specs: Sequence[AgentSpec | str]) -> StagnationSetting:
        """:meth:`BargainingSettings.stagnation_setting` of these parameters."""
        return self.settings().stagnation_setting(specs)

    def protocol_config(self, stagnation_rounds: int | None = None,
                        batnas: Mapping[str, float] | None = None) -> AlternatingConfig:
        """:meth:`BargainingSettings.protocol_config` of these parameters."""
        return self.settings().protocol_config(stagnation_rounds, batnas)

    def bounds(self) -> Bounds:
        """:meth:`BargainingSettings.bounds` of these parameters."""
        return self.settings().bounds()


__all__ = ["AUTO", "CODE_STAGNATION", "DEFAULT_JUDGE", "SEED_STAGNATION_ROUNDS",
           "AcceptanceRule", "BargainingParams", "StagnationSetting", "is_model_agent"]
