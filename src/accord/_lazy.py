"""Lazy package exports (PEP 562): a package names what it exports and where it lives,
and a name's module is imported on first use.

So ``import accord.domains.games`` (which every domain command group, entry point and
plug-in lookup does) costs nothing until a name is used, and ``accord --help`` does not
load numpy, the solvers and every domain to list the command groups.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps each public name to
    the submodule (relative to ``package``) that defines it; the value is cached on the
    package after its first use."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
