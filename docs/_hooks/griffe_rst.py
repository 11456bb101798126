"""Griffe extension: show accord's reStructuredText-flavoured docstrings as Markdown.

accord's docstrings use Sphinx roles (``:class:`~accord.core.Offer```) and ``::`` literal
blocks. mkdocstrings renders docstrings as Markdown, where those roles would print
literally; this extension turns each role into a code span of its target's short name and
``::`` before an indented block into ``:``. The docstrings themselves stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`([^`]+)`")
_LITERAL = re.compile(r"::$", re.MULTILINE)


def _target(match: re.Match[str]) -> str:
    text = match.group(1).strip()
    if "<" in text and text.endswith(">"):  # :class:`title <target>`
        return f"`{text[:text.index('<')].strip()}`"
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return f"`{text}`"


def convert(text: str) -> str:
    """The docstring ``text`` with roles as code spans and ``::`` as ``:``."""
    return _LITERAL.sub(":", _ROLE.sub(_target, text))


class RstRoles(griffe.Extension):
    """Rewrite each object's docstring once, as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
