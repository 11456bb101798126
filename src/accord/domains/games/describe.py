"""Plain-text renderings of games: payoff tables and trees, for people, logs and prompts."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.solvers.game_tree import Decision, Node


def fmt_number(value: Fraction) -> str:
    """``3``, ``-1.5`` or ``7/3``: the shortest exact text for a payoff."""
    if value.denominator == 1:
        return str(value.numerator)
    as_float = float(value)
    if Fraction(repr(as_float)) == value:
        return repr(as_float)
    return f"{value.numerator}/{value.denominator}"


def _cell(values: tuple[Fraction, ...]) -> str:
    return "(" + ", ".join(fmt_number(v) for v in values) + ")"


def render_normal(game: NormalFormGame) -> str:
    """A payoff table (two players) or one line per profile (other player counts)."""
    players = game.players
    if len(players) == 2:
        rows, cols = game.actions
        cells = [[_cell(game.payoff((i, j))) for j in range(len(cols))]
                 for i in range(len(rows))]
        head = f"{players[0]} \\ {players[1]}"
        w0 = max(len(head), *(len(r) for r in rows))
        widths = [max(len(c), *(len(cells[i][j]) for i in range(len(rows))))
                  for j, c in enumerate(cols)]
        lines = [head.ljust(w0) + " | " + " | ".join(c.ljust(w) for c, w in
                                                      zip(cols, widths, strict=True))]
        lines.append("-" * len(lines[0]))
        for i, r in enumerate(rows):
            lines.append(r.ljust(w0) + " | " + " | ".join(
                cells[i][j].ljust(w) for j, w in enumerate(widths)))
        lines.append(f"Cells are ({players[0]}'s payoff, {players[1]}'s payoff).")
        return "\n".join(lines)
    lines = [f"Profiles ({', '.join(players)}) and payoffs in that order:"]
    for prof in product(*(range(len(a)) for a in game.actions)):
        lines.append(f"  ({', '.join(game.profile_names(prof))}): {_cell(game.payoff(prof))}")
    return "\n".join(lines)


def render_tree(game: ExtensiveGame) -> str:
    """An indented tree: who chooses at each node and the payoffs at the leaves."""
    lines: list[str] = []

    def visit(node: Node, indent: str, label: str) -> None:
        if isinstance(node, Decision):
            lines.append(f"{indent}{label}{game.players[node.player]} chooses:")
            for a, child in zip(node.actions, node.children, strict=True):
                visit(child, indent + "  ", f"{a} -> ")
        else:
            pays = ", ".join(f"{p} {fmt_number(v)}" for p, v in
                             zip(game.players, node.payoff, strict=True))
            lines.append(f"{indent}{label}game ends, payoffs: {pays}")

    visit(game.tree, "", "")
    return "\n".join(lines)


def render_game(game: Game) -> str:
    """The game's payoff table or tree."""
    if isinstance(game, NormalFormGame):
        return render_normal(game)
    return render_tree(game)
