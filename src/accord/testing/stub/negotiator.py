"""A rule-based negotiator that answers LLM negotiation prompts like a sensible party.

It lets whole negotiations run end to end (real HTTP, real SDK, real parsing) with no
model. It reads two machine-readable blocks that accord's LLM negotiator puts in its
prompts; this is the **prompt-state contract** between that agent and this policy.

System prompt (set once per session) contains exactly one block
``<UTILITY>{json}</UTILITY>`` with the party's private utility, in one of two forms:

* additive: ``{"issues": {issue: [values]}, "weights": {issue: w},
  "values": {issue: {value: score}}, "batna": b}`` with
  ``U(package) = sum_i weights[i] * values[i][str(package[i])]``. Keys of ``values``
  are the issue values as strings (JSON keys), so ``10`` and ``"10"`` match;
* table: ``{"table": [{"package": {issue: value}, "utility": u}, ...],
  "default": d, "batna": b}`` with optional ``"issues"`` (when given, packages that
  are not in the table are worth ``default`` and may be proposed; otherwise only
  table rows are proposed).

Each user message (the last one is read) contains one block ``<STATE>{json}</STATE>``::

    {"round": r,             # 1-based round number
     "max_rounds": R,        # the round cap (the last round is R)
     "move": "propose" | "respond",
     "current_offer": {issue: value} | null,   # the offer this party must answer
     "my_last_offer": {issue: value} | null,   # optional
     "allowed": ["propose", "accept", "reject", "walk"]}   # optional, default all

Replies: an optional private ``<CONSIDER>...</CONSIDER>`` first, then one of
``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT/>``, ``<REJECT/>`` (followed by a counter
``<PROPOSAL>`` when proposing is allowed) or ``<WALK/>``. Proposal JSON maps every
issue to a value from ``issues`` (original JSON type kept).

Strategy (time-dependent, linear by default): with ``t = (r - 1) / (R - 1)`` the
target utility falls from the best attainable utility to the floor
``max(batna, worst)`` as ``best - (best - floor) * t ** exponent``. It proposes the
package just above the target (the least it can ask for while meeting the target;
ties go to the package closest to the counterpart's offer, then canonical order),
accepts an offer worth at least its target (or at least what it would counter with)
and at least its BATNA, walks when it must answer in the last round an offer below
its BATNA or when no package reaches its BATNA, and otherwise rejects with a counter.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accord.testing.stub.policies import (
    Outcome,
    Policy,
    PolicyError,
    PolicyRequest,
    Reply,
    register_policy,
)

UTILITY_RE = re.compile(r"<UTILITY>(.*?)</UTILITY>", re.S)
STATE_RE = re.compile(r"<STATE>(.*?)</STATE>", re.S)
MAX_PACKAGES = 200_000
"""Largest outcome space the policy enumerates."""

Pkg = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class ParsedUtility:
    """A utility read from a ``<UTILITY>`` block: scored candidate packages and the BATNA."""

    issues: tuple[str, ...]
    packages: tuple[tuple[Pkg, float], ...]
    batna: float
    scores: Mapping[str, float]
    default: float | None

    def value(self, offer: Mapping[str, Any]) -> float | None:
        """Utility of ``offer`` (``None`` if it is not a package over the known issues)."""
        if set(offer) != set(self.issues):
            return None
        key = _canon({k: offer[k] for k in self.issues})
        if key in self.scores:
            return self.scores[key]
        return self.default


def _canon(package: Mapping[str, Any]) -> str:
    return json.dumps({k: str(v) for k, v in package.items()}, sort_keys=True)


def _block(pattern: re.Pattern[str], text: str, what: str, where: str) -> Any:
    m = pattern.search(text)
    if m is None:
        raise PolicyError(f"negotiator policy: no <{what}>{{json}}</{what}> block in {where}")
    try:
        return json.loads(m.group(1))
    except json.JSONDecodeError as exc:
        raise PolicyError(f"negotiator policy: <{what}> in {where} is not valid JSON: {exc}") \
            from exc


@functools.lru_cache(maxsize=256)
def parse_utility(text: str) -> ParsedUtility:
    """Read and enumerate the utility in the ``<UTILITY>`` block of ``text``."""
    data = _block(UTILITY_RE, text, "UTILITY", "the system prompt")
    if not isinstance(data, dict) or "batna" not in data:
        raise PolicyError("negotiator policy: <UTILITY> must be a JSON object with 'batna'")
    batna = float(data["batna"])
    if "table" in data:
        return _table_utility(data, batna)
    try:
        issues: dict[str, list[Any]] = data["issues"]
        weights: dict[str, float] = data["weights"]
        values: dict[str, dict[str, float]] = data["values"]
    except KeyError as exc:
        raise PolicyError(f"negotiator policy: additive <UTILITY> lacks key {exc}") from exc
    names = tuple(issues)
    size = 1
    for name in names:
        size *= len(issues[name])
        if name not in weights or name not in values:
            raise PolicyError(f"negotiator policy: issue {name!r} needs a weight and values")
        missing = [v for v in issues[name] if str(v) not in values[name]]
        if missing:
            raise PolicyError(f"negotiator policy: issue {name!r} has no score for {missing}")
    if size > MAX_PACKAGES:
        raise PolicyError(f"negotiator policy: {size} packages exceed {MAX_PACKAGES}")
    scored = []
    for combo in itertools.product(*(issues[n] for n in names)):
        pkg = tuple(zip(names, combo, strict=True))
        scored.append((pkg, sum(float(weights[n]) * float(values[n][str(v)]) for n, v in pkg)))
    return ParsedUtility(names, tuple(scored), batna,
                         {_canon(dict(p)): u for p, u in scored}, None)


def _table_utility(data: Mapping[str, Any], batna: float) -> ParsedUtility:
    rows = data["table"]
    if not isinstance(rows, list) or not rows:
        raise PolicyError("negotiator policy: 'table' must be a non-empty list of "
                          "{'package': {...}, 'utility': u} rows")
    default = float(data.get("default", batna))
    names = tuple(data.get("issues") or rows[0]["package"])
    scores = {_canon(r["package"]): float(r["utility"]) for r in rows}
    if data.get("issues"):
        combos = itertools.product(*(data["issues"][n] for n in names))
        pkgs = [tuple(zip(names, c, strict=True)) for c in combos]
    else:
        pkgs = [tuple((n, r["package"][n]) for n in names) for r in rows]
    scored = tuple((p, scores.get(_canon(dict(p)), default)) for p in pkgs)
    return ParsedUtility(names, scored, batna, scores, default)


def target_utility(u: ParsedUtility, round_: int, max_rounds: int, exponent: float = 1.0
                   ) -> float:
    """The policy's aspiration in ``round_`` of ``max_rounds``."""
    best = max(s for _, s in u.packages)
    worst = min(s for _, s in u.packages)
    floor = max(u.batna, worst)
    t = 1.0 if max_rounds <= 1 else min(1.0, max(0.0, (round_ - 1) / (max_rounds - 1)))
    return max(floor, best - (best - floor) * t ** exponent)


def choose_proposal(u: ParsedUtility, target: float, near: Mapping[str, Any] | None
                    ) -> tuple[dict[str, Any], float]:
    """The package just above ``target``, closest to ``near``; the best one if none reaches it."""
    eps = 1e-9
    ok = [(p, s) for p, s in u.packages if s >= target - eps]
    if not ok:
        p, s = max(u.packages, key=lambda ps: ps[1])
        return dict(p), s

    def closeness(p: Pkg) -> int:
        if not near:
            return 0
        return -sum(1 for k, v in p if str(near.get(k)) == str(v))

    p, s = min(ok, key=lambda ps: (round(ps[1], 9), closeness(ps[0]), _canon(dict(ps[0]))))
    return dict(p), s


@register_policy("negotiator")
class NegotiatorPolicy(Policy):
    """Rule-based party: linear concession from its best outcome to its BATNA (see module)."""

    name = "negotiator"

    def __init__(self, exponent: float = 1.0) -> None:
        self.exponent = float(exponent)

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read ``<UTILITY>`` and ``<STATE>`` and answer with tags."""
        u = parse_utility(request.system() or request.messages[0].get("content", ""))
        state = _block(STATE_RE, request.last("user"), "STATE", "the last user message")
        try:
            r, cap, move = int(state["round"]), int(state["max_rounds"]), str(state["move"])
        except (KeyError, TypeError, ValueError) as exc:
            raise PolicyError(f"negotiator policy: <STATE> needs round, max_rounds and move: "
                              f"{exc}") from exc
        allowed = set(state.get("allowed") or ("propose", "accept", "reject", "walk"))
        offer = state.get("current_offer")
        target = target_utility(u, r, cap, self.exponent)
        counter, cu = choose_proposal(u, target, offer)
        note = f"Round {r}/{cap}: I aim for at least {target:.3f}."
        if move == "propose" or not offer:
            return Reply(f"<CONSIDER>{note}</CONSIDER>\n<PROPOSAL>{json.dumps(counter)}"
                         "</PROPOSAL>")
        value = u.value(offer)
        best = max(s for _, s in u.packages)
        if value is not None:
            note += f" The offer on the table is worth {value:.3f} to me."
        if (value is not None and value >= u.batna - 1e-9 and "accept" in allowed
                and (value >= target - 1e-9 or value >= cu - 1e-9)):
            return Reply(f"<CONSIDER>{note} I accept.</CONSIDER>\n<ACCEPT/>")
        hopeless = best < u.batna - 1e-9
        if "walk" in allowed and (hopeless or (r >= cap and (value is None
                                                              or value < u.batna))):
            return Reply(f"<CONSIDER>{note} My alternative is better.</CONSIDER>\n<WALK/>")
        text = f"<CONSIDER>{note} I counter.</CONSIDER>\n<REJECT/>"
        if "propose" in allowed:
            text += f"\n<PROPOSAL>{json.dumps(counter)}</PROPOSAL>"
        return Reply(text)
