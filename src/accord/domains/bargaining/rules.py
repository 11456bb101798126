"""The game parts of a bargaining scenario file: the protocol ``rules`` it runs under, the
public ``instructions`` every party reads, and each party's private ``instructions`` and
``persona`` (what an imported LLM-Deliberation game carries)::

    instructions: |            # public: every party's negotiator reads it
      "SportCo" is a company that ...
    rules:                     # defaults of the bargaining parameters for this scenario
      acceptance: {k: 5, required: [SportCo, Department of Tourism]}
      thresholds: true         # a yes counts only if the deal meets the voter's BATNA
      binding: all             # a passed deal binds every party (default: the accepters)
      opener: SportCo          # proposes in the first and the last round
      opening_offer: {A: A1, B: B1}
      unanimity_bonus: {SportCo: 10}   # points SportCo gains when every party agrees
      max_rounds: 26
      stagnation_rounds: 0     # the game has no stagnation rule
    parties:
      SportCo:
        batna: 55
        instructions: |        # private to SportCo
          Your confidential information ...
        persona: greedy        # or {name: targeted_adv, target: Mayor}
        utility: ...

Explicit parameters (``accord run --acceptance``, ``--param``, a bench config's
``params``) override the scenario's rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.agents.personas import check_persona
from accord.core.outcomes import OutcomeSpace
from accord.core.safeload import short
from accord.core.scenario import PartyBrief

#: the bargaining parameters a scenario's ``rules`` may set
RULE_KEYS = ("acceptance", "thresholds", "binding", "opener", "opening_offer",
             "unanimity_bonus", "max_rounds", "turn_order", "stagnation_rounds")
#: the largest instruction text a scenario carries (characters)
MAX_TEXT = 100_000


class RuleError(ValueError):
    """A game part that cannot be used: ``key`` (e.g. ``rules.opener``) and the problem."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key, self.problem = key, problem


def text(key: str, value: Any) -> str:
    """An instruction text (a string of at most :data:`MAX_TEXT` characters)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RuleError(key, f"expected text, got {short(value)}")
    if len(value) > MAX_TEXT:
        raise RuleError(key, f"{len(value)} characters; at most {MAX_TEXT}")
    return value


def brief(key: str, spec: Mapping[Any, Any], parties: list[str]) -> PartyBrief | None:
    """A party's :class:`PartyBrief` from its ``instructions`` and ``persona`` keys."""
    if "instructions" not in spec and "persona" not in spec:
        return None
    instructions = text(f"{key}.instructions", spec.get("instructions"))
    raw = spec.get("persona")
    name, target = "", ""
    if isinstance(raw, str):
        name = raw
    elif isinstance(raw, Mapping):
        bad = [k for k in raw if k not in ("name", "target")]
        if bad:
            raise RuleError(f"{key}.persona.{bad[0]}", "unknown key (known: name, target)")
        name, target = str(raw.get("name", "")), str(raw.get("target", "") or "")
    elif raw is not None:
        raise RuleError(f"{key}.persona", f"expected a persona name or {{name, target}}, "
                        f"got {short(raw)}")
    if name:
        problem = check_persona(name, target)
        if problem is not None:
            raise RuleError(f"{key}.persona", problem)
        if target and target not in parties:
            raise RuleError(f"{key}.persona.target", f"{target!r} is not a party "
                            f"({', '.join(parties)})")
    return PartyBrief(instructions, name, target)


def rules(value: Any, parties: list[str], space: OutcomeSpace) -> dict[str, Any]:
    """The ``rules`` mapping, checked as bargaining parameters against the parties and
    the issues (an opening offer must be a full package)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RuleError("rules", f"expected a mapping, got {type(value).__name__}")
    out = {str(k): v for k, v in value.items()}
    for k in out:
        if k not in RULE_KEYS:
            raise RuleError(f"rules.{k}", f"not a scenario rule; rules are "
                            f"{', '.join(RULE_KEYS)}")
    # checked by the parameters' model, imported here: a scenario without rules (every
    # built-in one) is loaded without pydantic (issue 30: start-up of accord run)
    from accord.domains.bargaining.params import BargainingParams
    from accord.domains.params import read_params

    try:
        p = read_params(BargainingParams, out, "bargaining")
        p.check_parties("this scenario", parties)
    except ValueError as exc:
        key = next((k for k in out if f"'{k}'" in str(exc)), "")
        raise RuleError(f"rules.{key}" if key else "rules", str(exc)) from None
    offer = p.opening_offer
    if offer is not None:
        for issue in space.issues:
            if issue.name not in offer:
                raise RuleError(f"rules.opening_offer.{issue.name}", "missing: an opening "
                                "offer gives a value for every issue")
            if str(offer[issue.name]) not in {str(v) for v in issue.values}:
                raise RuleError(f"rules.opening_offer.{issue.name}", f"{offer[issue.name]!r} "
                                f"is not a value of the issue {list(issue.values)}")
        extra = [k for k in offer if k not in space.names]
        if extra:
            raise RuleError(f"rules.opening_offer.{extra[0]}", "unknown issue")
        # typed as the issue's values (a YAML 1 for an issue of ints stays an int)
        out["opening_offer"] = {i.name: next(v for v in i.values
                                             if str(v) == str(offer[i.name]))
                                for i in space.issues}
    return out


__all__ = ["MAX_TEXT", "RULE_KEYS", "RuleError", "brief", "rules", "text"]
