"""The PettingZoo-style AEC environment (works with and without the pettingzoo extra)."""

from __future__ import annotations

import numpy as np
import pytest

from accord.domains.games import catalog_names, load_catalog_game, make_aec_env
from accord.domains.games.aec import HAVE_PETTINGZOO
from accord.domains.games.model import NormalFormGame


def _play(name: str, seed: int) -> tuple[dict[str, float], list[tuple[str, dict]]]:
    env = make_aec_env(load_catalog_game(name), render_mode="ansi")
    env.reset(seed=seed)
    totals: dict[str, float] = {}
    seen = []
    for agent in env.agent_iter(max_iter=100):
        obs, reward, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        seen.append((agent, obs))
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            env.step(None)
            continue
        action = env.action_space(agent).sample(obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert env.agents == []
    return totals, seen


@pytest.mark.parametrize("name", catalog_names())
def test_random_play_pays_the_outcome(name: str) -> None:
    game = load_catalog_game(name)
    totals, seen = _play(name, seed=1)
    final = {agent: obs["observation"] for agent, obs in seen[-len(game.players):]}
    first = next(iter(final.values()))
    if isinstance(game, NormalFormGame):
        profile = tuple(int(v) for v in first)
        want = game.payoff(profile)
    else:
        node_path: list[str] = []
        for idx in first:
            if idx < 0:
                break
            node_path.append(game.legal(tuple(node_path))[int(idx)])
        want = game.payoff(tuple(node_path))
    assert totals == {p: float(v) for p, v in zip(game.players, want, strict=True)}


def test_simultaneous_choices_stay_hidden() -> None:
    env = make_aec_env(load_catalog_game("prisoners-dilemma"))
    env.reset()
    assert env.agent_selection == "Alice"
    env.step(1)
    obs, *_ = env.last()
    assert env.agent_selection == "Bob"
    assert obs["observation"].tolist() == [-1, -1]  # Bob cannot see Alice's choice
    env.step(0)
    obs, _, term, *_ = env.last()
    assert term and obs["observation"].tolist() == [1, 0]
    assert env.rewards == {"Alice": 5.0, "Bob": 0.0}


def test_illegal_actions_and_rendering() -> None:
    env = make_aec_env(load_catalog_game("escalation"), render_mode="ansi")
    env.reset()
    with pytest.raises(ValueError, match="not legal"):
        env.step(5)
    env.step(0)  # Alice de-escalates: game over
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(1)
    text = env.render()
    assert text is not None and "Alice chooses" in text and "path: ['choice_1']" in text


@pytest.mark.skipif(not HAVE_PETTINGZOO, reason="pettingzoo extra not installed")
@pytest.mark.filterwarnings("ignore:.*:UserWarning")  # naming / dict-observation advice
@pytest.mark.parametrize("name", ["prisoners-dilemma", "trigame", "duopolistic-competition"])
def test_pettingzoo_api_test(name: str) -> None:
    from pettingzoo.test import api_test

    api_test(make_aec_env(load_catalog_game(name)), num_cycles=20)


def test_standalone_spaces() -> None:
    from accord.domains.games.aec import _Box, _DictSpace, _Discrete

    space = _Discrete(3, seed=1)
    assert {space.sample() for _ in range(50)} == {0, 1, 2}
    assert space.sample(np.array([0, 0, 1], dtype=np.int8)) == 2
    assert space.contains(2) and not space.contains(3) and not space.contains("a")
    obs = _DictSpace(observation=_Box(-1, 2, (2,), np.int64),
                     action_mask=_Box(0, 1, (3,), np.int8))
    assert obs.contains({"observation": np.array([-1, 2]), "action_mask": np.ones(3)})
    assert not obs.contains({"observation": np.array([3, 0]), "action_mask": np.ones(3)})


def test_env_with_standalone_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.domains.games.aec as aec

    monkeypatch.setattr(aec, "_spaces", None)  # as if gymnasium were not installed
    env = make_aec_env(load_catalog_game("hot-cold"))
    assert isinstance(env.action_space("Alice"), aec._Discrete)
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        env.step(None if term else env.action_space(agent).sample(obs["action_mask"]))
    assert env.agents == []
