"""Structured observation sharing and state estimation for the code agents.

Facts and share messages are in the format of :mod:`accord.domains.deliberation.share`
(``own_facts`` gives an agent's own, :func:`gather` collects the others' from the dialog).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.domains.deliberation.database import MenuDatabase
from accord.domains.deliberation.preferences import dish_value, estimate_rating
from accord.domains.deliberation.protocol import DeliberationObservation
from accord.domains.deliberation.share import observation_facts, parse_share


def own_facts(obs: DeliberationObservation) -> list[list[Any]]:
    """The agent's private observation as a list of facts."""
    return observation_facts(obs.private, obs.role)


@dataclass
class Knowledge:
    """Facts an agent has received from others, and which senders have sent everything."""

    facts: list[list[Any]] = field(default_factory=list)
    parts_seen: dict[str, set[int]] = field(default_factory=dict)
    parts_total: dict[str, int] = field(default_factory=dict)
    own_parts_sent: int = 0

    def complete_from(self, sender: str) -> bool:
        """Whether every part of ``sender``'s observation has arrived."""
        total = self.parts_total.get(sender)
        return total is not None and len(self.parts_seen.get(sender, ())) >= total


def gather(obs: DeliberationObservation) -> Knowledge:
    """Collect the share facts in the dialog (others') and count own parts sent."""
    k = Knowledge()
    for u in obs.dialog:
        parsed = parse_share(u.text)
        if parsed is None:
            continue
        facts, part, parts = parsed
        if u.speaker == obs.role:
            k.own_parts_sent = max(k.own_parts_sent, part)
            continue
        k.facts += facts
        k.parts_seen.setdefault(u.speaker, set()).add(part)
        k.parts_total[u.speaker] = parts
    return k


def knows_everything(obs: DeliberationObservation, k: Knowledge) -> bool:
    """Merged observation, or every other party has shared its whole observation."""
    return obs.merged or all(k.complete_from(p) for p in obs.parties if p != obs.role)


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def menu_estimate(obs: DeliberationObservation, facts: list[list[Any]],
                  db: MenuDatabase | None, *, mirror_guests: bool = False) -> dict[str, Any]:
    """``{"total_ingredients", "overall_preference"}`` from own observation plus facts.

    Numeric: sums the known guests' dish values. With ``mirror_guests`` (the naive agent's
    guesses) an unknown guest is assumed to score dishes like the known ones and an unseen
    ingredient to be stocked just enough for any single dish that needs it. Semantic: rates
    each dish for each guest from the persona fields known so far with the rating model.
    """
    p = obs.private
    ingredients = {k: v for k, v in (p.get("ingredients") or {}).items()}
    scores = {g: dict(r) for g, r in (p.get("guest_scores") or {}).items()}
    personas = {g: dict(f) for g, f in (p.get("guests") or {}).items()}
    for f in facts:
        if f[0] == "ingredients" and (v := _num(f[2])) is not None:
            ingredients[str(f[1])] = v
        elif f[0] == "guest_scores" and len(f) >= 4 and (v := _num(f[3])) is not None:
            scores.setdefault(str(f[1]), {})[str(f[2])] = v
        elif f[0] == "persona" and len(f) >= 4:
            personas.setdefault(str(f[1]), {})[str(f[2])] = f[3]
    dishes = list(obs.shared["dishes"])
    guests = list(obs.shared.get("guests") or [])
    if mirror_guests:
        for recipe in obs.shared["recipes"].values():
            for ing, amt in recipe.items():
                if ing not in (p.get("ingredients") or {}):
                    ingredients[ing] = max(ingredients.get(ing, 0), amt)
    pref: dict[str, float] = {}
    if obs.setting == "menu-numeric":
        for d in dishes:
            known = [row.get(d, 0.0) for row in scores.values()]
            total = sum(known)
            if mirror_guests and scores and len(scores) < len(guests):
                total += (len(guests) - len(scores)) * total / len(scores)
            pref[d] = round(total, 2)
    else:
        recipes = obs.shared["recipes"]
        for d in dishes:
            value = 0.0
            for g in guests:
                persona = personas.get(g, {})
                rating = (estimate_rating(persona, db.dishes[d], db)
                          if db is not None and d in db.dishes else 3.0)
                value += dish_value(rating, len(recipes[d]))
            pref[d] = round(value, 2)
    return {"total_ingredients": ingredients, "overall_preference": pref}


def task_estimate(obs: DeliberationObservation, facts: list[list[Any]], *,
                  mirror_others: bool = False) -> dict[str, Any]:
    """``{"private_resources", "public_resources", "efficiency"}`` from own obs plus facts.

    Public totals are the sum of the fragments known (own plus shared). With
    ``mirror_others`` (naive agent) unknown agents are assumed to be like oneself.
    """
    p = obs.private
    private = {a: dict(r) for a, r in (p.get("private_resources") or {}).items()}
    eff = {a: dict(r) for a, r in (p.get("efficiency") or {}).items()}
    fragments: dict[str, dict[str, float]] = {obs.role: dict(p.get("public_resources") or {})}
    total_known = bool(p.get("public_is_total"))
    for f in facts:
        if len(f) < 4 or (v := _num(f[3])) is None:
            continue
        if f[0] == "private_resources":
            private.setdefault(str(f[1]), {})[str(f[2])] = v
        elif f[0] == "efficiency":
            eff.setdefault(str(f[1]), {})[str(f[2])] = v
        elif f[0] == "public_fragment":
            fragments.setdefault(str(f[1]), {})[str(f[2])] = v
        elif f[0] == "public_total":
            fragments = {"total": {**fragments.get("total", {}), str(f[2]): v}}
            total_known = True
    if mirror_others:
        for a in obs.parties:
            private.setdefault(a, dict(private.get(obs.role, {})))
            eff.setdefault(a, dict(eff.get(obs.role, {})))
    public: dict[str, float] = {}
    if total_known and "total" in fragments:
        public = dict(fragments["total"])
    elif total_known:
        public = dict(fragments[obs.role])
    else:
        for frag in fragments.values():
            for r, v in frag.items():
                public[r] = round(public.get(r, 0.0) + v, 6)
    return {"private_resources": private, "public_resources": public, "efficiency": eff}


def estimate(obs: DeliberationObservation, facts: list[list[Any]], db: MenuDatabase | None,
             *, naive: bool = False) -> dict[str, Any]:
    """The agent's state estimate for either setting."""
    if obs.setting == "task-allocation":
        return task_estimate(obs, facts, mirror_others=naive)
    return menu_estimate(obs, facts, db, mirror_guests=naive)


def summarize_proposal(proposal: Any, value: float) -> str:
    """A short human-readable line about a proposal."""
    if isinstance(proposal, Mapping):
        body = ", ".join(f"{t} -> {a}" for t, a in proposal.items())
    else:
        body = ", ".join(map(str, proposal))
    return f"I propose [{body}] (estimated value {value:.2f})."
