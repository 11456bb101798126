"""Text from a model, a person or a file made inert for a terminal: the one place that
says which characters a terminal would act on (the command line and the results tables
both use it)."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: object) -> str:
    """``text`` with every control character (ESC of ANSI/OSC sequences, C1 codes, bell,
    carriage return ...) shown literally as ``\\xNN``; newlines and tabs are kept."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def inert_markup(text: object) -> str:
    """:func:`inert`, with rich markup escaped too: for a cell or title of a rich table,
    where ``[bold]`` in a name would otherwise be rendered."""
    from rich.markup import escape

    return escape(inert(text))
