"""Quoting another party's text as inert data."""

from __future__ import annotations


def quote_counterpart(party: str, text: str) -> str:
    """Another party's text as inert, delimited data (angle brackets neutralised)."""
    safe = text.replace("<", "‹").replace(">", "›")
    return f'<COUNTERPART_TEXT from="{party}">{safe}</COUNTERPART_TEXT>'
