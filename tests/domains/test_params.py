"""Every built-in domain reads its parameters through one pydantic model (the one home of
their defaults): unknown keys and wrong types are refused by name, choices agree with the
domain's own constants."""

from __future__ import annotations

from typing import get_args

import pytest

from accord.domains import EpisodeSpec, all_domains, get_domain
from accord.domains.params import DEFAULT_MAX_RETRIES, DomainParams, describe, read_params
from accord.protocols.engine import Bounds

MODELLED = ("bargaining", "deal-or-no-deal", "deliberation", "games", "task-exchange")


@pytest.mark.parametrize("name", MODELLED)
def test_unknown_and_mistyped_params_are_refused_by_name(name: str) -> None:
    dom = get_domain(name)
    model = dom.params_model
    assert model is not None and issubclass(model, DomainParams)
    spec = EpisodeSpec(name, "x", (), {"max_retries": "3"}, 0)
    with pytest.raises(ValueError, match=f"{name} parameter 'max_retries': input should be a "
                       "valid integer, got '3'"):
        dom.params(spec)
    if model.model_config.get("extra") == "forbid":
        with pytest.raises(ValueError, match=f"unknown {name} parameter 'max_retry'; known: "):
            dom.params(EpisodeSpec(name, "x", (), {"max_retry": 1}, 0))
    assert dom.params(EpisodeSpec(name, "x", (), {}, 0)).max_retries == DEFAULT_MAX_RETRIES


def test_one_retry_default_everywhere() -> None:
    import inspect

    from accord.agents.kinds import AgentSettings
    from accord.domains.deal_or_no_deal.episode import play_datapoint
    from accord.domains.task_exchange.domain import DEFAULT_RETRIES
    from accord.domains.task_exchange.protocol import (
        TaskExchangeObservation,
        TaskExchangeProtocol,
    )

    assert Bounds().max_retries == DEFAULT_MAX_RETRIES
    assert AgentSettings().max_retries == DEFAULT_RETRIES == DEFAULT_MAX_RETRIES
    assert TaskExchangeObservation.__dataclass_fields__["max_retries"].default == DEFAULT_RETRIES
    for func in (play_datapoint, TaskExchangeProtocol.__init__):
        assert inspect.signature(func).parameters["max_retries"].default == DEFAULT_MAX_RETRIES
    for name in MODELLED:
        model = get_domain(name).params_model
        assert model is not None
        assert describe(model)["max_retries"]["default"] == DEFAULT_MAX_RETRIES


def test_choices_agree_with_the_domains_constants() -> None:
    from accord.domains.deal_or_no_deal.domain import DondParams
    from accord.domains.deal_or_no_deal.episode import FIRST_CHOICES
    from accord.domains.deliberation.domain import MODES, DeliberationParams
    from accord.domains.task_exchange.domain import TaskExchangeParams
    from accord.domains.task_exchange.protocol import STRATEGIES

    assert get_args(DondParams.model_fields["first"].annotation) == FIRST_CHOICES
    assert get_args(TaskExchangeParams.model_fields["strategy"].annotation) == STRATEGIES
    mode = DeliberationParams.model_fields["mode"].annotation
    assert get_args(get_args(mode)[0]) == MODES


def test_games_pass_other_keys_to_the_game_itself() -> None:
    from accord.domains.games.domain import GamesParams

    p = read_params(GamesParams, {"negotiation_rounds": 2, "a": 10}, "games")
    assert p.negotiation_rounds == 2 and p.model_extra == {"a": 10}
    with pytest.raises(ValueError, match="games parameter 'negotiation_rounds': input should "
                       "be greater than or equal to 0, got -1"):
        read_params(GamesParams, {"negotiation_rounds": -1}, "games")


def test_every_installed_domain_is_reachable() -> None:
    assert set(MODELLED) <= set(all_domains())
    assert all(get_domain(name).params_model is not None for name in MODELLED)


def test_bargaining_defaults_are_the_protocols_and_the_engines() -> None:
    """The model reads its defaults from AlternatingConfig and Bounds (written once)."""
    from accord.domains.bargaining.params import BargainingParams
    from accord.protocols.alternating import AlternatingConfig

    p = read_params(BargainingParams, {}, "bargaining")
    assert p.protocol_config() == AlternatingConfig()
    assert p.bounds() == Bounds(max_rounds=AlternatingConfig().max_rounds)
    info = describe(BargainingParams)
    # 'auto' (None): resolved per line-up, to the protocol's (seed 002's) K where it is on
    from accord.domains.bargaining.params import SEED_STAGNATION_ROUNDS

    assert info["stagnation_rounds"]["default"] is None
    assert AlternatingConfig().stagnation_rounds == SEED_STAGNATION_ROUNDS
    assert "Stagnation Scorer" in info["stagnation"]["description"]
    mixed = read_params(BargainingParams, {"turn_order": ["bob", "alice"], "mediator": "pareto",
                                           "stagnation": "llm:mock/stagnation",
                                           "stagnation_epsilon": 0}, "bargaining")
    cfg = mixed.protocol_config()
    assert (cfg.turn_order, cfg.mediator, cfg.stagnation_scorer, cfg.stagnation_epsilon) == (
        ("bob", "alice"), True, True, 0.0)


@pytest.mark.parametrize("params, message", [
    ({"max_rounds": 0}, "bargaining parameter 'max_rounds': input should be greater than or "
     "equal to 1, got 0"),
    ({"max_rounds": True}, "bargaining parameter 'max_rounds': input should be a valid "
     "integer, got True"),
    ({"wall_clock": float("inf")}, "bargaining parameter 'wall_clock': input should be a "
     "finite number, got inf"),
    ({"turn_order": "alice,bob"}, "bargaining parameter 'turn_order': input should be a "
     "valid list, got 'alice,bob'"),
    ({"stagnation": "gpt-4"}, "bargaining parameter 'stagnation': must be 'code' or "
     "'llm:MODEL' (the seed's Stagnation Scorer), got 'gpt-4'"),
    ({"stagnation_measure": "euclid"}, "bargaining parameter 'stagnation_measure': must be "
     "one of utility, issues, got 'euclid'"),
    ({"mediatr": "pareto"}, "unknown bargaining parameter 'mediatr'; known: acceptance, "),
])
def test_bargaining_params_name_key_problem_and_value(params: dict[str, object],
                                                      message: str) -> None:
    from accord.domains.bargaining.runner import ParamError, check_params

    with pytest.raises(ParamError) as err:
        check_params(params)
    assert str(err.value).startswith(message), str(err.value)


#: one valid episode per built-in domain (scenario, agents)
EPISODES = {
    "bargaining": ("buyer-seller", "boulware,conceder"),
    "deal-or-no-deal": ("test/0", "workflow,greedy"),
    "deliberation": ("menu-numeric", "share,share"),
    "games": ("prisoners-dilemma", "rational,rational"),
    "task-exchange": ("competitive", "utility-aware,selfish"),
}


@pytest.mark.parametrize("name", MODELLED)
def test_run_param_and_bench_params_go_through_the_model(name: str, tmp_path) -> None:
    """``accord run --param`` and a bench config's ``params`` both reach the domain's params
    model: a wrong value is a usage error naming the domain, the key and the value, and the
    bench error points at the parameter's line."""
    from typer.testing import CliRunner

    from accord.bench import ConfigError, expand, load_config
    from accord.cli.main import app

    scenario, agents = EPISODES[name]
    res = CliRunner().invoke(app, ["run", f"{name}/{scenario}", "-a", agents,
                                   "-p", "max_retries=-1"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"{name} parameter 'max_retries': input should be greater than or equal to 0, " \
        "got -1" in " ".join(res.output.split())
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"name: c\ndomain: {name}\nscenarios: [{scenario}]\n"
                   f"agents:\n  - [{agents}]\nseeds: 1\nparams:\n  max_retries: 1\n"
                   "  max_retries_per_turn: 2\n")
    with pytest.raises(ConfigError) as err:
        expand(load_config(cfg))
    if name == "games":  # other keys are the game's own parameters, checked by the game
        assert "has no parameter 'max_retries_per_turn'" in str(err.value)
    else:
        assert err.value.key == "params.max_retries_per_turn"
        assert f"unknown {name} parameter 'max_retries_per_turn'" in str(err.value)
        assert str(err.value).startswith(f"{cfg}:9: ")
