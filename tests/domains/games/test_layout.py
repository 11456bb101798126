"""The ``games`` layout (seed 003 Tables 5-8): hand-made episodes, and a store of the
shipped games_tables5_8 spec (mock LLMs, one seed) through the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.games import layout as L
from accord.domains.games.domain import GamesDomain

CONFIGS = Path(__file__).resolve().parents[3] / "src" / "accord" / "configs"
runner = CliRunner()


def _ep(game: str, agent: str, nash: bool, pone: bool, rounds: int = 0,
        status: str = "done") -> dict[str, Any]:
    return {"id": f"{game}{agent}{nash}{pone}{rounds}", "status": status,
            "spec": {"domain": "games", "scenario": game, "agents": [agent, agent],
                     "params": {"negotiation_rounds": rounds}, "seed": 0},
            "labels": {}, "metrics": {"nash": nash, "pareto_optimal_nash": pone}}


def test_the_domain_offers_the_layout() -> None:
    assert GamesDomain().layouts()["games"] is L.games_layout


def test_rates_average_row_and_table_numbers_by_hand() -> None:
    a = "llm:openai/gpt-4o?temperature=1"
    eps = [_ep("stag-hunt", a, True, True), _ep("stag-hunt", a, True, False),
           _ep("prisoners-dilemma", a, False, False), _ep("prisoners-dilemma", a, True, True),
           _ep("stag-hunt", "llm-workflow:openai/gpt-4o", True, True, rounds=4),
           _ep("stag-hunt", "rational", True, True),
           _ep("stag-hunt", a, True, True, status="failed")]
    text, data = L.games_layout(eps)
    t5 = data["tables"][0]
    assert (t5["table"], t5["mode"], t5["models"]) == ("5", "cot", ["openai/gpt-4o"])
    assert [r["game"] for r in t5["rows"]] == ["prisoners-dilemma", "stag-hunt"]  # paper order
    stag = t5["rows"][1]["cells"]["openai/gpt-4o"]
    assert (stag["ne"], stag["pone"], stag["n"]) == (1.0, 0.5, 2)
    assert t5["average"]["openai/gpt-4o"] == {"ne": 0.75, "pone": 0.5}  # mean of the games
    assert [t["table"] for t in data["tables"]] == ["5", "8", None]
    assert data["skipped"]["not_done"] == 1
    assert "| Stag Hunt | 1.00 | 0.50 |" in text and "| average | 0.75 | 0.50 |" in text
    assert "Table 8: workflow-LLM, with 4 rounds of negotiation" in text
    with pytest.raises(ValueError, match="no finished games episodes"):
        L.games_layout([])


def test_store_of_the_shipped_tables5_8_spec(tmp_path: Path) -> None:
    text = (CONFIGS / "games_tables5_8.yaml").read_text(encoding="utf-8")
    text, n = re.subn(r"^seeds: 10$", "seeds: 1", text, flags=re.M)
    assert n == 1
    spec = tmp_path / "g.yaml"
    spec.write_text(text, encoding="utf-8")
    store = tmp_path / "g.db"
    res = runner.invoke(app, ["bench", str(spec), "--out", str(store), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["results", str(store), "--layout", "games", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["episodes"] == 60
    numbered = {t["table"]: t for t in data["tables"] if t["table"]}
    assert sorted(numbered) == ["5", "6", "7", "8"]
    for t in data["tables"]:
        assert [r["game"] for r in t["rows"]] == list(L.PAPER_GAMES)
        assert all(c["n"] == 1 for r in t["rows"] for c in r["cells"].values())
    assert numbered["5"]["models"] == ["mock/games"]
    rational = [t for t in data["tables"] if t["mode"] == "code"]
    assert [t["negotiation_rounds"] for t in rational] == [0, 4]
    # the rational code agent plays the equilibrium the metrics check: NE rate 1 everywhere
    assert all(r["cells"]["rational"]["ne"] == 1.0 for t in rational for r in t["rows"])
    res = runner.invoke(app, ["results", str(store), "--layout", "games"])
    assert "Table 5: LLM, chain of thought, without negotiation" in res.stdout
    assert "| average |" in res.stdout
