"""The ``games`` domain (run_episode from an EpisodeSpec) and the ``games`` CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.games import GameFileError, GamesDomain, catalog_names
from accord.domains.games.cli import app

runner = CliRunner()
DOMAIN = GamesDomain()


def spec(scenario: str, agents: str, seed: int = 0, **params: object) -> EpisodeSpec:
    return EpisodeSpec("games", scenario, tuple(parse_agent_list(agents)), params, seed)


def test_domain_registration_and_listing() -> None:
    import accord.domains.games  # noqa: F401  (registers on import)
    from accord.domains.base import _DOMAINS

    assert isinstance(_DOMAINS["games"], GamesDomain)
    assert DOMAIN.scenarios() == catalog_names()
    assert DOMAIN.agent_kinds() == ["rational", "random", "fixed", "llm", "llm-workflow",
                                    "human"]


async def test_run_episode_with_params_and_metrics() -> None:
    s = spec("golden-balls", "rational", negotiation_rounds=2, first_speaker="Bob",
             jackpot=500)
    res = await DOMAIN.run_episode(s, RunContext())
    assert res.status == "completed"
    assert [m["speaker"] for m in res.record["messages"]] == ["Bob", "Alice", "Bob", "Alice"]
    assert res.record["profile"] == ["steal", "steal"]
    metrics = DOMAIN.metrics(s, res)
    assert metrics["nash"] is True and metrics["welfare"] == 0.0
    split = await DOMAIN.run_episode(spec("golden-balls", "fixed:split", jackpot=500),
                                     RunContext())
    assert split.record["payoffs"] == {"Alice": 250, "Bob": 250}


async def test_seeds_make_episodes_reproducible() -> None:
    runs = [await DOMAIN.run_episode(spec("rock-paper-scissors", "random,random", seed=s),
                                     RunContext()) for s in (4, 4, 5, 6, 7, 8)]
    profiles = [r.record["profile"] for r in runs]
    assert profiles[0] == profiles[1]
    assert len({tuple(p) for p in profiles}) > 1


async def test_game_file_scenario(tmp_path: Path) -> None:
    path = tmp_path / "chicken.yaml"
    path.write_text("type: normal\nplayers: [P, Q]\nactions: [[swerve, straight], "
                    "[swerve, straight]]\npayoffs:\n  - [[0, 0], [-1, 1]]\n"
                    "  - [[1, -1], [-9, -9]]\n")
    res = await DOMAIN.run_episode(spec(str(path), "rational,rational"), RunContext())
    assert res.record["players"] == ["P", "Q"]
    assert res.record["profile"] in (["swerve", "straight"], ["straight", "swerve"])
    assert DOMAIN.metrics(spec(str(path), "rational"), res)["nash"] is True


async def test_domain_errors() -> None:
    with pytest.raises(ValueError, match="has 2 players"):
        await DOMAIN.run_episode(spec("prisoners-dilemma", "random,random,random"),
                                 RunContext())
    with pytest.raises(GameFileError, match="episode parameters are"):
        await DOMAIN.run_episode(spec("prisoners-dilemma", "random", negotiaton_rounds=1),
                                 RunContext())
    with pytest.raises(GameFileError, match="unknown game"):
        await DOMAIN.run_episode(spec("prisoners-dilema", "random"), RunContext())


# -- CLI -----------------------------------------------------------------------------------

def _json(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_list() -> None:
    data = _json(["list", "--json"])
    assert [g["name"] for g in data["games"]] == catalog_names()
    gb = next(g for g in data["games"] if g["name"] == "golden-balls")
    assert gb["parameters"] == {"jackpot": "10000"}
    text = runner.invoke(app, ["list"], env={"COLUMNS": "160"})
    assert text.exit_code == 0 and "duopolistic-competition" in text.stdout


def test_cli_solve_json_shapes() -> None:
    pd = _json(["solve", "prisoners-dilemma", "--json"])
    assert set(pd) == {"type", "pure_nash", "pareto_optimal", "pareto_optimal_nash",
                       "mixed_nash", "mixed_complete"}
    assert pd["mixed_complete"] is True
    assert pd["type"] == "normal" and pd["pure_nash"] == [["defect", "defect"]]
    assert pd["pareto_optimal_nash"] == [["defect", "defect"]]
    assert ["cooperate", "cooperate"] in pd["pareto_optimal"]
    assert pd["mixed_nash"] == [[{"cooperate": 0.0, "defect": 1.0}] * 2]
    esc = _json(["solve", "escalation", "--json"])
    assert set(esc) == {"type", "pure_nash", "pareto_optimal", "pareto_optimal_nash", "spe",
                        "spe_complete"}
    assert esc["spe_complete"] is True
    assert esc["spe"] == [{"path": ["choice_1"], "payoff": [0, 0], "strategy": {
        "/": "choice_1", "/choice_2": "choice_2", "/choice_2/choice_2": "choice_2"}}]
    gb = _json(["solve", "golden-balls", "--json", "--param", "jackpot=3"])
    assert gb["pure_nash"] == [["split", "steal"], ["steal", "split"], ["steal", "steal"]]
    no_mixed = _json(["solve", "stag-hunt", "--json", "--no-mixed"])
    assert "mixed_nash" not in no_mixed


@pytest.mark.parametrize("name", ["stag-hunt", "wait-go", "hot-cold", "trigame", "draco",
                                  "monopoly", "duopolistic-competition", "battle-of-the-sexes",
                                  "rock-paper-scissors"])
def test_cli_solve_every_kind_of_game(name: str) -> None:
    data = _json(["solve", name, "--json"])
    assert data["type"] in ("normal", "extensive")
    text = runner.invoke(app, ["solve", name])
    assert text.exit_code == 0 and "Pareto optimal" in text.stdout


def test_cli_solve_issue_files(tmp_path: Path) -> None:
    normal = {"type": "normal", "players": ["Alice", "Bob"],
              "actions": [["cooperate", "defect"], ["cooperate", "defect"]],
              "payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}
    tree = {"type": "extensive", "players": ["Alice", "Bob"],
            "tree": {"player": "Alice", "actions": {
                "choice_1": {"payoff": [0, 0]},
                "choice_2": {"player": "Bob", "actions": {
                    "choice_1": {"payoff": [1, -2]}, "choice_2": {"payoff": [-1, -1]}}}}}}
    (tmp_path / "pd.json").write_text(json.dumps(normal))
    (tmp_path / "tree.json").write_text(json.dumps(tree))
    assert _json(["solve", str(tmp_path / "pd.json"), "--json"])["pure_nash"] == [
        ["defect", "defect"]]
    spe = _json(["solve", str(tmp_path / "tree.json"), "--json"])["spe"]
    assert [(e["path"], e["payoff"]) for e in spe] == [(["choice_1"], [0, 0])]


def test_cli_solve_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("type: normal\nplayers: [A]\nactions: [[x]]\npayoffs: [[1, 2]]\n")
    result = runner.invoke(app, ["solve", str(bad)])
    assert result.exit_code == 2
    assert "bad.yaml, line 4" in result.output and "payoffs[0]" in result.output
    assert runner.invoke(app, ["solve", "nope"]).exit_code == 2
    assert runner.invoke(app, ["solve", "golden-balls", "-p", "jackpot"]).exit_code == 2


def test_cli_play_json(tmp_path: Path) -> None:
    data = _json(["play", "stag-hunt", "--agents", "rational,random", "--negotiation-rounds",
                  "1", "--repeat", "5", "--seed", "3", "--json",
                  "--plot", str(tmp_path / "d.png")])
    assert data["game"] == "stag-hunt" and data["agents"] == ["rational", "random"]
    assert len(data["episodes"]) == 5 and [e["seed"] for e in data["episodes"]] == [3, 4, 5,
                                                                                     6, 7]
    assert all(len(e["messages"]) == 2 for e in data["episodes"])
    summary = data["summary"]
    hits = sum(e["outcome"] == ["stag", "stag"] for e in data["episodes"])
    assert summary["nash_rate"] == hits / 5
    assert summary["action_distribution"]["players"]["Alice"] == {"stag": 1.0, "hare": 0.0}
    assert (tmp_path / "d.png").exists()


def test_cli_play_text_and_errors() -> None:
    result = runner.invoke(app, ["play", "trigame", "-a", "rational,rational", "-k", "1"])
    assert result.exit_code == 0
    assert "choice_2, choice_1, choice_2" in result.stdout and "Nash 100%" in result.stdout
    assert runner.invoke(app, ["play", "trigame", "-a", "rational,nobody"]).exit_code == 2
    assert runner.invoke(app, ["play", "trigame", "-a", ","]).exit_code == 2
