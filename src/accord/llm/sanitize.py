"""Text from a model made safe to keep and to send again (issue 24).

A reply may hold a lone UTF-16 surrogate (JSON's ``"\\ud800"`` decodes to one): Python
keeps it in a ``str``, but it cannot be encoded as UTF-8, so the next request of the
session, the cache row and the store record would all fail and end the episode.
:func:`clean_text` replaces each lone surrogate with U+FFFD (a correctly paired one
becomes the character it encodes) before the text goes anywhere.
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"
"""What a lone surrogate becomes."""


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged when it has none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


__all__ = ["REPLACEMENT", "clean_text"]
