"""Scenario families, found through the ``accord.domains`` entry-point group.

Every domain — the five built in and any third-party package — registers the same way:
an entry point in its package metadata naming the module attribute that holds its
:class:`Domain`, e.g. in ``pyproject.toml``::

    [project.entry-points."accord.domains"]
    ultimatum = "accord_ultimatum:DOMAIN"

Importing that module registers the domain (:func:`register_domain`); ``accord run``,
``accord bench``, ``accord scenarios`` and ``accord results --layout`` then find it with
no edit anywhere else. A bench config's ``plugins:`` list is the other door (a module
that registers domains or agent kinds when imported), for code that is not installed.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from accord.domains.base import (
        Domain,
        EpisodeSpec,
        RunContext,
        all_domains,
        get_domain,
        register_domain,
        registered_domains,
    )

# the base names load on first use, so a domain's command module (``accord --help``) does
# not pull in pydantic, numpy and the engine
__getattr__, __dir__ = lazy_exports(__name__, {".base": (
    "Domain", "EpisodeSpec", "RunContext", "all_domains", "get_domain", "register_domain",
    "registered_domains")})

#: the entry-point group every domain registers under
ENTRY_POINT_GROUP = "accord.domains"

#: accord's own domains: name -> ``module:attribute``, as its package metadata declares
#: them under :data:`ENTRY_POINT_GROUP` (a test keeps the two equal). A built-in name is
#: loaded from here without reading every installed package's entry points, which
#: ``accord run bargaining/...`` would otherwise pay for at start-up (issue 30).
BUILTIN_DOMAINS: dict[str, str] = {
    "bargaining": "accord.domains.bargaining:DOMAIN",
    "deal-or-no-deal": "accord.domains.deal_or_no_deal:DOMAIN",
    "task-exchange": "accord.domains.task_exchange:DOMAIN",
    "deliberation": "accord.domains.deliberation:DOMAIN",
    "games": "accord.domains.games:DOMAIN",
}


@functools.cache
def domain_entry_points() -> dict[str, EntryPoint]:
    """The installed domains' entry points, by domain name (read once per process)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def is_domain_name(name: str) -> bool:
    """Whether ``name`` is a built-in, registered or installed domain (the installed
    packages' entry points are read only for a name that is neither of the first two)."""
    from accord.domains.base import registered_domains

    return (name in BUILTIN_DOMAINS or name in registered_domains()
            or name in domain_entry_points())


def domain_names() -> list[str]:
    """Names of the installed domains (without importing any of them)."""
    return sorted(domain_entry_points())


def load_domain(name: str) -> Domain | None:
    """Import the installed domain ``name`` through its entry point (``None`` if none).

    A broken plug-in (its module fails to import, or the attribute is not a
    :class:`Domain`) raises ``ImportError`` naming the entry point, never a bare traceback
    from deep inside the plug-in.
    """
    from accord.domains.base import Domain, register_domain

    value = BUILTIN_DOMAINS.get(name)
    ep = None if value is not None else domain_entry_points().get(name)
    if ep is not None:
        value = ep.value
    if value is None:
        return None
    try:
        obj = ep.load() if ep is not None else _load_object(value)
    except Exception as exc:  # a third-party module can fail in any way
        raise ImportError(f"domain {name!r} (entry point {value!r}) failed to load: "
                          f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(obj, Domain):
        raise ImportError(f"domain {name!r}: entry point {value!r} is a "
                          f"{type(obj).__name__}, not an accord Domain")
    register_domain(obj)
    return obj


def _load_object(value: str) -> object:
    """The object a built-in ``module:attribute`` value names (as ``EntryPoint.load``
    finds it)."""
    import importlib

    module, _, attrs = value.partition(":")
    obj: object = importlib.import_module(module.strip())
    for attr in filter(None, attrs.strip().split(".")):
        obj = getattr(obj, attr)
    return obj


_loaded = False


def load_builtin_domains() -> None:
    """Load every installed domain once (built-in and third-party alike).

    A plug-in that fails to load is skipped here with a warning on stderr, so one broken
    package does not take ``accord scenarios`` down; asking for it by name still raises.
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    import sys

    for name in domain_names():
        try:
            load_domain(name)
        except ImportError as exc:
            print(f"warning: {exc}", file=sys.stderr)


def list_domain_scenarios(name: str) -> tuple[list[str], str]:
    """``(scenario names, hint)`` of the domain ``name``; the hint says why the list is
    empty (e.g. data not installed).

    A domain package may export ``list_scenarios()`` (and ``scenarios_hint``) from a module
    that imports no agents, protocols, LLM clients or numpy; then the domain itself is not
    imported, which keeps ``accord scenarios`` cheap. Every built-in domain does. Other
    domains are loaded and asked (``Domain.scenarios()`` and ``scenarios_hint``). A
    plug-in that fails to import raises ``ImportError`` naming it.
    """
    import importlib

    ep = domain_entry_points().get(name)
    if ep is not None:
        try:
            package = importlib.import_module(ep.module)
        except Exception as exc:  # a third-party module can fail in any way
            raise ImportError(f"domain {name!r} (entry point {ep.value!r}) failed to load: "
                              f"{type(exc).__name__}: {exc}") from exc
        lister = getattr(package, "list_scenarios", None)
        if callable(lister):
            return list(lister()), str(getattr(package, "scenarios_hint", "none installed"))
    from accord.domains.base import registered_domains

    domain = registered_domains().get(name) or load_domain(name)
    if domain is None:
        raise ImportError(f"no domain {name!r} is installed")
    return domain.scenarios(), str(getattr(domain, "scenarios_hint", "none installed"))


def domain_module(name: str) -> str | None:
    """The module that registers the installed domain ``name`` (``None`` for others).

    Importing just that module is enough to run its episodes: a worker process imports
    the domains its tasks need, not all of them.
    """
    ep = domain_entry_points().get(name)
    return None if ep is None else ep.module


__all__ = [
    "BUILTIN_DOMAINS",
    "ENTRY_POINT_GROUP",
    "Domain",
    "EpisodeSpec",
    "RunContext",
    "all_domains",
    "domain_entry_points",
    "domain_module",
    "domain_names",
    "get_domain",
    "is_domain_name",
    "list_domain_scenarios",
    "load_builtin_domains",
    "load_domain",
    "register_domain",
    "registered_domains",
]
