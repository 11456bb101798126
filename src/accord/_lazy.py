"""Lazy package exports (PEP 562): a package names what it exports and where it lives,
and a name's module is imported on first use.

So ``import accord.domains.games`` (which every domain command group, entry point and
plug-in lookup does) costs nothing until a name is used, and ``accord --help`` does not
load numpy, the solvers and every domain to list the command groups. It is the one
mechanism behind every lazy package face (``accord.agents``, ``accord.domains`` and each
domain package).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, Iterable[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    ``exports`` maps each module to the public names it defines, one entry per module as
    in an import statement: ``".load"`` is relative to ``package``,
    ``"accord.protocols.agent"`` absolute. A value is cached on the package after its
    first use. A name listed under two modules is a mistake and raises ``ValueError``.
    """
    where: dict[str, str] = {}
    for module, names in exports.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package}: {name!r} is exported from both "
                                 f"{where[name]!r} and {module!r}")
            where[name] = module

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
