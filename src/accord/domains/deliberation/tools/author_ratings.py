"""Author ``data/menu/ratings.json``: every guest's rating of every dish.

Run ``python -m accord.domains.deliberation.tools.author_ratings`` after editing the
characters, dishes, ingredients or the preference model. The output is deterministic:
rating = clip(rule score + N(0, noise_sd)), with the noise drawn from
``numpy.random.default_rng(noise_seed)`` in guest-then-dish file order; conflicting
dishes (diet, allergy, religion) get exactly ``conflict_rating``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from accord.domains.deliberation.database import DATA_DIR, load_menu_database
from accord.domains.deliberation.preferences import (
    clip_rating,
    conflicts,
    dish_profile,
    rule_score,
)


def author_ratings(data_dir: Path = DATA_DIR) -> dict[str, dict[str, float]]:
    """Compute the ratings table from the database files under ``data_dir``."""
    db = load_menu_database(data_dir, with_ratings=False)
    model = db.preference_model
    rng = np.random.default_rng(int(model["noise_seed"]))
    table: dict[str, dict[str, float]] = {}
    for guest, persona in db.characters.items():
        row: dict[str, float] = {}
        for name, dish in db.dishes.items():
            prof = dish_profile(dish, db)
            noise = float(rng.normal(0.0, float(model["noise_sd"])))
            if conflicts(persona, prof):
                row[name] = float(model["conflict_rating"])
            else:
                row[name] = clip_rating(rule_score(persona, prof, model) + noise, model)
        table[guest] = row
    return table


def main(argv: list[str] | None = None) -> None:
    """Write ratings.json (or to the path given as the first argument)."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else DATA_DIR / "menu" / "ratings.json"
    doc = {
        "description": "Guest -> dish ratings (0.5-5.0) authored by "
                       "accord.domains.deliberation.tools.author_ratings; a dish's value to a "
                       "guest is rating * (n + 0.2 * n**1.5), n = distinct recipe ingredients.",
        "ratings": author_ratings(),
    }
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
