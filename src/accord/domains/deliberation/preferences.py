"""Guest preferences: dish properties, the persona -> rating model and the dish value.

A dish's dietary properties (vegetarian, allergens, halal / kosher conflicts, salt, sugar)
are derived from its ingredients. The rating model (weights in
``data/menu/preference_model.yaml``) scores a dish for a persona from whichever persona
fields are known, so it serves both to author the shipped ratings and, in menu-semantic,
to let code agents estimate ratings from partial persona descriptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accord.domains.deliberation.database import Dish, MenuDatabase


@dataclass(frozen=True)
class DishProfile:
    """Dietary and experience properties of one dish."""

    name: str
    cuisine: str
    spice: int
    tags: frozenset[str]
    allergens: frozenset[str]
    meats: frozenset[str]
    vegetarian: bool
    vegan: bool
    alcohol: bool
    salty: bool
    sweet: bool
    high_carb: bool
    n_ingredients: int

    @property
    def kosher_conflict(self) -> bool:
        """Pork, shellfish, or meat together with dairy."""
        meat_and_dairy = bool(self.meats) and "Dairy" in self.allergens
        return "pork" in self.meats or "Shellfish" in self.allergens or meat_and_dairy

    @property
    def halal_conflict(self) -> bool:
        """Pork or alcohol."""
        return "pork" in self.meats or self.alcohol


def dish_profile(dish: Dish, db: MenuDatabase) -> DishProfile:
    """Derive a dish's properties from its recipe's ingredients."""
    ings = [db.ingredients[name] for name in dish.recipe]
    animals = {i.animal for i in ings}
    carb_units = sum(amt for name, amt in dish.recipe.items()
                     if "high_carb" in db.ingredients[name].flags)
    tags = set(dish.tags)
    if dish.spice >= 2:
        tags.add("spicy")
    return DishProfile(
        name=dish.name, cuisine=dish.cuisine, spice=dish.spice, tags=frozenset(tags),
        allergens=frozenset().union(*(i.allergens for i in ings)),
        meats=frozenset(i.meat for i in ings if i.meat),
        vegetarian=not (animals & {"meat", "fish", "shellfish"}),
        vegan=animals <= {"none"},
        alcohol=any("alcohol" in i.flags for i in ings),
        salty=any("high_sodium" in i.flags for i in ings),
        sweet="sweet" in dish.tags or any("high_sugar" in i.flags for i in ings),
        high_carb=carb_units >= 2,
        n_ingredients=dish.n_ingredients,
    )


def dish_value(rating: float, n_ingredients: int) -> float:
    """A guest's value for a dish: ``rating * (n + 0.2 * n**1.5)`` (paper A.1.2), 2 decimals."""
    return round(rating * (n_ingredients + 0.2 * n_ingredients ** 1.5), 2)


def _flag(persona: Mapping[str, Any], field: str, key: str) -> bool:
    section = persona.get(field)
    return bool(section.get(key)) if isinstance(section, Mapping) else False


def conflicts(persona: Mapping[str, Any], p: DishProfile) -> bool:
    """Whether the dish violates a hard constraint the persona states (diet, allergy, faith)."""
    diet = "Dietary Preferences"
    if _flag(persona, diet, "Vegan") and not p.vegan:
        return True
    if _flag(persona, diet, "Vegetarian") and not p.vegetarian:
        return True
    if _flag(persona, diet, "Gluten-free") and "Gluten" in p.allergens:
        return True
    if _flag(persona, diet, "Dairy-free") and "Dairy" in p.allergens:
        return True
    allergies = persona.get("Food Allergies")
    if isinstance(allergies, list):
        for allergy in allergies:
            hits = {"Nuts", "Peanuts"} if allergy == "Nuts" else {allergy}
            if hits & p.allergens:
                return True
    eth = "Ethical and Religious Considerations"
    if _flag(persona, eth, "Halal") and p.halal_conflict:
        return True
    return _flag(persona, eth, "Kosher") and p.kosher_conflict


def rule_score(persona: Mapping[str, Any], p: DishProfile, model: Mapping[str, Any]) -> float:
    """The noise-free rating of dish ``p`` for a (possibly partial) persona.

    Fields absent from ``persona`` contribute nothing, so a partial description gives a
    partial (less informed) estimate. Hard conflicts give ``conflict_rating``.
    """
    if conflicts(persona, p):
        return float(model["conflict_rating"])
    w: Mapping[str, float] = model["weights"]
    score = float(model["base"])
    culture = persona.get("Cultural Preferences")
    if isinstance(culture, Mapping):
        if culture.get("Cuisine Type") == p.cuisine:
            score += w["cuisine_match"]
        if culture.get("Traditional Dishes") and "traditional" in p.tags:
            score += w["traditional_match"]
        tol = model["spice_tolerance"].get(culture.get("Spice Level Preference"))
        if tol is not None and p.spice > tol:
            score += w["spice_over_tolerance"] * (p.spice - tol)
        if culture.get("Spice Level Preference") == "Hot" and p.spice >= 2:
            score += w["hot_lover_bonus"]
    if _flag(persona, "Dietary Preferences", "Low-carb") and p.high_carb:
        score += w["low_carb_high_carb"]
    if _flag(persona, "Ethical and Religious Considerations", "Buddhist") and not p.vegetarian:
        score += w["buddhist_meat"]
    score += _health(persona, p, w) + _style(persona, p, w) + _focus(persona, p, model)
    eth = persona.get("Ethical and Religious Considerations")
    if isinstance(eth, Mapping):
        pref = eth.get("Ethical Eating Preferences")
        if pref == "Animal welfare" and not p.vegetarian:
            score += w["animal_welfare_meat"]
        if pref == "Sustainable seafood" and "Fish" in p.allergens:
            score += w["sustainable_seafood"]
    return score


def _health(persona: Mapping[str, Any], p: DishProfile, w: Mapping[str, float]) -> float:
    g = "Health and Fitness Goals"
    s = 0.0
    if _flag(persona, g, "Calorie-conscious"):
        s += w["calorie_indulgent"] * ("indulgent" in p.tags) + w["calorie_fried"] * (
            "fried" in p.tags) + w["calorie_light"] * ("light" in p.tags)
    if _flag(persona, g, "Protein-rich") and "protein_rich" in p.tags:
        s += w["protein_rich"]
    if _flag(persona, g, "Low-sodium") and p.salty:
        s += w["low_sodium_salty"]
    if _flag(persona, g, "Low-sugar") and p.sweet:
        s += w["low_sugar_sweet"]
    if _flag(persona, g, "Weight-loss focus"):
        heavy = "indulgent" in p.tags or "fried" in p.tags
        s += w["weight_loss_indulgent"] * heavy + w["weight_loss_light"] * ("light" in p.tags)
    if _flag(persona, g, "Muscle-building focus") and "protein_rich" in p.tags:
        s += w["muscle_protein"]
    return s


def _style(persona: Mapping[str, Any], p: DishProfile, w: Mapping[str, float]) -> float:
    st = persona.get("Personality and Dining Style")
    if not isinstance(st, Mapping):
        return 0.0
    s = 0.0
    own = persona.get("Cultural Preferences")
    own_cuisine = own.get("Cuisine Type") if isinstance(own, Mapping) else None
    if st.get("Adventurous Eater"):
        s += w["adventurous_match"] * ("adventurous" in p.tags)
        s += w["adventurous_foreign"] * (own_cuisine is not None and p.cuisine != own_cuisine)
    elif "adventurous" in p.tags:
        s += w["cautious_adventurous"]
    s += w["comfort"] * (bool(st.get("Comfort Food Lover")) and "comfort" in p.tags)
    if st.get("Indulgent Food Preferences"):
        s += w["indulgent"] * ("indulgent" in p.tags) + w["indulgent_sweet"] * p.sweet
    if st.get("Minimalist Dining"):
        s += w["minimalist_simple"] * (p.n_ingredients <= 5)
        s += w["minimalist_complex"] * (p.n_ingredients >= 7)
    s += w["social_shareable"] * (bool(st.get("Social Eater")) and "shareable" in p.tags)
    snacky = "snack" in p.tags or "street_food" in p.tags
    s += w["snack"] * (bool(st.get("Snack-friendly")) and snacky)
    return s


def _focus(persona: Mapping[str, Any], p: DishProfile, model: Mapping[str, Any]) -> float:
    status = persona.get("Recent Status")
    if not isinstance(status, Mapping):
        return 0.0
    text = str(status.get("Recent Dietary Focus", "")).lower()
    s = 0.0
    for rule in model.get("focus_keywords", []):
        if rule["tag"] in p.tags and any(word in text for word in rule["words"]):
            s += float(rule["weight"])
    return s


def clip_rating(score: float, model: Mapping[str, Any]) -> float:
    """Clip to the model's rating range and round to one decimal."""
    lo, hi = model["clip"]
    return round(min(max(score, lo), hi), 1)


def estimate_rating(persona: Mapping[str, Any], dish: Dish, db: MenuDatabase) -> float:
    """Noise-free rating estimate of ``dish`` for a (possibly partial) persona."""
    model = db.preference_model
    return clip_rating(rule_score(persona, dish_profile(dish, db), model), model)
