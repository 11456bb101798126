"""The data behind seed 003's section-6 figures in the ``games`` layout: hand-made episodes
whose shares are known, and one store filled by the six shipped games_section6_* specs
(mock LLMs, one seed) through the CLI, with --json and --compare-published."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.games import figures as F
from accord.domains.games.layout import games_layout

CONFIGS = Path(__file__).resolve().parents[3] / "src" / "accord" / "configs"
runner = CliRunner()
PD = [["cooperate", "defect"], ["cooperate", "defect"]]
V1 = [["action_1", "action_2"], ["action_1", "action_2"]]
GB = [["split", "steal"], ["split", "steal"]]


def _ep(game: str, profile: tuple[str, str], actions: list[list[str]], *, agent: str =
        "llm:mock/games?temperature=1", rounds: int = 0, nash: bool = False,
        **params: Any) -> dict[str, Any]:
    record = {"type": "normal", "completed": True, "profile": list(profile),
              "actions": dict(zip(("Alice", "Bob"), profile, strict=True)),
              "spec": {"actions": actions}}
    return {"status": "done", "labels": {},
            "spec": {"domain": "games", "scenario": game, "agents": [agent, agent],
                     "params": {"negotiation_rounds": rounds, **params}, "seed": 0},
            "summary": {"record": record},
            "metrics": {"nash": nash, "pareto_optimal_nash": nash}}


def _figure(data: dict[str, Any], number: str) -> dict[str, Any]:
    return next(f for f in data["figures"] if f["figure"] == number)


def test_figure5_shares_by_position_across_the_variants() -> None:
    eps = [_ep("prisoners-dilemma", ("defect", "defect"), PD, nash=True),
           _ep("prisoners-dilemma", ("cooperate", "defect"), PD),
           _ep("prisoners-dilemma", ("defect", "defect"), PD, nash=True),
           _ep("prisoners-dilemma-v1", ("action_1", "action_1"), V1),
           # with a personality: Figure 7's, not Figure 5's
           _ep("prisoners-dilemma", ("cooperate", "cooperate"), PD,
               agent="llm:mock/games?personality=witty")]
    _, data = games_layout(eps)
    fig = _figure(data, "5")
    (game,) = fig["games"]
    assert game["outcomes"] == ["a1, a1", "a1, a2", "a2, a1", "a2, a2"]
    classic, v1 = game["rows"]
    assert (classic["variant"], classic["n"]) == ("classic", 3)
    assert classic["outcomes"] == {"a1, a1": 0.0, "a1, a2": pytest.approx(1 / 3),
                                   "a2, a1": 0.0, "a2, a2": pytest.approx(2 / 3)}
    assert classic["ne"] == pytest.approx(2 / 3)
    assert (v1["variant"], v1["n"], v1["outcomes"]["a1, a1"]) == ("variation 1", 1, 1.0)
    fig7 = _figure(data, "7")["games"][0]
    assert [(r["personality"], r["n"]) for r in fig7["rows"]] == [("none", 3), ("witty", 1)]
    assert fig7["outcomes"][0] == "cooperate, cooperate"
    # the personality episode stays out of Table 5; the variation is a row of its own there
    assert data["skipped"]["personality_or_prompt"] == 1
    assert "6" not in [f["figure"] for f in data["figures"]]  # no Stag Hunt variation


def test_figure8_needs_two_round_counts_and_figure12_counts_every_decision() -> None:
    eps = [_ep("prisoners-dilemma", ("defect", "defect"), PD)]
    _, data = games_layout(eps)
    assert data["figures"] == []  # one round count, no variation: no section-6 figure
    eps.append(_ep("prisoners-dilemma", ("cooperate", "cooperate"), PD, rounds=2))
    gb = [_ep("golden-balls", ("split", "steal"), GB, jackpot=10),
          _ep("golden-balls", ("split", "split"), GB, jackpot=10),
          _ep("golden-balls", ("steal", "steal"), GB, jackpot=1000)]
    text, data = games_layout(eps + gb)
    rows = _figure(data, "8")["games"][0]["rows"]
    assert [(r["rounds"], r["outcomes"]["cooperate, cooperate"]) for r in rows] == \
        [(0, 0.0), (2, 1.0)]
    (row,) = _figure(data, "12")["games"][0]["rows"]
    assert (row["decisions"], row["split_rate"]) == (6, 0.5)
    assert row["jackpots"] == [{"jackpot": 10, "decisions": 4, "split_rate": 0.75},
                               {"jackpot": 1000, "decisions": 2, "split_rate": 0.0}]
    assert "Figure 8: Agents' performance under different numbers of negotiation" in text
    assert "| 0 | 6 | 0.50 | 0.75 | 0.00 |" in text  # rounds, decisions, split: all, per jackpot
    # talking first is another row of the same line-up
    _, talk = games_layout([*gb, _ep("golden-balls", ("split", "split"), GB, rounds=2,
                                     jackpot=10)])
    assert [(r["rounds"], r["split_rate"]) for r in _figure(talk, "12")["games"][0]["rows"]] \
        == [(0, 0.5), (2, 1.0)]
    # only section-6 episodes: the layout still prints (the figures), no Tables 5-8 error
    _, only = games_layout(gb)
    assert only["tables"] and _figure(only, "12")
    with pytest.raises(ValueError, match="no section-6 figure"):
        F.members("4", [])


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "s6.db"
    for name in ("perturbations", "personalities", "rounds", "prompts", "first_speaker",
                 "golden_balls"):
        text = (CONFIGS / f"games_section6_{name}.yaml").read_text(encoding="utf-8")
        text, n = re.subn(r"^seeds: \d+$", "seeds: 1", text, flags=re.M)
        assert n == 1
        spec = tmp_path / f"{name}.yaml"
        spec.write_text(text, encoding="utf-8")
        res = runner.invoke(app, ["bench", str(spec), "--out", str(store), "--quiet"])
        assert res.exit_code == 0, res.output
    return store


def test_store_of_the_shipped_section6_specs(tmp_path: Path) -> None:
    store = _store(tmp_path)
    res = runner.invoke(app, ["results", str(store), "--layout", "games", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    figs = {f["figure"]: f for f in data["figures"]}
    assert sorted(figs, key=int) == [str(n) for n in range(5, 13)]
    # one row per variant and model (the rounds spec's 0-round games add a classic row
    # of its trusting stand-in)
    assert [(r["variant"], r["model"]) for r in figs["5"]["games"][0]["rows"]] == [
        ("classic", "mock/games"), ("classic", "mock/games-trusting"),
        ("variation 1", "mock/games"), ("variation 2", "mock/games")]
    assert [g["game"] for g in figs["7"]["games"]] == ["prisoners-dilemma", "stag-hunt"]
    assert [r["personality"] for r in figs["7"]["games"][0]["rows"]
            if r["model"] == "mock/games"] == \
        ["none", "compassionate", "friendly", "helpful", "pragmatic", "rational", "witty"]
    assert [g["game"] for g in figs["8"]["games"]] == list(F.ROUNDS_GAMES)
    assert sorted({r["rounds"] for r in figs["8"]["games"][0]["rows"]}) == [0, 1, 2, 3]
    nine = figs["9"]["games"][0]["rows"]
    assert {(r["rounds"], r["prompt"]) for r in nine} == {
        (k, p) for k in (1, 2, 3) for p in ("none", "1", "2", "3", "4", "5", "6")}
    # the trusting stand-in: prompts 5 and 6 make it play the equilibrium, the others not
    by = {(r["rounds"], r["prompt"]): r for r in nine}
    assert by[(1, "6")]["outcomes"]["defect, defect"] == 1.0
    assert by[(1, "1")]["ne"] == 0.0
    assert {(r["rounds"], r["first_speaker"]) for r in figs["11"]["games"][0]["rows"]} == {
        (k, s) for k in (1, 2, 3) for s in ("Alice", "Bob")}
    gb = figs["12"]["games"][0]["rows"]
    assert [r["lineup"] for r in gb] == ["compassionate", "friendly", "helpful", "pragmatic",
                                         "rational", "witty"]
    assert all(r["decisions"] == 12 and len(r["jackpots"]) == 6 for r in gb)
    for f in figs.values():  # full precision: every share is a plain fraction of n
        for g in f["games"]:
            for r in g["rows"]:
                for share in r.get("outcomes", {}).values():
                    assert share * r["n"] == pytest.approx(round(share * r["n"]))
    res = runner.invoke(app, ["results", str(store), "--layout", "games"])
    assert res.exit_code == 0, res.output
    for n in range(5, 13):
        assert f"\nFigure {n}: " in res.stdout
    assert "| Rounds | Prompt | Model | n | NE | PO-NE | (cooperate, cooperate) |" in res.stdout
    res = runner.invoke(app, ["results", str(store), "--layout", "games",
                              "--compare-published", "--json"])
    assert res.exit_code == 0, res.output
    cmp = json.loads(res.stdout)["published"]
    cells = [c for c in cmp["cells"] if c["table"] == "Figure 12"]
    assert len(cells) == 6
    assert all(c["published"] == 0.53 and c["difference"] == pytest.approx(
        c["reproduced"] - 0.53) for c in cells)
    assert {c["row"] for c in cells} == {f"human contestants vs line-up {r['lineup']}"
                                         for r in gb}
    assert not [c for c in cmp["cells"] if c["table"] == "Figure 5"]  # no numbers to invent
    res = runner.invoke(app, ["results", str(store), "--layout", "games",
                              "--compare-published"])
    assert "Figure 5 only as a chart and prints no numbers" in res.stdout
    assert re.search(r"\| human contestants vs line-up witty \| split_rate \| 0\.53 \| "
                     r"[0-9.]+ \| [-+][0-9.]+ \|", res.stdout)
