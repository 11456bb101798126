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

#: subpackages that register a domain; each helper adds its own line
BUILTIN_DOMAIN_MODULES: tuple[str, ...] = (
    "accord.domains.bargaining",
    "accord.domains.deal_or_no_deal",
    "accord.domains.task_exchange",
    "accord.domains.deliberation",
    "accord.domains.games",
)

_loaded = False


def load_builtin_domains() -> None:
    """Import every built-in domain module once so they register themselves."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in BUILTIN_DOMAIN_MODULES:
        importlib.import_module(mod)


__all__ = [
    "BUILTIN_DOMAIN_MODULES",
    "Domain",
    "EpisodeSpec",
    "RunContext",
    "all_domains",
    "get_domain",
    "load_builtin_domains",
    "register_domain",
]
