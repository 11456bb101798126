"""Bargaining's episode settings as plain data: :class:`BargainingSettings`, the checked
parameters an episode runs under, and the rules that turn them into the protocol's
configuration and the engine's bounds.

Every default lives here (read from :class:`~accord.protocols.alternating.AlternatingConfig`
and :class:`~accord.protocols.engine.Bounds`, never repeated). The pydantic model
:class:`~accord.domains.bargaining.params.BargainingParams` checks given parameters and
takes its defaults from this module; an episode without parameters (the common
``accord run bargaining/NAME --agents a,b``) needs no checking, so it runs on
:data:`DEFAULT_SETTINGS` without importing pydantic (issue 30: start-up of ``accord run``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from accord.agents.spec import AgentSpec, parse_agent_spec
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.protocols.alternating import AlternatingConfig
from accord.protocols.engine import DEFAULT_MAX_RETRIES, Bounds

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
    set explicitly or chosen by the default rule (``rule``: ``explicit`` or ``auto``), and
    ``why`` in one sentence - recorded in the episode's record so a reader knows which
    rule applied."""

    rounds: int
    rule: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        """The record's ``stagnation`` entry."""
        return {"rounds": self.rounds, "rule": self.rule, "why": self.why}


def is_model_agent(spec: AgentSpec | str) -> bool:
    """Whether an agent spec names a model-driven kind (``llm``, ``llm-...``)."""
    kind = parse_agent_spec(spec).kind
    return kind == "llm" or kind.startswith("llm-")


@dataclass(frozen=True)
class BargainingSettings:
    """Checked episode parameters of alternating-offers bargaining (the fields of
    :class:`~accord.domains.bargaining.params.BargainingParams`, in its order, with its
    defaults), and what they mean for one episode."""

    max_retries: int = DEFAULT_MAX_RETRIES
    max_rounds: int = _PROTOCOL.max_rounds
    #: k of n, or an ``AcceptanceRule`` (``k`` and ``required``: see :attr:`k`)
    acceptance: Any = _PROTOCOL.acceptance
    thresholds: bool | dict[str, float] = False
    binding: str = _PROTOCOL.binding
    opener: str | None = _PROTOCOL.opener
    unanimity_bonus: dict[str, float] | None = None
    opening_offer: dict[str, Any] | None = None
    turn_order: list[str] | None = (None if _PROTOCOL.turn_order is None
                                    else list(_PROTOCOL.turn_order))
    stagnation_rounds: int | None = None
    stagnation_epsilon: float = _PROTOCOL.stagnation_epsilon
    stagnation_measure: str = _PROTOCOL.stagnation_measure
    stagnation_order: str = _PROTOCOL.stagnation_order
    stagnation: str = CODE_STAGNATION
    max_messages_per_turn: int = _PROTOCOL.max_messages_per_turn
    mediator: str | None = None
    judge: str = DEFAULT_JUDGE
    max_offers: int | None = _PROTOCOL.max_offers
    wall_clock: float | None = _BOUNDS.wall_clock
    max_outcomes: int = DEFAULT_MAX_OUTCOMES

    @property
    def k(self) -> int | None:
        """The yes votes a deal needs (``None``: every party)."""
        a = self.acceptance
        return a if a is None or isinstance(a, int) else a.k

    @property
    def required(self) -> tuple[str, ...]:
        """The parties whose yes every deal needs."""
        a = self.acceptance
        return () if a is None or isinstance(a, int) else tuple(a.required)

    def minimums(self, batnas: Mapping[str, float]) -> dict[str, float]:
        """Each party's minimum under ``thresholds`` (``batnas``: the scenario's)."""
        t = self.thresholds
        if t is True:
            return dict(batnas)
        return dict(t) if isinstance(t, dict) else {}

    def check_parties(self, scenario: str, parties: Sequence[str]) -> None:
        """Refuse the settings that do not fit a scenario's parties (turn order, k of n,
        the parties the voting rules name) with a ``ValueError`` worded as
        :func:`~accord.domains.params.read_params` words its own (so ``accord bench``
        points at the parameter's line)."""
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


#: the settings of an episode given no parameters (every default)
DEFAULT_SETTINGS = BargainingSettings()
#: the parameter names, in the order of :class:`BargainingSettings`' fields
PARAM_NAMES = tuple(f.name for f in fields(BargainingSettings))

__all__ = ["AUTO", "CODE_STAGNATION", "DEFAULT_JUDGE", "DEFAULT_SETTINGS", "PARAM_NAMES",
           "SEED_STAGNATION_ROUNDS", "BargainingSettings", "StagnationSetting",
           "is_model_agent"]
