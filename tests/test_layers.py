"""The layers of DESIGN.md hold: no import runs from the pure core up into the layers above.

``core``, ``solvers``, ``protocols`` and ``llm`` never import ``agents``, ``domains``,
``testing``, ``bench`` or ``cli`` — not at module level, not inside a function, not under
``TYPE_CHECKING``. Checked on the source (every ``import`` statement), so a lazy import
cannot hide a break.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "accord"
LOWER = ("core", "solvers", "protocols", "llm")
UPPER = ("agents", "domains", "testing", "bench", "cli")


def imported(path: Path) -> list[tuple[int, str]]:
    """Every absolute module an ``import`` statement of ``path`` names, with its line."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
            out.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return out


@pytest.mark.parametrize("layer", LOWER)
def test_lower_layers_import_nothing_above_them(layer: str) -> None:
    breaks = [f"{path.relative_to(SRC.parent)}:{line} imports {name}"
              for path in sorted((SRC / layer).rglob("*.py"))
              for line, name in imported(path)
              if any(name == f"accord.{up}" or name.startswith(f"accord.{up}.")
                     for up in UPPER)]
    assert not breaks, "\n".join(breaks)


def test_the_check_sees_a_break() -> None:
    """The scanner itself finds imports wherever they stand (guards against a vacuous pass)."""
    names = {name for _, name in imported(SRC / "cli" / "run.py")}
    assert "accord.cli" in names and any(n.startswith("accord.domains") for n in names)
