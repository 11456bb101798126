"""The ``accord serve`` web app (Starlette): stores, runs, transcripts, approvals.

Pages are rendered on the server from the Jinja2 templates of this package (autoescape
on: every piece of model, person or scenario text is shown as text); every asset is
served from the package (no external URL). Each page has a JSON twin under ``/api``::

    GET  /                                   /api/stores
    GET  /stores/N/runs/RUN                  /api/stores/N/runs/RUN/episodes
    GET  /stores/N/runs/RUN/aggregate        /api/stores/N/runs/RUN/aggregate
    GET  /stores/N/runs/RUN/leaderboard      /api/stores/N/runs/RUN/leaderboard
    GET  /leaderboards                       (every run's leaderboard, linked)
    GET  /episodes/ID[?store=N&run=RUN]      /api/episodes/ID
    POST /episodes/ID/approval               /api/episodes/ID/approval

Stores are addressed by their position in the served list (never by a path); run names
and ids from URLs only ever reach SQL as bound parameters. Token and CSRF checks wrap
the whole app, mounted apps included (:mod:`accord.serve.security`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from accord.bench.approvals import ApprovalError
from accord.bench.store import StoreError
from accord.serve import audit, overview, views
from accord.serve.bodies import read_form, read_json_object
from accord.serve.security import Guard, csrf_field, csrf_token
from accord.serve.stores import Ambiguous, EpisodeRef, NotFound, Query, Stores

#: rating method -> its name for people
METHOD_NAMES = {"bt": "Bradley–Terry", "elo": "sequential Elo", "glicko2": "Glicko-2",
                "trueskill": "TrueSkill"}
#: a form's decision -> the approval state it records
_STATES = {"approve": "approved", "reject": "rejected"}
#: what a mounted ``/play`` app is built from (owned by the play feature)
PLAY_APP = "accord.play.web:create_app"


def environment() -> Environment:
    """The Jinja2 environment of the pages and the report (autoescape always on)."""
    env = Environment(loader=PackageLoader("accord.serve", "templates"), autoescape=True,
                      trim_blocks=True, lstrip_blocks=True,
                      extensions=["jinja2.ext.do"])
    env.globals.update(when=views.when, num=views.num, words=audit.words,
                       method_names=METHOD_NAMES)
    env.filters["breakable"] = breakable
    return env


def breakable(text: object) -> Markup:
    """``text`` escaped, with a line-break opportunity after each ``/ : ? &`` so a long
    agent spec (``llm:openai/gpt-4.1-mini?temperature=0.2``) wraps between its parts in a
    narrow column instead of pushing the table off a phone's screen."""
    import re

    return Markup(re.sub(r"(/|:|\?|&amp;)", r"\1<wbr>", str(escape(text))))


class Pages:
    """The request handlers over one set of stores.

    Handlers that read a store are plain functions, which Starlette runs in its thread
    pool: a slow read (the first aggregate of a huge run) never stalls other requests.
    """

    def __init__(self, stores: Stores, play: bool = False) -> None:
        self.stores = stores
        self.env = environment()
        self.play = play

    # --- helpers -----------------------------------------------------------------
    def html(self, request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        tpl = self.env.get_template(name)
        ctx.setdefault("active", "results")
        body = tpl.render(request=request, csrf_field=csrf_field(request),
                          csrf_token=csrf_token(request), root=request.scope.get(
                              "root_path", ""), play=self.play, inline_css=None,
                          can_decide=True, **ctx)
        return HTMLResponse(body, status_code=status)

    @staticmethod
    def _store(request: Request) -> int:
        return _store_index(request.path_params.get("store"))

    def _ref(self, request: Request) -> EpisodeRef:
        eid = str(request.path_params["eid"])
        store: int | None = None
        if request.query_params.get("store"):
            store = _store_index(request.query_params["store"])
        run = request.query_params.get("run") or None
        return self.stores.resolve(eid, store, run)

    # --- pages ---------------------------------------------------------------------
    def index(self, request: Request) -> Response:
        return self.html(request, "index.html.j2", stores=self.stores.overview())

    def api_stores(self, request: Request) -> Response:
        return JSONResponse({"stores": self.stores.overview()})

    def _run_data(self, request: Request) -> tuple[int, str, dict[str, Any], Any]:
        index = self._store(request)
        name = str(request.path_params["run"])
        q = Query.parse(request.query_params)
        with self.stores.read(index) as st:
            info = self.stores.run_header(st, name, index)
            page = self.stores.page(st, name, q, index)
        return index, name, info, page

    def run_page(self, request: Request) -> Response:
        index, name, info, page = self._run_data(request)
        summary = self.stores.cached_summary(index, name)
        rows = [views.row_view(r, page.approvals.get((r.run, r.id))) for r in page.rows]
        return self.html(request, "run.html.j2", store=index,
                         store_name=self.stores.path(index).name, run=info, page=page,
                         rows=rows, q=page.query, summary=summary,
                         aggregate=None if summary is None else views.aggregate_view(
                             summary.aggregate),
                         charts=[] if summary is None else overview.charts(summary.lineups),
                         metrics=[] if views.mixed(rows) else views.metric_columns(rows),
                         combined=views.mixed(rows),
                         column_words=views.COLUMN_WORDS, sorts=list(views_sorts()))

    def api_run(self, request: Request) -> Response:
        index, _name, info, page = self._run_data(request)
        return JSONResponse({
            "store": index, "run": info, "page": page.query.page, "pages": page.pages,
            "per_page": page.query.per_page, "total": page.total,
            "episodes": [views.row_view(r, page.approvals.get((r.run, r.id)))
                         for r in page.rows]})

    def aggregate_fragment(self, request: Request) -> Response:
        index = self._store(request)
        summary = self.stores.summary(index, str(request.path_params["run"]))
        return self.html(request, "aggregate.html.j2",
                         aggregate=views.aggregate_view(summary.aggregate),
                         charts=overview.charts(summary.lineups))

    def api_aggregate(self, request: Request) -> Response:
        index = self._store(request)
        name = str(request.path_params["run"])
        summary = self.stores.summary(index, name)
        return JSONResponse({**views.aggregate_json(summary.aggregate),
                             "choices": summary.choices, "flags": summary.flags})

    def _board(self, request: Request) -> tuple[int, dict[str, Any], dict[str, Any]]:
        from accord.bench.leaderboard import BY_CHOICES, METHODS

        index = self._store(request)
        name = str(request.path_params["run"])
        method = request.query_params.get("method") or "bt"
        by = request.query_params.get("by") or "agent"
        method = method if method in METHODS else "bt"
        by = by if by in BY_CHOICES else "agent"
        with self.stores.read(index) as st:
            info = self.stores.run_header(st, name, index)
            lb = self.stores.cached(index, ("board", name, method, by),
                                    lambda: overview.board_view(st.episodes(name), method,
                                                                by))
        return index, info, lb

    def leaderboard_page(self, request: Request) -> Response:
        from accord.bench.leaderboard import BY_CHOICES, METHODS

        index, info, lb = self._board(request)
        return self.html(request, "leaderboard.html.j2", active="leaderboard", store=index,
                         store_name=self.stores.path(index).name, run=info, lb=lb,
                         methods=list(METHODS), bys=list(BY_CHOICES))

    def api_leaderboard(self, request: Request) -> Response:
        index, info, lb = self._board(request)
        return JSONResponse(_finite({"store": index, "run": info["name"],
                                     "error": lb["error"], "leaderboard": lb["board"],
                                     "safety": lb["safety"]}))

    def leaderboards(self, request: Request) -> Response:
        return self.html(request, "leaderboards.html.j2", active="leaderboard",
                         stores=self.stores.overview())

    def _episode(self, request: Request) -> tuple[EpisodeRef, dict[str, Any]]:
        ref = self._ref(request)
        row, jsonl, appr, info = self.stores.episode(ref)
        return ref, views.episode_view(row, jsonl, appr, info,
                                       lineage=self.stores.lineage(ref, row))

    def episode_page(self, request: Request) -> Response:
        try:
            ref, view = self._episode(request)
        except Ambiguous as exc:
            return self.html(request, "ambiguous.html.j2", status=300,
                             prefix=request.path_params["eid"], matches=exc.matches)
        return self.html(request, "episode.html.j2", ref=ref, v=view, error=None)

    def api_episode(self, request: Request) -> Response:
        try:
            ref, view = self._episode(request)
        except Ambiguous as exc:
            return JSONResponse({"error": str(exc), "matches": [
                m.__dict__ for m in exc.matches]}, status_code=300)
        return JSONResponse({"store": ref.store, **views.episode_json(view)})

    async def _decision(self, request: Request) -> tuple[EpisodeRef, dict[str, Any]]:
        ref = await run_in_threadpool(self._ref, request)
        ctype = request.headers.get("content-type", "")
        if ctype.startswith("application/json"):
            data = await read_json_object(request)
        else:
            data = dict(await read_form(request, max_files=0))
        return ref, data

    async def _decide(self, ref: EpisodeRef, data: dict[str, Any]) -> Any:
        decision = str(data.get("decision") or "")
        state = _STATES.get(decision, decision)
        comment = data.get("comment")
        text = None if comment is None else str(comment)
        return await run_in_threadpool(self.stores.decide, ref, state, text, "web")

    async def approve(self, request: Request) -> Response:
        """The form's two steps: the buttons lead to a confirmation page (the deal audit
        again, the decision and comment as hidden fields); only its ``confirmed=yes``
        records the decision. A decision that cannot be recorded (a rejection without a
        comment, one already decided) is shown beside the field, before any confirming."""
        ref, data = await self._decision(request)
        comment = str(data.get("comment") or "")
        try:
            decision = str(data.get("decision") or "")
            if decision not in ("approve", "reject"):
                raise ApprovalError(f"decision must be approve or reject, got {decision!r}")
            if data.get("confirmed") != "yes":
                await run_in_threadpool(self.stores.check_decision, ref,
                                        _STATES[decision], comment)
                _, view = await run_in_threadpool(self._episode, request)
                return self.html(request, "confirm.html.j2", ref=ref, v=view,
                                 decision=decision, comment=comment,
                                 back=_episode_url(request, ref))
            await self._decide(ref, data)
        except ApprovalError as exc:
            # shown on the episode page itself (never carried in a URL a link could forge)
            ref, view = await run_in_threadpool(self._episode, request)
            return self.html(request, "episode.html.j2", status=400, ref=ref, v=view,
                             error=str(exc), comment=comment)
        return RedirectResponse(_episode_url(request, ref) + "#approval", status_code=303)

    async def api_approve(self, request: Request) -> Response:
        try:
            ref, data = await self._decision(request)
            appr = await self._decide(ref, data)
        except ApprovalError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        return JSONResponse({"store": ref.store, "run": ref.run, "id": ref.id,
                             "approval": appr.to_dict()})


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float as ``None`` (JSON has no NaN)."""
    import math

    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _store_index(text: Any) -> int:
    """A store's position from a URL: ASCII digits, at most 9 (Starlette's ``int``
    convertor took any length, and 5,000 digits broke ``int()``: a 500); 404 otherwise."""
    text = str(text or "")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise HTTPException(404, "no such store")
    return int(text)


def views_sorts() -> list[str]:
    """Column keys the run table can sort by."""
    from accord.serve.stores import SORTS

    return list(SORTS)


def _episode_url(request: Request, ref: EpisodeRef) -> str:
    from urllib.parse import urlencode

    params = {"store": str(ref.store), "run": ref.run}
    return f"{request.scope.get('root_path', '')}/episodes/{ref.id}?{urlencode(params)}"


def _json_wanted(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "/api/" in request.url.path


async def _not_found(request: Request, exc: Exception) -> Response:
    text = str(exc.args[0]) if exc.args else "not found"
    if _json_wanted(request):
        return JSONResponse({"error": text}, status_code=404)
    return HTMLResponse(_plain_page("Not found", text), status_code=404)


async def _store_error(request: Request, exc: Exception) -> Response:
    if _json_wanted(request):
        return JSONResponse({"error": str(exc)}, status_code=503)
    return HTMLResponse(_plain_page("Store unavailable", str(exc)), status_code=503)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if _json_wanted(request):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return HTMLResponse(_plain_page(f"Error {exc.status_code}", str(exc.detail)),
                        status_code=exc.status_code)


def _plain_page(title: str, text: str) -> str:
    from markupsafe import escape

    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{escape(title)}'
            f'</title><link rel="stylesheet" href="/static/style.css"></head><body><main>'
            f'<h1>{escape(title)}</h1><p class="error">{escape(text)}</p>'
            '<p><a href="/">all stores</a></p></main></body></html>')


def load_play_app(store: Path, require_approval: bool = False,
                  llm: Mapping[str, Any] | None = None) -> Any:
    """The play app (:data:`PLAY_APP`, called with the store that records finished
    games and its settings); ``RuntimeError`` with a clear message if this accord has
    no play feature.

    ``llm`` are the LLM settings of its LLM opponents (``accord serve --play
    --llm-timeout``). Its agreements are gated when ``require_approval``; a finished game
    links to its
    transcript here (``/episodes/ID``). It uses the CSRF scheme of
    :mod:`accord.serve.security` (its own guard passes requests this one has checked).
    """
    import importlib
    import os

    module, _, attr = PLAY_APP.partition(":")
    try:
        mod = importlib.import_module(module)
        factory = getattr(mod, attr)
        settings = mod.PlaySettings(data=os.environ.get("ACCORD_DATA"),
                                    require_approval=require_approval,
                                    episode_url="../episodes/{id}", llm=dict(llm or {}))
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"--play needs {PLAY_APP}, which this accord does not have "
                           f"({type(exc).__name__}: {exc})") from None
    return factory(store, settings)


def create_app(paths: list[Path] | list[str], token: str | None = None,
               play: bool = False, allowed_hosts: list[str] | None = None,
               play_store: Path | str | None = None,
               play_require_approval: bool = False,
               play_llm: Mapping[str, Any] | None = None) -> Any:
    """The ASGI app serving ``paths`` (store files), wrapped in the token/CSRF guard.

    ``play`` mounts :data:`PLAY_APP` at ``/play`` (``RuntimeError`` if unavailable),
    recording games in ``play_store`` (default ``runs/play.db``), which is served too,
    their agreements gated when ``play_require_approval``;
    ``allowed_hosts`` limits the ``Host`` header (default: local names only, which
    keeps DNS-rebinding pages away from a local server).
    """
    paths = [Path(p) for p in paths]
    played = Path(play_store or "runs/play.db")
    if play and played.resolve() not in {p.resolve() for p in paths}:
        paths.append(played)
    stores = Stores(paths)
    pages = Pages(stores, play=play)
    routes: list[Any] = [
        Route("/", pages.index),
        Route("/api/stores", pages.api_stores),
        Route("/stores/{store}/runs/{run}", pages.run_page),
        Route("/stores/{store}/runs/{run}/aggregate", pages.aggregate_fragment),
        Route("/api/stores/{store}/runs/{run}/episodes", pages.api_run),
        Route("/api/stores/{store}/runs/{run}/aggregate", pages.api_aggregate),
        Route("/leaderboards", pages.leaderboards),
        Route("/stores/{store}/runs/{run}/leaderboard", pages.leaderboard_page),
        Route("/api/stores/{store}/runs/{run}/leaderboard", pages.api_leaderboard),
        Route("/episodes/{eid}", pages.episode_page),
        Route("/api/episodes/{eid}", pages.api_episode),
        Route("/episodes/{eid}/approval", pages.approve, methods=["POST"]),
        Route("/api/episodes/{eid}/approval", pages.api_approve, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("accord.serve", "static")]), name="static"),
    ]
    mounted: Any = None
    if play:
        from accord.serve.nav import install

        mounted = load_play_app(played, play_require_approval, play_llm)
        install(mounted)  # the one header of the app on the play pages too
        routes.append(Mount("/play", mounted))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        # a mounted app gets no lifespan of its own: stop its running games here
        games = getattr(getattr(getattr(mounted, "state", None), "play", None), "games",
                        None)
        if games is not None:
            await run_in_threadpool(games.shutdown)

    app = Starlette(routes=routes, exception_handlers={
        NotFound: _not_found, StoreError: _store_error, HTTPException: _http_error},
        lifespan=lifespan)
    app.state.stores = stores
    hosts = allowed_hosts if allowed_hosts is not None else [
        "127.0.0.1", "localhost", "[::1]", "::1"]
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    guarded: Any = TrustedHostMiddleware(Guard(app, token), allowed_hosts=hosts)
    guarded.state = app.state
    return guarded


__all__ = ["PLAY_APP", "Pages", "create_app", "environment", "load_play_app"]
