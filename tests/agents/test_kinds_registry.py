"""AgentRegistry's lazy loading: once, for every thread, and never silently half-done."""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path

import pytest

from accord.agents.kinds import AgentRegistry


def _slow_module(tmp_path: Path, name: str, holder: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(
        f"import time, {holder} as h\n{body}\n", encoding="utf-8")


def test_a_second_thread_waits_for_the_lazy_kinds_instead_of_seeing_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    holder = types.ModuleType("accord_test_holder_a")
    registry: AgentRegistry[object, object] = AgentRegistry(
        "test-a", lazy=("accord_test_slow_kinds_a",))
    holder.REG = registry  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "accord_test_holder_a", holder)
    _slow_module(tmp_path, "accord_test_slow_kinds_a", "accord_test_holder_a",
                 "time.sleep(0.3)\nh.REG.register('slow', lambda spec, ctx: 'built')")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[bool] = []
    threads = [threading.Thread(target=lambda: seen.append("slow" in registry))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [True] * 4


def test_a_lazy_module_that_asks_the_registry_while_importing_does_not_recurse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    holder = types.ModuleType("accord_test_holder_b")
    registry: AgentRegistry[object, object] = AgentRegistry(
        "test-b", lazy=("accord_test_slow_kinds_b",))
    holder.REG = registry  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "accord_test_holder_b", holder)
    _slow_module(tmp_path, "accord_test_slow_kinds_b", "accord_test_holder_b",
                 "assert 'x' not in h.REG\nh.REG.register('x', lambda spec, ctx: None)")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.kinds() == ["x"]
