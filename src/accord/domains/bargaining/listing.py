"""The built-in bargaining scenario names, read without importing the domain.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`); this module imports nothing beyond the
standard library, so a listing never loads numpy, the agents or the LLM layer.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

_DATA = "accord.domains.bargaining"


@lru_cache(maxsize=1)
def builtin_names() -> tuple[str, ...]:
    """The scenario files shipped in ``data/`` (``NAME.yaml``), sorted by name."""
    # the package's data folder does not change while the process runs: list it once
    root = resources.files(_DATA).joinpath("data")
    return tuple(sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml")))


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios (what ``Domain.scenarios()`` returns)."""
    return list(builtin_names())
