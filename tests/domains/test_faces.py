"""The domain packages' lazy faces: every exported name resolves, and none is shadowed by a
submodule of the same name (importing that submodule would replace the export)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

DOMAINS = ["bargaining", "deal_or_no_deal", "games", "task_exchange", "deliberation"]


@pytest.mark.parametrize("name", DOMAINS)
def test_every_export_resolves_and_no_submodule_shadows_it(name: str) -> None:
    package = importlib.import_module(f"accord.domains.{name}")
    submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert not submodules & set(package.__all__), "an export has a submodule's name"
    for export in package.__all__:
        assert getattr(package, export) is not None
    assert "DOMAIN" in package.__all__
