"""AgentRegistry's lazy loading: once, for every thread, and never silently half-done."""

from __future__ import annotations

import re
import sys
import threading
import types
from pathlib import Path

import pytest

from accord.agents.kinds import AgentRegistry


def _registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str, body: str
              ) -> AgentRegistry[object, object]:
    """A registry whose lazy module (written to ``tmp_path``) runs ``body`` with ``h.REG``
    the registry itself."""
    holder = types.ModuleType(f"accord_test_holder_{tag}")
    registry: AgentRegistry[object, object] = AgentRegistry(
        f"test-{tag}", lazy=(f"accord_test_slow_kinds_{tag}",))
    holder.REG = registry  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, holder.__name__, holder)
    (tmp_path / f"accord_test_slow_kinds_{tag}.py").write_text(
        f"import time, {holder.__name__} as h\n{body}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return registry


def test_a_second_thread_waits_for_the_lazy_kinds_instead_of_seeing_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _registry(tmp_path, monkeypatch, "a", "time.sleep(0.3)\n"
                         "h.REG.register('slow', lambda spec, ctx: 'built')")
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
    registry = _registry(tmp_path, monkeypatch, "b", "assert 'x' not in h.REG\n"
                         "h.REG.register('x', lambda spec, ctx: None)")
    assert registry.kinds() == ["x"]


def test_check_turns_a_bad_option_into_an_agent_spec_error_naming_the_spec() -> None:
    """``check`` (validation before a run) words a factory's ValueError as ``build`` does:
    Deal or No Deal's ``workflow?lam=abc`` said only ``Invalid literal for Fraction``."""
    from accord.agents.spec import AgentSpecError, parse_agent_spec
    from accord.domains.deal_or_no_deal.agents import AGENT_KINDS

    for spec in ("workflow?lam=abc", "greedy?accept_share=abc"):
        with pytest.raises(AgentSpecError, match=re.escape(f"bad options for agent '{spec}'")):
            AGENT_KINDS.check(parse_agent_spec(spec))
