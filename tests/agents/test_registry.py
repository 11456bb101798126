"""The built-in bargaining kinds read their numeric options as numbers, or say which one is
wrong (not Python's ``'<=' not supported between instances of 'float' and 'str'``)."""

from __future__ import annotations

import pytest

from accord.agents.registry import NEGOTIATORS
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.domains.bargaining import resolve_scenario


def _build(spec: str) -> object:
    scenario = resolve_scenario("buyer-seller")
    return NEGOTIATORS.build(parse_agent_spec(spec), {"party": "buyer", "scenario": scenario})


@pytest.mark.parametrize(("spec", "message"), [
    ("random?p_accept=abc", "option p_accept must be a number, got 'abc'"),
    ("random?p_accept=[1]", "option p_accept must be a number, got [1]"),
    ("tit-for-tat?initial_concession=abc",
     "option initial_concession must be a number, got 'abc'"),
    ("tit-for-tat?initial_concession=true", "option initial_concession must be a number, got True"),
    ("time-based:abc", "option e must be a number, got 'abc'"),
    ("time-based?e=1e400", "option e must be a finite number, got '1e400'"),
])
def test_a_numeric_option_that_is_not_a_number_is_named(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match="bad options for agent") as err:
        _build(spec)
    assert message in str(err.value)
    assert "not supported between" not in str(err.value)


@pytest.mark.parametrize(("spec", "attr", "value"), [
    ("random?p_accept=1", "p_accept", 1.0),
    ("tit-for-tat?initial_concession=0.1", "initial_concession", 0.1),
    ("time-based:0.5", "e", 0.5),
    ("time-based?e=3", "e", 3.0),
])
def test_numeric_options_still_build(spec: str, attr: str, value: float) -> None:
    assert getattr(_build(spec), attr) == value
