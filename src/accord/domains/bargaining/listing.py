"""The built-in bargaining scenario names, read without importing the domain.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`); this module imports nothing beyond the
standard library, so a listing never loads numpy, the agents or the LLM layer.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

_DATA = "accord.domains.bargaining"


def data_dir() -> Traversable:
    """The folder of the built-in scenario files (``data/`` next to this module).

    A plain path when the package is installed as files (always, for wheels and source
    checkouts), so reading it needs no :mod:`importlib.resources` (and its zipfile and
    tempfile imports); the resources API only for a package inside an archive.
    """
    here = Path(__file__).with_name("data")
    if here.is_dir():
        return here
    from importlib import resources

    return resources.files(_DATA).joinpath("data")


@lru_cache(maxsize=1)
def builtin_names() -> tuple[str, ...]:
    """The scenario files shipped in ``data/`` (``NAME.yaml``), sorted by name."""
    # the package's data folder does not change while the process runs: list it once
    return tuple(sorted(p.name[:-5] for p in data_dir().iterdir() if p.name.endswith(".yaml")))


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios (what ``Domain.scenarios()`` returns)."""
    return list(builtin_names())


__all__ = ["builtin_names", "data_dir", "list_scenarios"]
