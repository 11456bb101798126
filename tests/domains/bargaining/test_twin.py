"""The built-in scenarios' JSON twin (``data/builtin.json``, issue 30): up to date with the
YAML files, read only when made from the very same text, exact to the type and key order.

Regenerate it after editing a built-in scenario with ``ACCORD_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from accord.core.safeload import parse_yaml
from accord.domains.bargaining import builtin_scenarios, resolve_scenario
from accord.domains.bargaining import twin as tw
from accord.domains.bargaining.listing import data_dir
from accord.domains.bargaining.runner import run_negotiation
from accord.testing.golden import check_golden


def _texts() -> dict[str, str]:
    return {n: (data_dir() / f"{n}.yaml").read_text(encoding="utf-8")
            for n in builtin_scenarios()}


def test_the_twin_is_up_to_date() -> None:
    """The shipped twin is what the YAML files give now (every built-in is in it)."""
    want = tw.build_twin(_texts())
    assert sorted(want["scenarios"]) == sorted(builtin_scenarios())
    check_golden(Path(str(data_dir() / tw.TWIN_FILE)), tw.render_twin(want))


@pytest.mark.parametrize("name", builtin_scenarios())
def test_twin_data_is_the_yaml_data_exactly(name: str) -> None:
    text = _texts()[name]
    from_yaml = parse_yaml(text, name).data
    got = tw.builtin_data(name, text)
    assert tw.same(got, from_yaml)
    assert got is tw._twin()[name]["data"]  # it came from the twin, not from the YAML


def test_an_edited_file_is_read_from_its_yaml() -> None:
    """A digest that does not match (a built-in edited in place) never uses the twin."""
    text = _texts()["buyer-seller"].replace("batna: 0.4", "batna: 0.45")
    got = tw.builtin_data("buyer-seller", text)
    assert got["parties"]["buyer"]["batna"] == 0.45


def test_a_missing_or_broken_twin_falls_back_to_yaml(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = _texts()["split"]
    want = parse_yaml(text, "split").data
    for content in (None, "{not json", json.dumps({"version": 999, "scenarios": {}}),
                    json.dumps([1, 2])):
        folder = tmp_path / str(hash(content))
        folder.mkdir()
        if content is not None:
            (folder / tw.TWIN_FILE).write_text(content, encoding="utf-8")
        monkeypatch.setattr(tw, "data_dir", lambda folder=folder: folder)
        tw._twin.cache_clear()
        try:
            assert tw._twin() == {}
            assert tw.same(tw.builtin_data("split", text), want)
        finally:
            tw._twin.cache_clear()


def test_encoding_keeps_key_types_and_order() -> None:
    data: dict[Any, Any] = {"name": "x", "values": {800: 1.0, 2.5: "a", True: None, None: [1]},
                            "order": {"b": 1, "a": {3: {"c": 2}}}}
    text = json.dumps(tw.encode(data))
    back = tw.decode(text)
    assert tw.same(back, data)
    assert list(back["values"]) == [800, 2.5, True, None]


def test_same_is_strict() -> None:
    assert not tw.same({1: 0}, {True: 0})
    assert not tw.same({1: 0}, {1.0: 0})
    assert not tw.same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not tw.same([1], [1.0])
    assert tw.same([math.nan], [math.nan])
    assert tw.same({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})


def test_a_scenario_that_json_cannot_carry_is_left_out() -> None:
    """YAML's dates and binary have no JSON form: such a scenario stays YAML-only (and
    still loads through :func:`builtin_data`)."""
    texts = {"dated": "name: dated\nwhen: 2024-01-01\n",
             "binary": "name: binary\nblob: !!binary aGVsbG8=\n",
             "plain": "name: plain\nvalues: {1: 0.5}\n"}
    assert list(tw.build_twin(texts)["scenarios"]) == ["plain"]
    assert str(tw.builtin_data("dated", texts["dated"])["when"]) == "2024-01-01"


def test_an_episode_on_the_twin_equals_one_on_the_yaml_file() -> None:
    """The built-in (from the twin) and the same file given by path (parsed from YAML)
    run the same episode."""
    path = str(data_dir() / "procurement.yaml")
    a = asyncio.run(run_negotiation(resolve_scenario("procurement"),
                                    _lineup("procurement"),
                                    seed=3))
    b = asyncio.run(run_negotiation(resolve_scenario(path), _lineup("procurement"), seed=3))
    sa, sb = a.summary(), b.summary()
    assert sa["status"] == sb["status"] and sa["rounds"] == sb["rounds"]
    assert sa["record"].get("agreement") == sb["record"].get("agreement")
    assert sa["record"].get("utilities") == sb["record"].get("utilities")


def _lineup(name: str) -> list[str]:
    kinds = ["boulware", "conceder", "linear", "boulware", "conceder"]
    return kinds[:len(resolve_scenario(name).party_names)]
