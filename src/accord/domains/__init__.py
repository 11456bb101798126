"""Scenario families. Each subpackage registers its :class:`Domain` on import."""

from __future__ import annotations

import importlib

from accord.domains.base import (
    Domain,
    EpisodeSpec,
    RunContext,
    all_domains,
    get_domain,
    register_domain,
)

#: the built-in domains by name, each with the subpackage that registers it on import
BUILTIN_DOMAINS: dict[str, str] = {
    "bargaining": "accord.domains.bargaining",
    "deal-or-no-deal": "accord.domains.deal_or_no_deal",
    "task-exchange": "accord.domains.task_exchange",
    "deliberation": "accord.domains.deliberation",
    "games": "accord.domains.games",
}

#: subpackages that register a domain; each helper adds its own line
BUILTIN_DOMAIN_MODULES: tuple[str, ...] = tuple(BUILTIN_DOMAINS.values())

_loaded = False


def load_builtin_domains() -> None:
    """Import every built-in domain module once so they register themselves."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in BUILTIN_DOMAIN_MODULES:
        importlib.import_module(mod)


def domain_module(name: str) -> str | None:
    """The module that registers the built-in domain ``name`` (``None`` for others).

    Importing just that module is enough to run its episodes: a worker process imports
    the domains its tasks need, not all five.
    """
    return BUILTIN_DOMAINS.get(name)


__all__ = [
    "BUILTIN_DOMAINS",
    "BUILTIN_DOMAIN_MODULES",
    "Domain",
    "EpisodeSpec",
    "RunContext",
    "all_domains",
    "domain_module",
    "get_domain",
    "load_builtin_domains",
    "register_domain",
]
