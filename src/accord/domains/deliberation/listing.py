"""The deliberation settings, defined and listed without importing the domain (or the
ILP solver); :mod:`.load` re-exports them.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`).
"""

from __future__ import annotations

MENU_SETTINGS: tuple[str, ...] = ("menu-numeric", "menu-semantic")
"""The two menu-design settings."""
TASK_SETTING = "task-allocation"
"""The task-allocation setting."""
SETTINGS: tuple[str, ...] = (*MENU_SETTINGS, TASK_SETTING)
"""All settings, in the paper's order."""


def list_scenarios() -> list[str]:
    """The settings, in the paper's order (what ``Domain.scenarios()`` returns)."""
    return list(SETTINGS)
