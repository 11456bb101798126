"""The built-in task-exchange scenario names, read without importing the domain.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`); this lists ``data/scenarios/*.yaml`` only.
"""

from __future__ import annotations

from pathlib import Path

SCENARIO_DIR = Path(__file__).resolve().parent / "data" / "scenarios"
"""Where the built-in scenario files live (the same folder as ``load.SCENARIO_DIR``)."""


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios (what ``Domain.scenarios()`` returns)."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))
