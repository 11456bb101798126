"""Experiment spec parsing, expansion and episode ids."""

from __future__ import annotations

import pytest

from accord.agents.spec import parse_agent_spec
from accord.bench import ConfigError, episode_id, expand, load_config, parse_config
from accord.domains import EpisodeSpec

MINIMAL = """\
name: demo
domain: bargaining
scenarios: [buyer-seller, procurement]
agents:
  - [boulware, conceder]
  - [linear, linear]
seeds: 5
"""


def test_minimal_spec_expands_to_the_cartesian_product(write_config):
    cfg = load_config(write_config(MINIMAL))
    plan = expand(cfg)
    assert cfg.name == "demo"
    assert len(plan.episodes) == 2 * 2 * 5
    cells = {(e.spec.scenario, tuple(map(str, e.spec.agents))) for e in plan.episodes}
    assert cells == {(s, a) for s in ("buyer-seller", "procurement")
                     for a in (("boulware", "conceder"), ("linear", "linear"))}
    assert sorted({e.spec.seed for e in plan.episodes}) == [0, 1, 2, 3, 4]
    assert len({e.id for e in plan.episodes}) == 20
    # seed-major execution order: the first four episodes are the four cells' seed 0
    assert [e.spec.seed for e in plan.episodes[:4]] == [0, 0, 0, 0]


def test_ids_are_deterministic_and_hash_the_full_spec(write_config):
    a = [e.id for e in expand(load_config(write_config(MINIMAL))).episodes]
    b = [e.id for e in expand(load_config(write_config(MINIMAL, "again.yaml"))).episodes]
    assert a == b
    spec = EpisodeSpec("bargaining", "split", (parse_agent_spec("boulware"),) * 2, {}, 3)
    assert episode_id(spec) == episode_id(spec, 0)
    assert episode_id(spec) != episode_id(spec, 1)
    other = EpisodeSpec("bargaining", "split", (parse_agent_spec("boulware?e=0.1"),) * 2,
                        {}, 3)
    assert episode_id(other) != episode_id(spec)
    withp = EpisodeSpec("bargaining", "split", spec.agents, {"max_rounds": 5}, 3)
    assert episode_id(withp) != episode_id(spec)


def test_labels_and_credentials_do_not_change_ids():
    base = {"name": "x", "domain": "bargaining", "scenarios": ["split"], "seeds": 1}
    plain = parse_config({**base, "agents": [["linear", "conceder"]]})
    named = parse_config({**base, "agents": [{"name": "pair", "agents": [
        {"kind": "linear", "name": "L"}, "conceder"]}]})
    assert expand(plain).episodes[0].id == expand(named).episodes[0].id
    assert expand(named).episodes[0].labels == {"lineup": "pair", "agents": ["L", "conceder"]}
    k1 = parse_config({**base, "agents": [["linear", "conceder"]],
                       "params": {"judge": "rules?api_key=sk-aaaaaaaaaaaaaaaaaaaaaaaa"}})
    k2 = parse_config({**base, "agents": [["linear", "conceder"]],
                       "params": {"judge": "rules?api_key=sk-bbbbbbbbbbbbbbbbbbbbbbbb"}})
    e1, e2 = expand(k1, validate=False).episodes[0], expand(k2, validate=False).episodes[0]
    assert e1.id == e2.id
    assert "sk-" not in str(e1.spec_record())


def test_richer_forms():
    cfg = parse_config({
        "name": "rich", "domain": "bargaining", "scenarios": "split",
        "agents": {"product": [["boulware", "linear"], ["conceder", {"kind": "tit-for-tat"}]]},
        "params": {"max_rounds": [10, 20], "stagnation_rounds": 2},
        "seeds": {"start": 7, "count": 2}, "repeat": 2})
    plan = expand(cfg)
    assert len(plan.episodes) == 4 * 2 * 2 * 2
    assert {e.spec.seed for e in plan.episodes} == {7, 8}
    assert {e.repeat for e in plan.episodes} == {0, 1}
    assert {e.spec.params["max_rounds"] for e in plan.episodes} == {10, 20}
    assert all(e.spec.params["stagnation_rounds"] == 2 for e in plan.episodes)
    union = parse_config({"name": "u", "domain": "bargaining", "scenarios": ["split"],
                          "agents": ["linear,conceder"], "seeds": [3, 1],
                          "params": [{"max_rounds": [5, 6]}, {"mediator": "midpoint"}]})
    plan = expand(union)
    assert sorted(str(dict(e.spec.params)) for e in plan.episodes if e.spec.seed == 3) == [
        "{'max_rounds': 5}", "{'max_rounds': 6}", "{'mediator': 'midpoint'}"]


def test_sweeps_inherit_top_level_defaults():
    cfg = parse_config({
        "name": "m", "plugins": ["accord.testing.sleep_domain"], "seeds": 2,
        "sweeps": [
            {"domain": "bargaining", "scenarios": ["split"], "agents": [["linear", "linear"]]},
            {"domain": "testing-sleep", "scenarios": ["nap"], "agents": [["sleeper"]],
             "seeds": 3, "repeat": 2}]})
    plan = expand(cfg)
    by_domain = {d: [e for e in plan.episodes if e.spec.domain == d]
                 for d in ("bargaining", "testing-sleep")}
    assert len(by_domain["bargaining"]) == 2
    assert len(by_domain["testing-sleep"]) == 6
    all_cfg = parse_config({"name": "a", "domain": "bargaining", "scenarios": "all",
                            "agents": [["linear", "linear"]]})
    assert {e.spec.scenario for e in expand(all_cfg, validate=False).episodes} >= {
        "buyer-seller", "split"}


@pytest.mark.parametrize(("text", "key", "problem", "line"), [
    (MINIMAL.replace("seeds: 5", "seeds: -1"), "seeds", "at least 1", 7),
    (MINIMAL.replace("seeds: 5", "seedz: 5"), "seedz", "did you mean 'seeds'", 7),
    (MINIMAL.replace("  - [linear, linear]", "  - [linear, '?x']"), "agents[1][1]",
     "no kind", 6),
    (MINIMAL.replace("domain: bargaining", "domain: chess"), "domain", "unknown domain", 2),
    (MINIMAL + "seeds: 3\n", "seeds", "duplicate key", 8),
    (MINIMAL.replace("seeds: 5", "seeds: [1, 2, 1]"), "seeds", "listed twice", 7),
    (MINIMAL.replace("[buyer-seller, procurement]", "[]"), "scenarios", "empty list", 3),
    (MINIMAL.replace("agents:\n  - [boulware, conceder]\n  - [linear, linear]\n",
                     "agents: 5\n"), "agents", "list of line-ups", 4),
    (MINIMAL + "concurrency: 0\n", "concurrency", "at least 1", 8),
    (MINIMAL + "executor: dask\n", "executor", "unknown executor", 8),
    (MINIMAL + "plugins: [no_such_module_xyz]\n", "plugins", "cannot import", 8),
    (MINIMAL.replace("name: demo", "name: 'a b'"), "name", "run name", 1),
])
def test_config_errors_name_file_line_key_and_problem(write_config, text, key, problem, line):
    path = write_config(text)
    with pytest.raises(ConfigError) as err:
        expand(load_config(path))
    msg = str(err.value)
    assert err.value.key == key, msg
    assert problem in msg
    assert msg.startswith(f"{path}:{line}: {key}: ")


def test_domain_validate_hook_reports_a_config_error(write_config, nap_config):
    cfg = nap_config(2)
    cfg["params"] = {"delay": [-1]}
    with pytest.raises(ConfigError) as err:
        expand(load_config(write_config(cfg)))
    assert "'delay' must be a number of seconds >= 0" in str(err.value)
    assert err.value.key == "params"  # the complaint is blamed on the key it is about


def test_domain_complaints_point_at_the_key_and_line(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text("name: t\ndomain: bargaining\nscenarios: [buyer-seller]\nagents:\n"
                    "  - [boulware, nope]\nseeds: 1\n")
    with pytest.raises(ConfigError) as err:
        expand(load_config(path))
    assert err.value.key == "agents" and str(err.value).startswith(f"{path}:4: agents:")
    assert "unknown agent 'nope'" in str(err.value)


@pytest.mark.parametrize(("params", "key", "line", "problem"), [
    ("params:\n  mediator: pareto\n  max_rounds: 0\n", "params.max_rounds", 10,
     "bargaining parameter 'max_rounds': input should be greater than or equal to 1, got 0"),
    ("params:\n  stagnation_measure: [utility, euclid]\n", "params.stagnation_measure", 9,
     "bargaining parameter 'stagnation_measure': must be one of utility, issues, got 'euclid'"),
    ("params:\n  - {max_rounds: 5}\n  - {judge: rules, stagnaton: code}\n",
     "params[1].stagnaton", 10, "unknown bargaining parameter 'stagnaton'; known: "),
    ("params:\n  - {max_rounds: 5}\n  - {max_rounds: 2.5}\n", "params", 8,
     "bargaining parameter 'max_rounds': input should be a valid integer, got 2.5"),
    ("params:\n  turn_order: [[buyer, buyer]]\n", "params.turn_order", 9,
     "bargaining parameter 'turn_order': must list each party of 'buyer-seller' once "
     "(buyer, seller), got ['buyer', 'buyer']"),
    ("params:\n  acceptance: 3\n", "params.acceptance", 9, "bargaining parameter "
     "'acceptance': must be at most the 2 parties of 'buyer-seller', got 3"),
])
def test_bargaining_param_errors_point_at_the_parameter_line(write_config, params, key, line,
                                                             problem):
    """A wrong bargaining parameter is reported at its own line (at the params line when the
    config names it more than once), with domain, key, problem and value."""
    path = write_config(MINIMAL.replace("procurement", "split") + params)
    with pytest.raises(ConfigError) as err:
        expand(load_config(path))
    msg = str(err.value)
    assert err.value.key == key, msg
    assert msg.startswith(f"{path}:{line}: {key}: ") and problem in msg, msg


def test_invalid_yaml_names_the_line(write_config):
    with pytest.raises(ConfigError) as err:
        load_config(write_config("name: x\nagents: [a, b\n"))
    assert err.value.key == "<yaml>"
    assert err.value.line is not None


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.yaml")
