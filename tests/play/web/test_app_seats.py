"""HTTP-level tests of the new seats: task exchange and deliberation, the opponent list,
seats of a team, named line-ups, the brief while waiting."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from accord.bench.store import Store

from .test_app import _error_of, new, until
from .test_app import client as client


def test_new_page_lists_the_installed_kinds_of_every_domain(client: TestClient) -> None:
    page = client.get("/").text
    for domain, kind in (("bargaining", "boulware"), ("task-exchange", "utility-aware"),
                         ("deliberation", "share"), ("games", "rational")):
        assert f'id="opponent-{domain}"' in page
        assert f'<option value="{kind}" selected>' in page
    assert 'value="human"' not in page.split('id="opponent-bargaining"')[1].split("</select>")[0]


def test_opponent_from_the_list_unless_a_spec_is_typed(client: TestClient) -> None:
    r = new(client, opponent="", **{"opponent.bargaining": "linear"})
    assert r.status_code == 303, r.text
    game = next(iter(client.app.state.play.games.games.values()))  # type: ignore[attr-defined]
    assert [str(a) for a in game.spec.agents] == ["human", "linear"]
    r = new(client, opponent="", **{"opponent.bargaining": ""})
    assert r.status_code == 400 and "choose an opponent" in _error_of(r.text)


def test_task_exchange_and_deliberation_take_catalog_names_only(client: TestClient) -> None:
    for domain in ("task-exchange", "deliberation"):
        for name in ("/etc/passwd", "../../x.yaml", "menu-numeric/../../etc"):
            r = new(client, domain=domain, opponent="",
                    **{f"scenario.{domain}": name,
                       f"opponent.{domain}": "share" if domain == "deliberation"
                       else "utility-aware"})
            assert r.status_code == 400, (domain, name)
            error = _error_of(r.text)
            assert "unknown" in error and "choose one of" in error, error


def test_a_person_takes_the_leaders_seat_of_a_task_allocation_team(client: TestClient
                                                                   ) -> None:
    r = new(client, domain="deliberation", opponent="share", seat="2",
            **{"scenario.deliberation": "task-allocation"})
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    page = client.get(url).text
    assert 'id="role">agent_2<' in page and "(every other seat)" in page
    assert "the leader agent_2 decides (you are the leader)" in page
    assert 'id="btn-decide"' in page
    r = new(client, seat="2")  # a bargaining scenario has two seats
    assert r.status_code == 400 and "seat must be 0 to 1" in _error_of(r.text)


def test_a_played_task_exchange_is_stored_with_the_persons_seat_named(
        client: TestClient, tmp_path: Any) -> None:
    r = new(client, domain="task-exchange", opponent="selfish",
            **{"scenario.task-exchange": "cooperative"})
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    csrf = client.cookies.get("accord_csrf")
    version = client.get(url + "/state").json()["version"]
    client.post(url + "/move", data={"csrf": csrf, "version": version, "kind": "continue"})
    until(client, url, "your_turn")
    page = client.get(url).text
    assert "Your brief" in page and 'data-key="preferences"' in page
    client.post(url + "/leave", data={"csrf": csrf})
    done = until(client, url, "done")
    with Store.open(tmp_path / "play.sqlite", create=False) as store:
        row = store.find(done["episode"])
        assert row.labels["lineup"] == "human (Alice) vs selfish"
        assert row.lineup == "human (Alice) vs selfish"


def test_hot_seat_hands_over_by_seat_and_shows_one_brief_at_a_time(client: TestClient
                                                                    ) -> None:
    r = new(client, hotseat="1", opponent="")
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    page = client.get(url).text  # the hand-over: whose seat, nothing private
    assert 'id="handover-seat">Seat 1, buyer<' in page
    assert 'id="brief"' not in page and "BATNA" not in page
    here = {"csrf": client.cookies.get("accord_csrf"), "role": "seller"}
    client.post(url + "/here", data=here)  # not seller's turn: nothing changes
    assert 'id="handover-seat"' in client.get(url).text
    client.post(url + "/here", data={**here, "role": "buyer"})
    page = client.get(url).text
    assert 'id="role">Seat 1, buyer<' in page and 'id="brief"' in page
    assert "Your BATNA (utility with no deal)</dt><dd>0.4<" in page.replace("\n", "")
    game = next(iter(client.app.state.play.games.games.values()))  # type: ignore[attr-defined]
    assert game.hot and [str(a) for a in game.spec.agents] == ["human", "human"]


def test_hot_seat_needs_a_two_party_scenario_and_a_typed_human_points_to_it(
        client: TestClient) -> None:
    r = new(client, hotseat="1", **{"scenario.bargaining": "sprint-planning"})
    assert r.status_code == 400
    assert "hot-seat play seats two people: sprint-planning has 3 seats" in _error_of(r.text)
    r = new(client, opponent="human")
    assert r.status_code == 400 and "tick hot-seat" in _error_of(r.text)
