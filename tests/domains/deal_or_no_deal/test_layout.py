"""The ``dond`` layout (seed 003 Tables 10-13, 17-18): hand-made episodes, and one store
filled by reduced copies of the shipped dond_tables10_13 and dond_tables17_18 specs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from accord.bench.published import compare as compare_published
from accord.cli.main import app
from accord.domains.deal_or_no_deal.domain import DealOrNoDealDomain
from accord.domains.deal_or_no_deal.layout import dond_layout

CONFIGS = Path(__file__).resolve().parents[3] / "src" / "accord" / "configs"
runner = CliRunner()
# seed 003's own example: counts (1, 1, 3), values (1, 3, 2) and (1, 0, 3); best 5 + 7
REC = {"counts": [1, 1, 3], "values": {"alice": [1, 3, 2], "bob": [1, 0, 3]}}


def _ep(lineup: str, agents: list[str], alice: int, bob: int, agreement: bool = True,
        best_total: int | None = 12, scenario: str = "test/L1") -> dict[str, Any]:
    met = {"rounds": 4, "agreement": agreement, "alice": alice, "bob": bob,
           "pareto_optimal": agreement, "envy_free": agreement, "total": alice + bob,
           "best_total": best_total}
    return {"id": f"{lineup}{alice}{bob}{scenario}", "status": "done", "outcome": "agreement",
            "spec": {"domain": "deal-or-no-deal", "scenario": scenario, "agents": agents},
            "labels": {"lineup": lineup, "agents": agents}, "metrics": met,
            "summary": {"record": REC}}


def test_the_domain_offers_the_layout() -> None:
    assert DealOrNoDealDomain().layouts()["dond"] is dond_layout


def test_rows_tables_and_the_best_row_by_hand() -> None:
    raw1, raw0 = "llm:openai/gpt-4o?temperature=1", "llm:openai/gpt-4o?temperature=0"
    wf = "llm-workflow:openai/gpt-4o?temperature=1"
    eps = [_ep("raw-gpt4o", [raw1, raw1], 5, 7), _ep("raw-gpt4o", [raw1, raw1], 0, 0, False),
           _ep("raw-gpt4o-t0", [raw0, raw0], 4, 6),
           _ep("wf", [wf, wf], 5, 7), _ep("wf-vs-raw", [wf, raw1], 6, 4),
           _ep("raw-vs-wf", [raw1, wf], 6, 4), _ep("code", ["greedy", "workflow"], 5, 7),
           _ep("raw-gpt4o", [raw1, raw1], 3, 3, best_total=None, scenario="test/L2")]
    text, data = dond_layout(eps)
    tables = {t["table"]: t for t in data["tables"]}
    assert list(tables) == ["10", "11", "12", "17", "18", None]
    t10 = tables["10"]
    row = next(r for r in t10["rows"] if r["row"] == "raw-gpt4o")
    assert (row["n"], row["agreement"], row["alice"], row["bob"], row["total"]) == \
        (2, 0.5, 2.5, 3.5, 6.0)
    assert t10["best"] == {"row": "Best", "n": 1, "rounds": None, "agreement": 1.0,
                           "alice": 5.0, "bob": 7.0, "pareto_optimal": 1.0,
                           "envy_free": 1.0, "total": 12.0}
    assert [r["row"] for r in tables["11"]["rows"]] == ["temp=0.0", "temp=1.0"]
    assert tables["12"]["best"] is not None and tables["17"]["best"] is None
    assert data["skipped"]["no_envy_free"] == 1  # the datapoint without an EF allocation
    assert "| Best | — | 1.0000 | 5.00 | 7.00 | 1.0000 | 1.0000 | 12.00 | 1 |" in text


def _reduced(name: str, tmp_path: Path) -> Path:
    text = (CONFIGS / name).read_text(encoding="utf-8")
    text, n = re.subn(r"^scenarios: \[.*?\]$", "scenarios: [test/L7, test/L9]", text,
                      flags=re.M | re.S)
    assert n == 1
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_one_store_of_both_shipped_specs(tmp_path: Path, dond_dir: Path) -> None:
    store = tmp_path / "dond.db"
    for name in ("dond_tables10_13.yaml", "dond_tables17_18.yaml"):
        res = runner.invoke(app, ["bench", str(_reduced(name, tmp_path)), "--out", str(store),
                                  "--data", str(dond_dir), "--quiet"])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["results", str(store), "--layout", "dond", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    tables = {t["table"]: t for t in data["tables"]}
    assert list(tables) == ["10", "11", "12", "13", "17", "18", None]
    assert data["episodes"] == 20 and all(t["datapoints"] == 2 for t in data["tables"])
    assert [r["row"] for r in tables["10"]["rows"]] == ["raw-mock", "raw-mock-t0"]
    assert [r["row"] for r in tables["17"]["rows"]] == ["workflow-vs-raw-mock"]
    assert [r["row"] for r in tables["18"]["rows"]] == ["raw-vs-workflow-mock"]
    for t in data["tables"]:
        for r in t["rows"]:
            assert r["n"] == 2 and r["total"] == pytest.approx(r["alice"] + r["bob"])


def test_the_shipped_specs_hold_the_44_datapoints_of_the_published_best_row(
        dond_dir: Path) -> None:
    """Tables 10 and 12's Best row (5.82, 6.66, 12.48) over the specs' datapoints."""
    from accord.domains.deal_or_no_deal.rules import best
    from accord.domains.deal_or_no_deal.selection import load_line, parse_line_id

    specs = [yaml.safe_load((CONFIGS / n).read_text(encoding="utf-8"))
             for n in ("dond_tables10_13.yaml", "dond_tables17_18.yaml")]
    assert specs[0]["scenarios"] == specs[1]["scenarios"]
    ids = specs[0]["scenarios"]
    assert len(ids) == 44
    lines = [parse_line_id(i) for i in ids]
    points = [load_line(str(dond_dir), "test", x[1]) for x in lines if x is not None]
    got = [best(p.counts, p.alice, p.bob) for p in points]
    assert all(b is not None for b in got)
    n = len(got)
    assert round(sum(b.alice for b in got) / n, 2) == 5.82
    assert round(sum(b.bob for b in got) / n, 2) == 6.66
    assert round(sum(b.total for b in got) / n, 2) == 12.48


def test_a_person_at_a_seat_is_a_human_row_of_table_10() -> None:
    eps = [_ep("human (alice) vs workflow", ["human", "workflow"], 4, 6),
           _ep("human (alice) vs workflow", ["human", "workflow"], 0, 0, False),
           _ep("raw", ["llm:openai/gpt-4o", "llm:openai/gpt-4o"], 5, 7)]
    text, data = dond_layout(eps)
    (t10,) = data["tables"]
    assert t10["table"] == "10"
    human = next(r for r in t10["rows"] if r.get("source") == "people")
    assert human["row"] == "Human (people: human (alice) vs workflow)"
    assert (human["n"], human["agreement"], human["total"]) == (2, 0.5, 5.0)
    assert human["human_seats"] == ["alice"]
    assert "Human rows: Human (people: ...) comes from episodes of this store with a person " \
           "at a seat" in text
    assert "(1 datapoint with an envy-free allocation)" in text  # not "1 datapoints"
    assert "\n3 finished episodes on datapoints with an envy-free allocation." in text
    one, _ = dond_layout(eps[:1])
    assert "\n1 finished episode on datapoints" in one
    cmp = {(c["row"], c["column"]): c for c in compare_published("dond", data)["cells"]
           if c["table"] == "10"}
    c = cmp[("Human (people: human (alice) vs workflow)", "agreement")]
    assert c["published"] == 0.6817 and c["difference"] == pytest.approx(0.5 - 0.6817)
    assert ("Human", "agreement") not in cmp  # the paper's Human row met by the people's


def test_human_rows_from_a_seated_episode_and_the_data_set(tmp_path: Path,
                                                          dond_dir: Path) -> None:
    """A person (a scripted seat) plays one datapoint through the domain; ``accord run
    --save``'s writer stores it; the layout shows it and, with --human-data, the data
    set's own Human row over the same datapoint, both beside the paper's Human row."""
    import asyncio

    from accord.agents.human import Seat
    from accord.bench.single import store_episode
    from accord.domains.base import EpisodeSpec, RunContext, get_domain
    from accord.domains.deal_or_no_deal.selection import load_line
    from accord.domains.deal_or_no_deal.stats import human_row

    class Accepts(Seat):
        async def ask(self, turn: Any) -> Any:
            return {"kind": "accept"} if turn.view.get("offer") else \
                {"kind": "message", "text": "what do you offer?"}

    dom = get_domain("deal-or-no-deal")
    spec = EpisodeSpec("deal-or-no-deal", "test/L7", ("human", "greedy"),
                       {"data": str(dond_dir)})
    result = asyncio.run(dom.run_episode(spec, RunContext(extra={"seat": Accepts()})))
    store = tmp_path / "people.db"
    store_episode(store, spec, result, dom.metrics(spec, result), seats={0: "alice"})

    res = runner.invoke(app, ["results", str(store), "--layout", "dond", "--json",
                              "--compare-published", "--human-data", str(dond_dir)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (t10,) = doc["layout"]["tables"]
    rows = {r["row"]: r for r in t10["rows"]}
    assert set(rows) == {"Human (data set)", "Human (people: human (alice) vs greedy)"}
    people = rows["Human (people: human (alice) vs greedy)"]
    assert people["source"] == "people" and people["agreement"] == 1.0
    assert people["alice"] == result.record["scores"]["alice"]
    data_row = rows["Human (data set)"]
    expected = human_row([load_line(str(dond_dir), "test", 7)])
    assert data_row["source"] == "dataset" and data_row["n"] == 1
    assert {k: data_row[k] for k in expected} == expected
    cells = {(c["row"], c["column"]): c for c in doc["published"]["cells"]
             if c["table"] == "10"}
    for row in rows:
        c = cells[(row, "total")]
        assert c["published"] == 6.64
        assert c["difference"] == pytest.approx(rows[row]["total"] - 6.64)
    res = runner.invoke(app, ["results", str(store), "--layout", "dond", "--human-data",
                              str(dond_dir), "--compare-published"])
    assert "Human (data set) comes from the humans' own outcome of the same datapoints in " \
           "the DealOrNoDeal data set" in res.stdout
    assert re.search(r"\| Human \(data set\) \| agreement \| 0\.6817 \| [01] \| "
                     r"[-+][0-9.]+ \|", res.stdout)
    # clear errors: the option belongs to the dond layout, and needs the data
    res = runner.invoke(app, ["results", str(store), "--layout", "games", "--human-data",
                              str(dond_dir)])
    assert res.exit_code != 0 and "--human-data works with --layout dond" in res.output
    missing = tmp_path / "nowhere"
    res = runner.invoke(app, ["results", str(store), "--layout", "dond", "--human-data",
                              str(missing)])
    assert res.exit_code != 0
    out = " ".join(res.output.split())  # rich may wrap the message
    # the option the user gave and the path tried, not the loader's "--data or ACCORD_DATA"
    assert f"--human-data {missing}: no Deal-or-No-Deal data there" in out
    assert f"looked for {missing / 'dealornodeal' / 'test.txt'}" in out
    assert "set --data" not in out and "ACCORD_DATA" not in out
