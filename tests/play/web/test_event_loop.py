"""A game's episode never stalls the server: while one game's move is stuck in a slow
(blocking, CPU-bound) step -- a parser over a hostile reply, say -- every page and the
other games keep answering (issue 24: one browser game froze every route for 57 s).

Deterministic: the slow step blocks on an :class:`threading.Event` that the test sets
only after the other requests have been answered; the HTTP timeout only turns a stalled
server into a failure instead of a hang.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accord.agents.human.bargaining import BargainingView

from .conftest import Server

STALL = 60.0  # seconds before a stalled server counts as a failure (never reached when it works)


@pytest.fixture(params=["blocked", "busy"])
def stuck_parse(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Make reading the person's reply hang until released: blocked in a call (as a
    parser inside one long C call would look to the loop) or busy in Python bytecode
    (a parser burning CPU)."""
    entered, release = threading.Event(), threading.Event()
    real = BargainingView.move

    def slow_move(self: BargainingView, obs: Any, reply: Any) -> Any:
        if "stall" in (reply.get("text"), reply.get("message")):
            entered.set()
            if request.param == "blocked":
                release.wait()
            else:
                while not release.is_set():  # CPU-bound Python, never awaiting
                    sum(range(1000))
        return real(self, obs, reply)

    monkeypatch.setattr(BargainingView, "move", slow_move)
    try:
        yield entered, release
    finally:
        release.set()  # never leave the server blocked


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def _state(c: httpx.Client, url: str, want: str) -> dict[str, Any]:
    for _ in range(2000):
        state = c.get(url + "/state").json()
        if state["status"] == want:
            return dict(state)
        time.sleep(0.01)
    raise AssertionError(f"the game never reached {want}: {state}")


def test_a_slow_step_in_one_game_does_not_stall_other_routes(
        server: Server, stuck_parse: tuple[threading.Event, threading.Event]) -> None:
    entered, release = stuck_parse
    with httpx.Client(base_url=server.url, timeout=STALL, follow_redirects=True) as c:
        csrf = _csrf(c.get("/").text)
        game = {"csrf": csrf, "domain": "bargaining", "scenario.bargaining": "buyer-seller",
                "opponent": "boulware", "seat": "0"}
        r = c.post("/new", data=game)
        url = str(r.url.path)
        state = _state(c, url, "your_turn")
        c.post(url + "/move", data={"csrf": csrf, "version": str(state["version"]),
                                    "kind": "message", "message": "stall"})
        assert entered.wait(STALL), "the move never reached the person's reply reader"
        # the episode is now stuck inside the reader; the server must still answer
        assert c.get("/").status_code == 200
        assert c.get(url + "/state").json()["status"] == "waiting"
        assert c.get("/static/play.js").status_code == 200
        other = c.post("/new", data={**game, "seat": "1"})
        assert other.status_code == 200 and "/g/" in str(other.url)
        assert c.get(str(other.url.path) + "/state").status_code == 200
        assert not release.is_set()  # all of the above happened while the step was stuck
        release.set()
        # and the stuck game carries on once its step finishes
        after = _state(c, url, "your_turn")
        assert after["version"] > state["version"]
        page = c.get(url).text
        assert "stall" in page


def test_a_slow_parse_of_a_model_reply_does_not_stall_the_server(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for the opponent's side: an LLM agent's reply parser stuck on a reply."""
    import accord.agents.replies as replies

    entered, release = threading.Event(), threading.Event()
    real = replies.parse_tags

    def slow_parse(text: str, grammar: Any) -> Any:
        entered.set()
        release.wait()
        return real(text, grammar)

    monkeypatch.setattr(replies, "parse_tags", slow_parse)
    try:
        with httpx.Client(base_url=server.url, timeout=STALL, follow_redirects=True) as c:
            csrf = _csrf(c.get("/").text)
            r = c.post("/new", data={"csrf": csrf, "domain": "bargaining",
                                     "scenario.bargaining": "buyer-seller",
                                     "opponent": "llm:mock/negotiator", "seat": "1"})
            url = str(r.url.path)
            assert entered.wait(STALL), "the opponent's reply was never parsed"
            assert c.get("/").status_code == 200
            assert c.get(url + "/state").json()["status"] == "waiting"
            assert not release.is_set()
            release.set()
            _state(c, url, "your_turn")  # the opponent's move went through
    finally:
        release.set()
