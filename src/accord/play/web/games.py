"""Browser games: start an episode with a person in one seat, run it, store it.

A :class:`Game` is one episode run through the domain's ordinary ``run_episode`` with a
:class:`~accord.play.web.seat.WebSeat` handed down in ``RunContext.extra["seat"]`` -- the
same path ``accord bench`` takes, so the person's moves meet the same protocol
validation, feedback, bounds, judge and records. When it ends, its record is committed
with :meth:`accord.bench.store.Store.write` under the run ``play`` (one session per
game), like any benched episode.

Each game runs on an event loop of its own, in a thread of its own, never on the
server's loop: whatever an episode does between two awaits (reading a person's reply,
parsing a model's answer, the leak guard over a long message) can then never stall the
pages of the server or the other games.

The scenario of a game is a name from its domain's catalog, a Deal-or-No-Deal dialogue
id (``test/3``, checked by the domain), or a file a person uploaded to this app
(:meth:`Games.save_upload`) -- never a path from a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.seats import roles_of
from accord.play.web.seat import WebSeat
from accord.protocols.engine import EpisodeResult

DOMAINS = ("bargaining", "deal-or-no-deal", "games", "task-exchange", "deliberation")
"""Domains a person can play in the browser."""

MULTI_SEAT = frozenset({"bargaining", "deliberation"})
"""Domains where the opponent's agent fills every other seat of a scenario of three or
more parties (a multi-party bargaining scenario such as ``sprint-planning``, a task
allocation's team); elsewhere the play page seats one person against one agent."""


class PlayError(ValueError):
    """A new-game request that cannot start; the message is shown to the person."""


@dataclass(frozen=True)
class PlaySettings:
    """Settings of the play app (side effects only; never part of an episode spec).

    ``llm`` are the LLM settings handed to LLM opponents (cache, endpoints), ``data`` the
    data directory (Deal or No Deal dialogues), ``run`` the store run games are recorded
    under, ``uploads`` where uploaded scenario files are kept (default: next to the store),
    ``max_games`` how many games may run at once, ``max_upload`` the upload size cap.
    ``require_approval`` gates every agreement (seed 002 V1): it is stored ``pending`` in
    the store's approvals table until a person approves or rejects it (``accord serve``
    or ``accord approve``). ``episode_url`` links the finished game to its transcript:
    a path relative to the app's own base with ``{id}`` for the episode id (``accord
    serve --play`` sets ``../episodes/{id}``; standalone there is no transcript page).
    """

    llm: Mapping[str, Any] = field(default_factory=dict)
    data: str | None = None
    run: str = "play"
    uploads: Path | None = None
    max_games: int = 32
    max_upload: int = 256 * 1024
    require_approval: bool = False
    episode_url: str | None = None


@dataclass
class Game:
    """One browser game: its spec, the person's seat and role, and how it ended."""

    id: str
    spec: EpisodeSpec
    role: str
    roles: tuple[str, ...]
    seat: WebSeat
    created: float = field(default_factory=time.time)
    #: the episode's own loop, task and thread (set once the thread runs)
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[None] | None = None
    thread: threading.Thread | None = None
    result: EpisodeResult | None = None
    episode: str | None = None
    error: str | None = None
    #: ``pending`` when the stored agreement awaits a person's approval
    approval: str | None = None
    #: hot-seat: two people share this screen, one seat each (``role`` is the first's)
    hot: bool = False
    #: hot-seat: the role whose person said they are at the screen (None: nobody yet)
    at: str | None = None
    #: what the pages call the scenario: its own name for an uploaded file (the spec
    #: names the file the server saved it to, which says nothing to the person)
    title: str = ""

    @property
    def people(self) -> tuple[str, ...]:
        """The roles people play in this game (both seats in hot-seat play)."""
        return self.roles if self.hot else (self.role,)

    def seat_number(self, role: str) -> int:
        """``role``'s seat, counted from 1 in line-up order."""
        return self.roles.index(role) + 1

    @property
    def done(self) -> bool:
        """The episode has ended (with a result or an error)."""
        return self.result is not None or self.error is not None

    def state(self) -> dict[str, Any]:
        """The poll answer: ``your_turn``, ``waiting`` or ``done``, and a change counter."""
        status = "done" if self.done else ("your_turn" if self.seat.turn else "waiting")
        return {"status": status, "version": self.seat.version, "episode": self.episode}


def lineup_label(agents: list[str], roles: tuple[str, ...]) -> str:
    """The line-up of a played game, the person's seat named: ``human (buyer) vs boulware``
    (what ``accord results`` and the results pages show for it)."""
    return " vs ".join(f"{a} ({r})" if a == "human" else a
                       for a, r in zip(agents, roles, strict=False))


def catalog(domain: str) -> list[str]:
    """The scenario names a person may pick in ``domain``: the domain's own catalog
    (installed domains included); Deal or No Deal has ids instead (``test/3``)."""
    if domain == "deal-or-no-deal":
        return []
    return list(get_domain(domain).scenarios())


def _check_game_text(text: str) -> tuple[str, str]:
    """The file suffix of ``text`` as a game file (``.json`` or ``.yaml``) and the game's
    name; ``PlayError`` unless it is a valid game."""
    from accord.core.safeload import LoadError, parse_json, parse_yaml
    from accord.domains.games.load import GameFileError, parse_game

    is_json = text.lstrip()[:1] in ("{", "[")
    try:
        doc = (parse_json if is_json else parse_yaml)(text, "uploaded game")
        game = parse_game(doc.data, source="uploaded game", lines=doc.lines or None)
    except LoadError as exc:
        at = f", line {exc.line}" if exc.line else ""
        raise PlayError(f"uploaded game{at}: {exc.problem}") from None
    except GameFileError as exc:
        raise PlayError(str(exc)) from None
    return (".json" if is_json else ".yaml"), game.info.name


def _named(text: str) -> str:
    """A name from a request, shortened and quoted for an error message."""
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


class Games:
    """The games of one app: start, look up, and record them in the store."""

    def __init__(self, store: Path, settings: PlaySettings) -> None:
        self.store = Path(store)
        self.settings = settings
        self.games: dict[str, Game] = {}
        #: scenario files this app saved from uploads (the only paths a game may name)
        self.uploaded: set[str] = set()
        #: an uploaded file's path -> what the pages call it (its own name)
        self.upload_names: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def uploads(self) -> Path:
        """Where uploaded scenario files are kept."""
        return self.settings.uploads or self.store.with_name(self.store.name + ".scenarios")

    def save_upload(self, text: str, domain: str = "bargaining") -> str:
        """Validate an uploaded bargaining scenario or game file (JSON or YAML) with the
        domain's own loader (safe YAML, under its budgets); keep it; its path."""
        if domain not in ("bargaining", "games"):
            raise PlayError(f"{domain} takes no uploaded files")
        what = "scenario" if domain == "bargaining" else "game"
        if len(text.encode("utf-8")) > self.settings.max_upload:
            raise PlayError(f"the {what} file is larger than {self.settings.max_upload} bytes")
        suffix = ".yaml"
        if domain == "bargaining":
            from accord.domains.bargaining.load import ScenarioError, parse_text

            try:
                name = parse_text(text, "uploaded scenario").name
            except ScenarioError as exc:
                raise PlayError(str(exc)) from None
        else:
            suffix, name = _check_game_text(text)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        self.uploads.mkdir(parents=True, exist_ok=True)
        # bargaining files keep their old names (games played before link to them)
        path = self.uploads / (f"{digest}{suffix}" if domain == "bargaining"
                               else f"game-{digest}{suffix}")
        path.write_text(text, encoding="utf-8")
        with self._lock:
            self.uploaded.add(str(path))
            self.upload_names[str(path)] = f"{name} (uploaded)" if name else "uploaded file"
        return str(path)

    def title_of(self, scenario: str) -> str:
        """What a person reads for ``scenario``: an uploaded file's own name, not the path
        the server saved it to (catalog names and Deal-or-No-Deal ids as they are)."""
        with self._lock:
            return self.upload_names.get(scenario, scenario)

    def check_scenario(self, domain: str, scenario: str, uploads: bool = True) -> None:
        """``PlayError`` unless ``scenario`` is in ``domain``'s catalog or (``uploads``) a
        file this app saved from an upload (Deal-or-No-Deal ids are checked by the
        domain). The error names only the catalog: nothing about files on the server."""
        if domain == "deal-or-no-deal":
            return
        with self._lock:
            if uploads and scenario in self.uploaded:
                return
        known = catalog(domain)
        if scenario not in known:
            what = "bargaining scenario" if domain == "bargaining" else f"{domain} scenario"
            upload = " or upload a scenario file" if domain == "bargaining" else ""
            raise PlayError(f"unknown {what} {_named(scenario)}; choose one of "
                            f"{', '.join(known)}{upload}")

    def start(self, domain: str, scenario: str, opponent: str, seat: int, seed: int = 0,
              params: Mapping[str, Any] | None = None, hot: bool = False) -> Game:
        """Check everything, then start the episode in the background; the new game.

        ``hot`` seats two people at this one screen instead (hot-seat: the opponent spec
        is ignored; a two-party scenario only): each turn is handed over by seat name and
        shows only that seat's brief (see :mod:`accord.play.seats`).
        """
        if domain not in DOMAINS:
            raise PlayError(f"unknown domain {domain[:40]!r}; choose one of {', '.join(DOMAINS)}")
        self._check_room()
        self.check_scenario(domain, scenario)
        try:
            opp = AgentSpec("human") if hot else parse_agent_spec(opponent)
            if opp.kind == "human" and not hot:
                raise PlayError("the opponent must be an agent, not another person (for two "
                                "people at this screen, tick hot-seat)")
            roles = roles_of(domain, scenario, self.settings.data)
            title = self.title_of(scenario)
            if hot and len(roles) != 2:
                raise PlayError(f"hot-seat play seats two people: {title} has "
                                f"{len(roles)} seats ({', '.join(roles)})")
            if len(roles) != 2 and domain not in MULTI_SEAT:
                raise PlayError(f"{title} has {len(roles)} parties; the play page seats "
                                "one person against one agent")
            if not 0 <= seat < len(roles):
                raise PlayError(f"seat must be 0 to {len(roles) - 1}: {title} has "
                                f"{len(roles)} seats ({', '.join(roles)})")
            agents: list[AgentSpec] = [opp] * len(roles)
            dom = get_domain(domain)
            probe = EpisodeSpec(domain, scenario, tuple(agents), dict(params or {}), seed)
            dom.validate(probe)  # scenario, parameters and the opponent, before anything runs
            agents[seat] = AgentSpec("human")
            spec = dataclasses.replace(probe, agents=tuple(agents))
        except PlayError:
            raise
        except (AgentSpecError, ValueError, KeyError, FileNotFoundError) as exc:
            raise PlayError(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)
                            ) from None
        game = Game(secrets.token_urlsafe(12), spec, roles[0] if hot else roles[seat], roles,
                    WebSeat(), hot=hot, title=self.title_of(scenario))
        with self._lock:
            self._check_room()
            self.games[game.id] = game
        game.thread = threading.Thread(target=self._thread, args=(game,), daemon=True,
                                       name=f"accord-play-{game.id}")
        try:
            game.thread.start()
        except RuntimeError as exc:  # no thread to be had: the game never existed
            with self._lock:
                self.games.pop(game.id, None)
            raise PlayError(f"the server cannot start another game now ({exc})") from None
        return game

    def _check_room(self) -> None:
        running = sum(1 for g in list(self.games.values()) if not g.done)
        if running >= self.settings.max_games:
            raise PlayError(f"{running} games are running; finish one first")

    def _thread(self, game: Game) -> None:
        """The game's thread: its episode on a loop of its own."""

        async def main() -> None:
            game.loop = asyncio.get_running_loop()
            game.task = asyncio.current_task()
            await self._run(game)

        try:
            asyncio.run(main())
        except asyncio.CancelledError:  # the server is shutting down: nothing to store
            pass
        finally:  # never left "running" (it would hold one of max_games forever)
            if game.error is None and game.result is None:
                game.error = "the server stopped before the game ended"

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop every running game (the server is stopping; unfinished games are not
        stored) and wait up to ``timeout`` seconds for their threads."""
        games = list(self.games.values())
        for game in games:
            loop, task = game.loop, game.task
            if loop is not None and task is not None and not game.done:
                with contextlib.suppress(RuntimeError):  # its loop has just closed
                    loop.call_soon_threadsafe(task.cancel)
        for game in games:
            if game.thread is not None:
                game.thread.join(timeout)

    async def _run(self, game: Game) -> None:
        from accord.bench.worker import EpisodeRecord, format_error

        dom = get_domain(game.spec.domain)
        rec = EpisodeRecord("", "failed", started=time.time(), worker="accord play")
        t0 = time.perf_counter()
        result: EpisodeResult | None = None
        error: str | None = None
        try:
            ctx = RunContext(llm=dict(self.settings.llm), data=self.settings.data,
                             extra={"seat": game.seat})
            result = await dom.run_episode(game.spec, ctx)
            rec.finish(result, dom, game.spec)
        except Exception as exc:  # a failed game is a record, never a dead server
            rec.error = format_error(exc)
            error = f"{type(exc).__name__}: {exc}"
        rec.wall_time = time.perf_counter() - t0
        rec.finished = time.time()
        try:
            game.episode = self._store(game, rec)  # this game's own thread: may block
        except Exception as exc:  # the store failed: say so on the page, keep the server
            error = (error or "") + f" (not stored: {type(exc).__name__}: {exc})"
        # set last: a game shows as done only once it is in the store
        game.error = error
        game.result = result

    def _store(self, game: Game, rec: Any) -> str:
        """Commit the finished game as an episode of run ``play``; its episode id."""
        from accord.bench.expand import PlannedEpisode
        from accord.bench.provenance import provenance
        from accord.bench.store import Store
        from accord.domains.ids import episode_id

        run = self.settings.run
        self.store.parent.mkdir(parents=True, exist_ok=True)
        with Store.open(self.store) as store:
            known = store.statuses(run) if run in {r["name"] for r in store.runs()} else {}
            repeat = 0  # a person's games are not reproducible: each play is a repetition
            while episode_id(game.spec, repeat) in known:
                repeat += 1
            rec.id = episode_id(game.spec, repeat)
            agents = [str(a) for a in game.spec.agents]
            labels = {"lineup": lineup_label(agents, game.roles), "agents": agents,
                      "person": ", ".join(game.people), "game": game.id}
            session = store.begin_session(
                run, {"name": run, "description": "games played by people (accord play)"},
                None, provenance(), "play", 1)
            store.add_planned(run, [PlannedEpisode(rec.id, game.spec, repeat, labels,
                                                   len(known))])
            store.write(run, rec, session)
            store.end_session(session, "finished", {"planned": 1, "queued": 1,
                                                    "done": int(rec.status == "done"),
                                                    "failed": int(rec.status != "done")})
            if self.settings.require_approval and rec.status == "done" \
                    and rec.outcome == "agreement":
                from accord.bench import approvals

                approvals.mark_pending(store.conn, run, [str(rec.id)])
                game.approval = approvals.PENDING
            return str(rec.id)

    def get(self, gid: str) -> Game | None:
        """The game with id ``gid``, if this app started it."""
        return self.games.get(gid)
