"""The play app: a person negotiates against any agent in the browser.

``create_app(store, settings)`` returns an ASGI app (Starlette, relative routes), so it runs on
its own (``uvicorn`` in tests) or mounted under ``/play`` by ``accord serve``:

* ``GET /`` -- the "New negotiation" page (domain, scenario or uploaded scenario file,
  opponent agent spec, which seat the person takes);
* ``POST /new`` -- start a game, then redirect to it;
* ``GET /g/{id}`` -- the game page: the person's private view and the move form, a
  "waiting" note while the agent thinks, or the outcome with its stored episode id;
* ``POST /g/{id}/move`` -- the person's move (the engine validates it);
* ``POST /g/{id}/leave`` -- end the game from the person's side;
* ``GET /g/{id}/state`` -- JSON poll: ``your_turn`` / ``waiting`` / ``done``;
* ``GET /g/{id}/utility`` -- JSON: the person's utility of the package in the query.

State-changing requests are POSTs carrying a CSRF token. The app uses the one scheme of
accord's web apps, :mod:`accord.serve.security`: ``create_app`` wraps the app in its
:class:`~accord.serve.security.Guard` (double-submit: a random ``accord_csrf`` cookie and
the same value in the ``csrf`` form field, compared in constant time; a cross-site
``Origin`` is refused too). Mounted under ``accord serve --play``, serve's own guard has
already checked the request (and the access token, with ``--token``), and the inner guard
passes it through: the same cookie and field both ways. Every text is escaped by
Jinja's autoescape; assets are served from the package, so the app works with no
internet.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from accord.domains.base import EpisodeSpec
from accord.play.seats import handover_text, seat_name
from accord.play.web.forms import reply_from_form, scenario_choices
from accord.play.web.games import DOMAINS, Game, Games, PlayError, PlaySettings
from accord.play.web.parallel import parallel_svg
from accord.play.web.plane import plane_svg
from accord.serve.bodies import read_form
from accord.serve.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    Guard,
    cross_site,
    csrf_token,
    same_secret,
)


def _env() -> Environment:
    root = resources.files("accord.play.web") / "templates"
    env = Environment(loader=FileSystemLoader(str(root)),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    # what a party said, in words (a deliberation agent's JSON share decoded), as the
    # results' transcript page and `accord show` print it
    from accord.serve.transcript import said

    env.filters["said"] = said
    # one rounding rule for the debrief's sentences and its figures (4, not 4.000)
    from accord.agents.human.brief import num

    env.filters["num"] = num
    return env


class PlayApp:
    """Route handlers over one :class:`Games` registry."""

    def __init__(self, store: Path, settings: PlaySettings) -> None:
        self.games = Games(store, settings)
        self.env = _env()

    # -- helpers ------------------------------------------------------------------------
    def page(self, request: Request, name: str, status: int = 200, **ctx: Any) -> Response:
        base = str(request.scope.get("root_path", "")).rstrip("/")
        html = self.env.get_template(name).render(csrf=csrf_token(request), base=base, **ctx)
        resp = HTMLResponse(html, status_code=status)
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        resp.headers["X-Content-Type-Options"] = "nosniff"
        return resp

    async def form(self, request: Request) -> dict[str, Any]:
        """The POSTed form after the CSRF and origin checks; 403 otherwise.

        The guard around the app has checked both already; checked again here so a
        handler never acts on a form without them (e.g. the app served unguarded).
        """
        if cross_site(request.scope):
            raise _Forbidden("cross-site request refused")
        form = await read_form(request, max_files=2, max_fields=200)
        sent = form.get(CSRF_FIELD)
        if not same_secret(sent if isinstance(sent, str) else None, csrf_token(request) or None):
            raise _Forbidden("missing or wrong CSRF token: reload the page and try again")
        out: dict[str, Any] = {}
        for key, val in form.multi_items():
            if hasattr(val, "read"):
                data = await val.read(self.games.settings.max_upload + 1)
                out[key] = data.decode("utf-8", errors="replace") if data else ""
            else:
                out[key] = val
        return out

    def game_or_404(self, request: Request) -> Game:
        game = self.games.get(str(request.path_params["gid"]))
        if game is None:
            raise _NotFound("no such game (games live as long as the server)")
        return game

    # -- routes -------------------------------------------------------------------------
    async def new_page(self, request: Request, error: str | None = None,
                       status: int = 200, values: dict[str, Any] | None = None) -> Response:
        return self.page(request, "new.jinja", status, error=error, domains=DOMAINS,
                         choices=scenario_choices(self.games.settings.data),
                         kinds=opponent_kinds(), defaults=DEFAULT_OPPONENTS,
                         values=values or {})

    async def index(self, request: Request) -> Response:
        return await self.new_page(request)

    async def new(self, request: Request) -> Response:
        form = await self.form(request)
        domain = str(form.get("domain", ""))
        scenario = str(form.get(f"scenario.{domain}", "") or "").strip()
        try:
            if domain not in DOMAINS:
                raise PlayError(f"unknown domain {domain[:40]!r}; choose one of "
                                f"{', '.join(DOMAINS)}")
            upload = str(form.get({"bargaining": "upload", "games": "upload.games"}.get(
                domain, "")) or "")
            if upload.strip():
                # parsed (safe loader, under its budgets) off the server's event loop
                scenario = await run_in_threadpool(self.games.save_upload, upload, domain)
            elif not scenario:
                raise PlayError("choose a scenario")
            else:  # a name from the form: the catalog only (an upload is never named)
                self.games.check_scenario(domain, scenario, uploads=False)
            seed = _whole(str(form.get("seed") or "0").strip(), "seed", 0)
            params = _params(domain, str(form.get("rounds") or "").strip())
            # a free spec typed by the person wins over the domain's list of kinds
            opponent = str(form.get("opponent", "") or "").strip() or str(
                form.get(f"opponent.{domain}", "") or "").strip()
            if not opponent and str(form.get("hotseat") or "") not in ("1", "on"):
                raise PlayError("choose an opponent from the list or type an agent spec")
            seat = str(form.get("seat") or "0").strip()
            hot = str(form.get("hotseat") or "") in ("1", "on")
            # only catalog names, DoND ids and this app's own uploads pass Games.start
            game = await run_in_threadpool(
                self.games.start, domain, scenario, opponent,
                int(seat) if seat in ("0", "1", "2") else 0, seed, params, hot)
        except PlayError as exc:
            return await self.new_page(request, str(exc), 400, form)
        return RedirectResponse(f"{_base(request)}/g/{game.id}", status_code=303)

    async def game_page(self, request: Request) -> Response:
        game = self.game_or_404(request)
        turn = game.seat.turn
        brief = game.seat.brief
        if game.hot:  # only the brief of the seat whose person said they are at the screen
            brief = None
            if turn is not None and not game.done:
                if turn.role != game.at:
                    return self.handover(request, game, turn.role)
                brief = turn.view.get("brief")
        start = None if turn is None else _start_package(turn)
        start_utility = None
        if turn is not None and turn.evaluate is not None and start:
            start_utility = turn.evaluate(start)
        link = self.games.settings.episode_url
        episode_url = None if not (link and game.episode) else \
            f"{_base(request)}/{link.format(id=quote(game.episode, safe=''))}"
        summary = _summary(game)
        return self.page(request, "game.jinja", game=game, turn=turn,
                         episode_url=episode_url, run=self.games.settings.run,
                         view=None if turn is None else turn.view, start=start,
                         start_utility=start_utility, summary=summary, brief=brief,
                         debriefs=[] if summary is None else _debrief_parts(game),
                         transcript=_transcript(game))

    def handover(self, request: Request, game: Game, role: str) -> Response:
        """Hot-seat: the page between two people's turns -- whose seat it is, nothing
        private of either (:mod:`accord.play.seats`)."""
        n = game.seat_number(role)
        return self.page(request, "handover.jinja", game=game, role=role, number=n,
                         seat_title=seat_name(role, n), text=handover_text(role, n))

    async def here(self, request: Request) -> Response:
        """Hot-seat: the person of the seat named in the form is at the screen now."""
        game = self.game_or_404(request)
        form = await self.form(request)
        turn = game.seat.turn
        if game.hot and turn is not None and str(form.get("role")) == turn.role:
            game.at = turn.role
        return RedirectResponse(f"{_base(request)}/g/{game.id}", status_code=303)

    async def move(self, request: Request) -> Response:
        game = self.game_or_404(request)
        form = await self.form(request)
        turn = game.seat.turn
        if turn is not None and str(form.get("version")) == str(game.seat.version):
            game.seat.submit(reply_from_form(turn, form))
        # a stale form (the turn moved on) is ignored: the page shows the current state
        return RedirectResponse(f"{_base(request)}/g/{game.id}", status_code=303)

    async def leave(self, request: Request) -> Response:
        game = self.game_or_404(request)
        await self.form(request)
        game.seat.close("the person ended the game from the page")
        return RedirectResponse(f"{_base(request)}/g/{game.id}", status_code=303)

    async def state(self, request: Request) -> Response:
        return JSONResponse(self.game_or_404(request).state())

    async def utility(self, request: Request) -> Response:
        game = self.game_or_404(request)
        turn = game.seat.turn
        if turn is None or turn.evaluate is None:
            return JSONResponse({"utility": None})
        pkg = {k[4:]: v for k, v in request.query_params.items() if k.startswith("pkg.")}
        return JSONResponse({"utility": turn.evaluate(pkg)})


class _Forbidden(Exception):
    pass


class _NotFound(Exception):
    pass


def _base(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def _whole(text: str, name: str, least: int) -> int:
    """A whole number typed into the form (ASCII digits, at most 18 of them)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or int(text) < least:
        raise PlayError(f"{name} must be a whole number"
                        + (f" of at least {least}" if least else "")
                        + f" (at most 18 digits), got {text[:20]!r}")
    return int(text)


def _params(domain: str, rounds: str) -> dict[str, Any]:
    if not rounds:
        return {}
    _whole(rounds, "rounds", 1)
    key = {"bargaining": "max_rounds", "deal-or-no-deal": "rounds",
           "games": "negotiation_rounds", "task-exchange": "turn_limit",
           "deliberation": "max_rounds"}[domain]
    return {key: int(rounds)}


def _start_package(turn: Any) -> dict[str, Any] | None:
    """The package the offer builder starts from: the person's last offer, else the one
    on the table, else the first value of every issue (nothing for games)."""
    v = turn.view
    if turn.domain == "bargaining":
        for key in ("my_last_offer", "current_offer"):
            if v.get(key):
                return dict(v[key]["package"])
        return {i["name"]: i["values"][0] for i in v["issues"]}
    if turn.domain == "deal-or-no-deal":
        if v.get("my_offer"):
            return dict(v["my_offer"]["you_take"])
        return {i["name"]: 0 for i in v["items"]}
    if turn.domain == "task-exchange":  # the split on the table, else the originals
        table = v.get("table") or {}
        mine = (table.get("yours") or {}).get("mask") or v["original"]["yours"]
        theirs = (table.get("theirs") or {}).get("mask") or v["original"]["theirs"]
        return {"mine": mine, "theirs": theirs}
    if turn.domain == "deliberation":  # the proposal on the table
        cur = (v.get("current") or {}).get("proposal")
        if isinstance(cur, dict):
            return dict(cur)
        return dict.fromkeys(cur, 1) if isinstance(cur, list) else {}
    return None


def _summary(game: Game) -> dict[str, Any] | None:
    """The outcome as the person may see it (their own utility or score, the deal)."""
    res = game.result
    if res is None:
        return None
    rec = res.record
    out: dict[str, Any] = {"status": res.status, "reason": res.reason, "who": res.who,
                           "rounds": res.rounds, "detail": res.detail}
    if game.spec.domain == "bargaining":
        out["agreement"] = rec.get("agreement") if res.status == "agreement" else None
        out["yours"] = (rec.get("utilities") or {}).get(game.role)
    elif game.spec.domain == "deal-or-no-deal":
        out["agreement"] = (rec.get("shares") or {}).get(game.role)
        out["yours"] = (rec.get("scores") or {}).get(game.role)
    elif game.spec.domain == "task-exchange":
        alloc = rec.get("allocation") if res.status == "agreement" else None
        out["agreement"] = None if not alloc else {
            r: f"{a['mask']}: {a['description']}" for r, a in alloc.items()}
        out["yours"] = (rec.get("utilities") or {}).get(game.role)
    elif game.spec.domain == "deliberation":
        dec = rec.get("decision")
        out["agreement"] = None if dec is None else (
            dict(dec) if isinstance(dec, dict) else {"menu": ", ".join(map(str, dec))})
        out["yours"] = None
    else:  # a game: what was played and what it amounts to, never an "agreement"
        from accord.domains import get_domain

        dom = get_domain(game.spec.domain)
        out["played"] = rec.get("actions") or {
            f"{i}. {m['player']}": m["action"] for i, m in enumerate(rec.get("moves") or [], 1)}
        out["verdict"] = dom.outcome_text({**res.summary(),
                                           "metrics": dom.metrics(game.spec, res)})
        out["yours"] = (rec.get("payoffs") or {}).get(game.role)
    if game.hot:  # two people: each debrief says what its seat got
        out["yours"] = None
    return out


def _debrief(game: Game, role: str | None = None) -> dict[str, Any] | None:
    """The debrief of ``role`` (default: the person's) (:mod:`accord.play.debrief`);
    ``None`` when there is none or it cannot be made (the page still shows the outcome)."""
    if game.result is None:
        return None
    from accord.play.debrief import debrief

    try:
        return debrief(game.spec, game.result, role or game.role)
    except Exception as exc:  # a bonus on the page: never a failed page
        return {"sentences": [f"No debrief: {type(exc).__name__}: {exc}"], "rows": [],
                "columns": [], "plane": None, "flags": []}


def _debrief_parts(game: Game) -> list[dict[str, Any]]:
    """Each person's debrief with its charts rendered, for ``debrief.jinja``: one in a
    game against an agent; one per seat in hot-seat play (``sfx`` keeps their element ids
    apart, ``seat_title`` names the seat)."""
    out = []
    for role in game.people:
        data = _debrief(game, role)
        if data is None:
            continue
        sfx = f"-{game.seat_number(role)}" if game.hot else ""
        out.append({
            "debrief": data, "sfx": sfx,
            "seat_title": seat_name(role, game.seat_number(role)) if game.hot else None,
            "plane": None if not data.get("plane")
            else plane_svg(data["plane"], f"debrief-plane{sfx}"),
            "planes": [plane_svg(p, f"debrief-plane{sfx}-{i}", 300, 257)
                       for i, p in enumerate(data.get("planes") or [], 1)],
            "parallel": None if not data.get("parallel")
            else parallel_svg(data["parallel"], f"debrief-parallel{sfx}")})
    return out


DEFAULT_OPPONENTS = {"bargaining": "boulware", "deal-or-no-deal": "greedy",
                     "games": "rational", "task-exchange": "utility-aware",
                     "deliberation": "share"}
"""The opponent each domain's list starts on."""


PROBES = {"bargaining": "buyer-seller", "deal-or-no-deal": "test/0",
          "games": "prisoners-dilemma", "task-exchange": "competitive",
          "deliberation": "menu-numeric"}
"""A scenario of each domain on which the kinds on the list are checked."""


@functools.lru_cache(maxsize=1)
def opponent_kinds() -> dict[str, list[str]]:
    """Per domain, the installed agent kinds that play with no argument -- the list on the
    new-game page (a kind that needs one, ``llm:MODEL``, is typed as a free spec). Each
    kind is checked by the domain itself on a line-up of two of it, once per server."""
    from accord.agents.spec import AgentSpec
    from accord.domains import get_domain

    out: dict[str, list[str]] = {}
    for domain in DOMAINS:
        dom = get_domain(domain)
        kinds = []
        for kind in dom.agent_kinds():
            if kind in ("human", "dataset-human"):  # a person, or a replay of the data set
                continue
            try:
                dom.validate(EpisodeSpec(domain, PROBES[domain],
                                         (AgentSpec(kind), AgentSpec(kind)), {}, 0))
            except Exception:  # needs an argument or another line-up: typed as a spec
                continue
            kinds.append(kind)
        default = DEFAULT_OPPONENTS[domain]
        out[domain] = sorted(kinds, key=lambda k: (k != default, k))
    return out


def _transcript(game: Game) -> list[dict[str, Any]]:
    """The public moves of a finished game (no private notes, no other party's values)."""
    if game.result is None:
        return []
    out = []
    for ev in game.result.trajectory.events:
        if ev.kind == "move" and ev.move is not None:
            out.append({"round": ev.round, "party": ev.party, "move": ev.move})
        elif ev.kind == "invalid" and ev.party in game.people:
            out.append({"round": ev.round, "party": ev.party, "invalid": ev.feedback})
    return out


def create_app(store: str | Path, settings: PlaySettings | None = None) -> Guard:
    """The play app recording finished games in the SQLite store at ``store``, wrapped
    in the CSRF guard of :mod:`accord.serve.security` (``.state`` is the app's state)."""
    app_ = PlayApp(Path(store), settings or PlaySettings())
    static = StaticFiles(directory=str(resources.files("accord.play.web") / "static"))

    async def refused(request: Request, exc: Exception, status: int, title: str) -> Response:
        # a page like the others (header, a way back), or JSON for the page's own polls
        if request.url.path.endswith(("/state", "/utility")):
            return JSONResponse({"error": str(exc)}, status_code=status)
        return app_.page(request, "error.jinja", status, title=title, message=str(exc))

    async def forbidden(request: Request, exc: Exception) -> Response:
        return await refused(request, exc, 403, "Refused")

    async def not_found(request: Request, exc: Exception) -> Response:
        return await refused(request, exc, 404, "Not found")

    routes = [
        Route("/", app_.index, methods=["GET"]),
        Route("/new", app_.new, methods=["POST"]),
        Route("/g/{gid}", app_.game_page, methods=["GET"]),
        Route("/g/{gid}/move", app_.move, methods=["POST"]),
        Route("/g/{gid}/leave", app_.leave, methods=["POST"]),
        Route("/g/{gid}/here", app_.here, methods=["POST"]),
        Route("/g/{gid}/state", app_.state, methods=["GET"]),
        Route("/g/{gid}/utility", app_.utility, methods=["GET"]),
        Mount("/static", app=static, name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={_Forbidden: forbidden,
                                                       _NotFound: not_found},
                    lifespan=_lifespan(app_))
    app.state.play = app_
    return Guard(app)


def _lifespan(app_: PlayApp) -> Any:
    """Stop the running games when the server stops (their threads end with it)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(app_.games.shutdown)

    return lifespan


__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "PlayApp", "create_app"]
