"""The one slot for a slow-call reporter, shared by the LLM layer and the command line.

The ``accord`` command installs a reporter before it knows whether any LLM call will be
made; importing :mod:`accord.llm` for that would cost every command its start-up time, so
the slot lives here, in a module that imports nothing. :mod:`accord.llm.progress` reads it
at each call (see there for what a reporter receives).
"""

from __future__ import annotations

from typing import Any

_SLOT: dict[str, Any] = {}


def get_reporter() -> Any:
    """The installed reporter (a callable taking one notice), or ``None``."""
    return _SLOT.get("reporter")


def set_reporter(reporter: Any) -> Any:
    """Install ``reporter`` (``None``: remove it); returns the previous one."""
    previous = _SLOT.get("reporter")
    _SLOT["reporter"] = reporter
    return previous


__all__ = ["get_reporter", "set_reporter"]
