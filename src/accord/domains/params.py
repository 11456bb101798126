"""Episode parameters: one pydantic model per domain, the one home of every default.

A domain declares ``params_model = MyParams`` (a subclass of :class:`DomainParams`) and
reads a spec's parameters with :meth:`~accord.domains.base.Domain.params`. Unknown keys
and wrongly typed values are refused with a ``ValueError`` naming the domain, the key, the
problem and the value (``accord bench`` points it at the config line of ``params``);
values are strict: ``"3"`` is not an int and ``true`` is not a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from accord.protocols.engine import DEFAULT_MAX_RETRIES


class DomainParams(BaseModel):
    """Parameters every domain takes; subclass it and add the domain's own."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    max_retries: int = Field(DEFAULT_MAX_RETRIES, ge=0, description="refused replies a "
                             "party may make in one turn before the episode ends in error")


P = TypeVar("P", bound=DomainParams)


#: seed 002's K for the stagnation rule (also the bargaining default with LLM parties)
SEED_STAGNATION_ROUNDS = 3
#: the spelling of "the default" a config may give for ``stagnation_rounds``
AUTO = "auto"


def auto_stagnation(value: int | None, agents: Sequence[Any]) -> int:
    """K of the stagnation rule for a line-up: ``value`` when given, else seed 002's K when
    a model-driven party (``llm``, ``llm-...``) takes part and 0 (off) for code strategies
    and people, which follow their own schedules (the round cap ends their episodes)."""
    if value is not None:
        return value
    from accord.agents.spec import parse_agent_spec

    def model(spec: Any) -> bool:
        kind = parse_agent_spec(spec).kind
        return kind == "llm" or kind.startswith("llm-")

    return SEED_STAGNATION_ROUNDS if any(model(a) for a in agents) else 0


class TalkStagnationParams(DomainParams):
    """:class:`DomainParams` of a domain where a party may talk instead of proposing, with
    the message-only half of seed 002's stagnation rule
    (:func:`~accord.protocols.stagnation.talk_streaks`)."""

    stagnation_rounds: int | None = Field(
        None, ge=0, description="K: consecutive message-only turns of one party (no "
        "proposal, no answer) before the stagnation rule ends the episode (0 disables "
        f"it); default 'auto': {SEED_STAGNATION_ROUNDS} (seed 002) when an LLM party takes "
        "part, else 0")

    @field_validator("stagnation_rounds", mode="before")
    @classmethod
    def _auto(cls, value: object) -> object:
        return None if value == AUTO else value


def read_params(model: type[P], params: Mapping[str, Any], domain: str) -> P:
    """``params`` checked against ``model``; a ``ValueError`` names the first problem."""
    try:
        return model.model_validate(dict(params))
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "<params>"
        if err["type"] == "extra_forbidden":
            known = ", ".join(sorted(model.model_fields))
            raise ValueError(f"unknown {domain} parameter {key!r}; known: {known}") from None
        # a validator's own message is kept as written (it may quote names such as
        # 'llm:MODEL'); pydantic's are lower-cased to read as one sentence
        error = (err.get("ctx") or {}).get("error")
        text = str(error) if err["type"] == "value_error" and error is not None \
            else err["msg"].lower()
        raise ValueError(f"{domain} parameter {key!r}: {text}, got "
                         f"{err.get('input')!r}") from None


def describe(model: type[DomainParams]) -> dict[str, dict[str, Any]]:
    """Each parameter's default and description (for docs and ``--help`` texts)."""
    return {name: {"default": f.default, "description": f.description or ""}
            for name, f in model.model_fields.items()}


__all__ = ["AUTO", "DEFAULT_MAX_RETRIES", "SEED_STAGNATION_ROUNDS", "DomainParams",
           "TalkStagnationParams", "auto_stagnation", "describe", "read_params"]
