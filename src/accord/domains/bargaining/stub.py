"""A rule-based negotiator that answers LLM negotiation prompts like a sensible party.

It lets whole negotiations run end to end (real HTTP, real SDK, real parsing) with no
model. It reads the **same text a model reads** (accord's seed 002 prompts, no
machine-readable block), as a model would:

System prompt (set once per session):

* ``Your BATNA is B`` (the first such sentence);
* the issues, after the ``ISSUES`` heading, one line each: ``- issue: v1, v2, ...``
  (values that look like integers are integers, the rest strings, as in the prompt's
  JSON example);
* the private utility after ``YOUR PRIVATE UTILITY FUNCTION``, in one of two forms:
  additive, ``Your utility of a package = sum over issues of weight x score(value).``
  then ``- issue (weight w): v -> s, v -> s, ...`` per issue; or a table, ``Your utility
  of a package is listed below; any other package is worth d.`` then ``- {json}: u`` per
  package (any other package over the issues is worth ``d`` and may be proposed).

Each user message (the last one is read): ``Round r of R.``, the tracker line ``Current
issue tracker: the package on the table is {json}, proposed by P.`` (or ``no package is
on the table yet``) and ``Your move: OFFER ...`` (propose) or ``Your move: answer ...``
(respond: accept, reject with a counter, or walk); the moves allowed are those whose tags
that line names.

Replies: an optional private ``<CONSIDER>...</CONSIDER>`` first, then one of
``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT/>``, ``<REJECT/>`` (followed by a counter
``<PROPOSAL>``) or ``<WALK/>``. Proposal JSON maps every issue to one of its values.

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

from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

_BATNA = re.compile(r"Your BATNA is (-?[0-9.]+(?:[eE][-+]?\d+)?)")
_LINE = re.compile(r"^- (.+)$", re.M)
_WEIGHT = re.compile(r"^(.+) \(weight (-?[0-9.eE+-]+)\): (.*)$")
_DEFAULT = re.compile(r"any other package is worth (-?[0-9.eE+-]+)\.")
_ROUND = re.compile(r"Round (\d+) of (\d+)\.")
_TABLE = "the package on the table is "
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


def _typed(text: str) -> Any:
    text = text.strip()
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _section(text: str, head: str, stop: str) -> str:
    if head not in text:
        raise PolicyError(f"negotiator policy: no {head!r} section in the system prompt")
    return text.split(head, 1)[1].split(stop, 1)[0]


@functools.lru_cache(maxsize=256)
def parse_utility(text: str) -> ParsedUtility:
    """Read and enumerate the private utility stated in the system prompt ``text``."""
    m = _BATNA.search(text)
    if m is None:
        raise PolicyError("negotiator policy: the system prompt states no 'Your BATNA is B'")
    batna = float(m.group(1))
    issues: dict[str, list[Any]] = {}
    for line in _LINE.findall(_section(text, "ISSUES", "YOUR PRIVATE UTILITY")):
        name, _, vals = line.partition(": ")
        issues[name.strip()] = [_typed(v) for v in vals.split(", ")]
    if not issues:
        raise PolicyError("negotiator policy: no issue lines ('- issue: v1, v2') under ISSUES")
    body = _section(text, "YOUR PRIVATE UTILITY FUNCTION", "Your BATNA (")
    names = tuple(issues)
    size = 1
    for name in names:
        size *= len(issues[name])
    if size > MAX_PACKAGES:
        raise PolicyError(f"negotiator policy: {size} packages exceed {MAX_PACKAGES}")
    lines = _LINE.findall(body)
    if "sum over issues of weight x score" in body:
        weights: dict[str, float] = {}
        values: dict[str, dict[str, float]] = {}
        for line in lines:
            w = _WEIGHT.match(line)
            if w is None:
                raise PolicyError(f"negotiator policy: unreadable utility line {line!r}")
            weights[w.group(1)] = float(w.group(2))
            values[w.group(1)] = {v.strip(): float(sc) for v, _, sc in
                                  (pair.rpartition(" -> ") for pair in w.group(3).split(", "))}
        for name in names:
            if name not in weights:
                raise PolicyError(f"negotiator policy: issue {name!r} needs a weight and values")
            missing = [v for v in issues[name] if str(v) not in values[name]]
            if missing:
                raise PolicyError(f"negotiator policy: issue {name!r} has no score for {missing}")
        scored = []
        for combo in itertools.product(*(issues[n] for n in names)):
            pkg = tuple(zip(names, combo, strict=True))
            scored.append((pkg, sum(weights[n] * values[n][str(v)] for n, v in pkg)))
        return ParsedUtility(names, tuple(scored), batna,
                             {_canon(dict(p)): u for p, u in scored}, None)
    d = _DEFAULT.search(body)
    if d is None:
        raise PolicyError("negotiator policy: the utility is neither additive nor a table")
    default = float(d.group(1))
    scores: dict[str, float] = {}
    for line in lines:
        try:
            pkg, end = json.JSONDecoder().raw_decode(line)
            scores[_canon(pkg)] = float(line[end:].lstrip(": ").strip())
        except (ValueError, TypeError) as exc:
            raise PolicyError(f"negotiator policy: unreadable table line {line!r}") from exc
    combos = itertools.product(*(issues[n] for n in names))
    table = tuple((p, scores.get(_canon(dict(p)), default))
                  for p in (tuple(zip(names, c, strict=True)) for c in combos))
    return ParsedUtility(names, table, batna, scores, default)


def allowed_moves(text: str) -> set[str]:
    """The moves the ``Your move:`` line of a turn prompt offers (by the tags it names)."""
    line = text[text.rfind("Your move:"):].split("\n", 1)[0]
    tags = {"accept": "<ACCEPT/>", "reject": "<REJECT/>", "propose": "<PROPOSAL>",
            "walk": "<WALK/>"}
    return {move for move, tag in tags.items() if tag in line}


def parse_turn(text: str) -> tuple[int, int, str, dict[str, Any] | None]:
    """``(round, max_rounds, move, offer on the table)`` from a turn prompt's text."""
    m = _ROUND.search(text)
    if m is None:
        raise PolicyError("negotiator policy: no 'Round r of R.' in the last user message")
    if "Your move: OFFER" in text:
        move = "propose"
    elif "Your move: answer" in text:
        move = "respond"
    else:
        raise PolicyError("negotiator policy: no 'Your move:' line in the last user message")
    offer = None
    at = text.rfind(_TABLE)
    if at >= 0:
        try:
            offer, _ = json.JSONDecoder().raw_decode(text, at + len(_TABLE))
        except ValueError as exc:
            raise PolicyError(f"negotiator policy: the package on the table is not JSON: "
                              f"{exc}") from exc
    return int(m.group(1)), int(m.group(2)), move, offer


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
        """Read the utility, BATNA, round and table from the prompt text; answer with tags."""
        u = parse_utility(request.system() or request.messages[0].get("content", ""))
        r, cap, move, on_table = parse_turn(request.last("user"))
        allowed = allowed_moves(request.last("user"))
        offer = on_table if move == "respond" else None
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
