"""``accord games play`` names each episode's flags in words, not metric keys.

It printed ``coordinated nash pareto_optimal_nash``; the summary line beside it (and every
other domain's people-facing text) says "Nash", "Pareto-optimal Nash".
"""

from __future__ import annotations

from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.games.cli import flag_words


def _lines(*args: str) -> list[str]:
    res = CliRunner().invoke(app, ["games", "play", *args], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


def test_a_coordinated_equilibrium_reads_in_words() -> None:
    first = _lines("stag-hunt", "-a", "rational")[0]
    assert first == ("seed 0: (stag, stag)  payoffs Alice 3, Bob 3; coordinated, a Nash "
                     "equilibrium, Pareto-optimal Nash")
    assert "pareto_optimal_nash" not in first


def test_a_sequential_game_says_subgame_perfect() -> None:
    first = _lines("escalation", "-a", "rational")[0]
    assert first.endswith("; a subgame-perfect path, Pareto-optimal subgame-perfect")


def test_flag_words_of_a_miscoordination_and_of_nothing() -> None:
    assert flag_words({"coordinated": False, "nash": False,
                       "pareto_optimal_nash": False}) == "miscoordinated"
    assert flag_words({"coordinated": None, "nash": False}) == ""
