"""The catalog game names, read without importing the domain.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`); this reads ``data/catalog.yaml`` only, so a
listing never loads numpy, the solvers, the agents or the LLM layer.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from accord.core.safeload import parse_yaml


@lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    path = resources.files("accord.domains.games") / "data" / "catalog.yaml"
    index = parse_yaml(path.read_text(encoding="utf-8"), "games/data/catalog.yaml").data
    return tuple(str(item["name"]) for item in index["games"])


def list_scenarios() -> list[str]:
    """Names of the catalog games, in catalog order (what ``Domain.scenarios()`` returns)."""
    return list(_names())
