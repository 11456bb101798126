"""Forks and series on the episode page (issue 29 item 1): a fork names and links its
parent, its transcript marks where it starts, a parent lists its forks side by side (the
rows of ``accord fork``), a series episode shows its position and what it carried."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from accord.bench.lineage import comparison_rows
from accord.bench.store import Store
from accord.serve.transcript import transcript
from accord.serve.views import num


def _url(eid: str, run: str) -> str:
    return f"/episodes/{eid}?store=0&run={run}"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_fork_names_its_parent_and_marks_where_it_starts(make_client,
                                                           lineage_store: dict[str, Any]
                                                           ) -> None:
    c = make_client(lineage_store["path"])
    page = c.get(_url(lineage_store["fork"], "accord-fork")).text
    card = page[page.index('id="summary"'):page.index("</section>", page.index('id="summary"'))]
    assert 'id="fork-of"' in card  # in the summary card, before the plot and transcript
    said = _text(card[card.index('id="fork-of"') - 20:])
    assert f"Forked from {lineage_store['parent'][:10]} at round 5; changed: agents: " \
           "buyer=hardliner." in said
    link = re.search(r'<a href="([^"]+)" id="parent-link">', page)
    assert link is not None
    assert link.group(1) == f"/episodes/{lineage_store['parent']}?store=0&amp;run=accord-run"
    assert c.get(link.group(1).replace("&amp;", "&")).status_code == 200
    # the marker row sits where the fork starts: after the parent's rounds 1 to 4, before
    # the first move the fork made
    body = page[page.index('<table class="transcript">'):]
    rows = re.findall(r"<tr class=\"(ev-[a-z_]+)\"[^>]*><td>(\d+)</td>", body)
    kinds = [k for k, _ in rows]
    at = kinds.index("ev-fork")
    assert kinds.count("ev-fork") == 1 and rows[at][1] == "5"
    assert all(int(r) < 5 or (k == "ev-move" and int(r) == 5) for k, r in rows[:at])
    assert all(int(r) >= 5 for _, r in rows[at:])
    marker = _text(body[body.index('id="fork-start"'):body.index("</tr>",
                                                                 body.index('id="fork-start"'))])
    assert "The fork starts here: rounds before 5 replay the parent" in marker
    doc = c.get("/api" + _url(lineage_store["fork"], "accord-fork")).json()
    fork = doc["lineage"]["fork"]
    assert fork["parent"] == lineage_store["parent"] and fork["at"] == 5
    assert fork["linked"] is True and fork["changes"] == "agents: buyer=hardliner"
    assert doc["lineage"]["forks"] is None and doc["lineage"]["series"] is None


def test_a_parent_lists_its_forks_as_accord_fork_compares_them(make_client,
                                                               lineage_store: dict[str, Any]
                                                               ) -> None:
    c = make_client(lineage_store["path"])
    page = c.get(_url(lineage_store["parent"], "accord-run")).text
    assert 'id="fork-of"' not in page and 'id="fork-start"' not in page
    section = page[page.index('id="forks"'):page.index("</section>", page.index('id="forks"'))]
    fork_link = f'/episodes/{lineage_store["fork"]}?store=0&amp;run=accord-fork'
    assert fork_link in section
    with Store.open_readonly(lineage_store["path"]) as st:
        parent = st.find(lineage_store["parent"])
        fork = st.find(lineage_store["fork"])
    want = comparison_rows(parent, parent.id, [fork])  # the CLI's rows (accord fork, show)
    doc = c.get("/api" + _url(lineage_store["parent"], "accord-run")).json()
    got = doc["lineage"]["forks"]["rows"]
    assert [{k: v for k, v in r.items() if k in want[0]} for r in got] == want
    assert got[1]["changes"] == "agents: buyer=hardliner"
    text = _text(section)
    assert "fork at 5" in text and "hardliner vs conceder" in text
    # each party's value, side by side, rounded for people
    for r in want:
        for v in r["values"].values():
            assert num(v) in text  # two decimals, as every person-facing table
    assert "no deal (bound hit)" in text and "agreement" in text


def test_a_series_episode_shows_its_place_and_what_it_carried(make_client,
                                                              lineage_store: dict[str, Any]
                                                              ) -> None:
    c = make_client(lineage_store["path"])
    first, second = lineage_store["series"]
    page = c.get(_url(second, "accord-series")).text
    said = _text(page[page.index('id="series-of"') - 20:])
    assert said.lstrip("> ").startswith("Episode 2 of 2 of series")
    assert "(memory on, critic code)" in said
    doc = c.get("/api" + _url(second, "accord-series")).json()
    series = doc["lineage"]["series"]
    assert series["index"] == 2 and series["of"] == 2
    memory = dict(series["memory"])
    assert set(memory) == {"buyer", "seller"}
    assert "Episode 1:" in memory["buyer"] and "FEEDBACK ON YOUR LATEST" in memory["buyer"]
    section = page[page.index('id="series"'):]
    assert "<summary>buyer's memory going into this episode</summary>" in section
    first_page = c.get(_url(first, "accord-series")).text
    assert "No memory carried into this episode (the first of the series)" in first_page


def test_carried_text_is_escaped(make_client, tmp_path: Path) -> None:
    """Memory and feedback are text a model or a critic wrote: shown, never run."""
    from accord.agents.spec import AgentSpec
    from accord.bench.series import SeriesEpisode, SeriesRequest, save_series
    from accord.domains.base import EpisodeSpec, RunContext, get_domain

    spec = EpisodeSpec("bargaining", "buyer-seller",
                       (AgentSpec("boulware"), AgentSpec("conceder")), {}, 0)
    dom = get_domain("bargaining")
    result = asyncio.run(dom.run_episode(spec, RunContext()))
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    ep = SeriesEpisode(0, "e" * 16, spec, result, dom.metrics(spec, result),
                       memory={"buyer": evil}, feedback={"seller": evil})
    path = tmp_path / "evil.db"
    save_series(path, "s" * 16, SeriesRequest(spec, 1, critic="code"), [ep])
    page = make_client(path).get(_url("e" * 16, "accord-series")).text
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 2


def test_the_fork_note_becomes_the_marker_row() -> None:
    events = [
        {"seq": 0, "round": 1, "party": "a", "kind": "move",
         "move": {"kind": "offer", "package": {"x": 1}}},
        {"seq": 1, "round": 2, "party": "b", "kind": "note", "reason": "fork",
         "data": {"parent": "p" * 16, "at": 2, "changed": ["b"]}},
        {"seq": 2, "round": 2, "party": "b", "kind": "move", "move": {"kind": "accept"}},
    ]
    lines = transcript(events)["lines"]
    assert [ln["kind"] for ln in lines] == ["move", "fork", "move"]
    assert lines[1]["action"] == "the fork starts here"
    assert lines[1]["detail"] == "rounds before 2 replay the parent; from here on new " \
                                 "seats: b"
    same = {**events[1], "data": {"parent": "p", "at": 2, "changed": []}}
    assert "the same seats play again" in transcript([same])["lines"][0]["detail"]


def test_a_sweep_fork_names_the_store_its_parent_is_kept_in(make_client,
                                                            tmp_path: Path) -> None:
    """A bench ``fork:`` sweep stores its forks apart from their parents: the fork's page
    names the parent and the store it came from, without a link that would not resolve;
    the forks of the sweep's run are found from their parent id (a run that can hold
    forks)."""
    from typer.testing import CliRunner

    from accord.cli.main import app

    runner = CliRunner()
    parents = tmp_path / "parents.db"
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "boulware,conceder", "--save", str(parents), "-q"])
    assert res.exit_code == 0, res.output
    spec = tmp_path / "fk.yaml"
    spec.write_text(f"name: fk\ndomain: bargaining\nagents:\n  - [conceder, conceder]\n"
                    f"fork: {{from: {parents}, at: [2]}}\n")
    out = tmp_path / "fk.db"
    res = runner.invoke(app, ["bench", str(spec), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    with Store.open_readonly(out) as st:
        (fork,) = st.episodes("fk")
    c = make_client(out)
    page = c.get(_url(fork.id, "fk")).text
    said = _text(page[page.index('id="fork-of"') - 20:page.index("</p>",
                                                               page.index('id="fork-of"'))])
    parent = fork.spec["fork"]["parent"]
    assert f"Forked from {parent[:10]} (not in this store: kept in " in said
    assert "at round 2; changed: agents: 1=conceder." in said  # the sweep names the seat
    assert 'id="parent-link"' not in page and 'id="fork-start"' in page
    # forks are listed from the parent's own store only: a sweep's forks live elsewhere
    both = make_client(parents, out)
    ppage = both.get(f"/episodes/{parent}?store=0&run=accord-run").text
    assert 'id="forks"' not in ppage


def test_the_report_shows_the_fork_without_claims_it_did_not_check(
        lineage_store: dict[str, Any]) -> None:
    from accord.serve.report import build_report

    html = build_report(lineage_store["path"], transcripts="all")
    said = _text(html[html.index('id="fork-of"') - 20:html.index("</p>",
                                                               html.index('id="fork-of"'))])
    assert "Forked from" in said and "at round 5" in said
    assert "not in this store" not in html  # the report does not search for the parent
    assert html.count('id="fork-start"') == 1 and 'id="parent-link"' not in html
