"""The "marked" bargaining scenario for leak tests: two parties whose private numbers are
distinctive, so one side's BATNA, weights or values showing up in the other side's view
(a prompt, a memory, an exported example, a critic's advice) is easy to spot.

``write_marked(folder)`` writes ``marked.yaml`` (the scenario, from ``data/marked.yaml``)
into ``folder`` and returns a :class:`Marked` with its path and each side's numbers as
they are printed in the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

MARKED_BUYER: tuple[str, ...] = ("0.1317", "0.6391", "0.3609", "0.7713", "0.2291", "0.5417")
"""The buyer's BATNA, weights and inner values, as written."""
MARKED_SELLER: tuple[str, ...] = ("0.2483", "0.8123", "0.1877", "0.3359", "0.6947", "0.4421")
"""The seller's BATNA, weights and inner values, as written."""


@dataclass(frozen=True)
class Marked:
    """A written marked scenario: its file and each side's distinctive numbers."""

    path: Path
    buyer: tuple[str, ...] = MARKED_BUYER
    seller: tuple[str, ...] = MARKED_SELLER


def marked_text() -> str:
    """The scenario's YAML text."""
    return (resources.files("accord.testing") / "data" / "marked.yaml").read_text(
        encoding="utf-8")


def write_marked(folder: str | Path) -> Marked:
    """Write ``marked.yaml`` into ``folder``; its numbers are checked against the file."""
    text = marked_text()
    missing = [x for x in (*MARKED_BUYER, *MARKED_SELLER) if x not in text]
    if missing:  # the constants and the data file must tell the same story
        raise ValueError(f"marked.yaml lacks {', '.join(missing)}")
    path = Path(folder) / "marked.yaml"
    path.write_text(text, encoding="utf-8")
    return Marked(path)


__all__ = ["MARKED_BUYER", "MARKED_SELLER", "Marked", "marked_text", "write_marked"]
