"""NegotiationArena ``game_state.json`` logs as read-only transcripts in an accord store.

A log's ``game_state`` list holds the START settings, one entry per turn and an END
summary. Each turn entry has ``current_iteration`` (1, 2, ...), ``turn`` (0 or 1: which
player spoke) and ``player_public_info_dict`` with ``player answer`` (``PROPOSAL``,
``ACCEPT`` or ``REJECT``), ``newly proposed trade`` (a serialised ``Trade``,
``{"_type": "trade", "_value": {"RED": resources given by RED, "BLUE": ...}}``, or
``"NONE"``) and ``message``. The END entry's ``summary`` has ``final_response`` and
``player_outcome`` (each player's change in valuation).

The turns are replayed through accord's own alternating-offers protocol (the game's
scenario from :mod:`accord.formats.negotiationarena`, stagnation rule off, the round cap
the log's length), so the stored episode has the same record, trajectory and metrics as
an episode accord ran, and every move is validated: the first proposal is the opening
offer; a later proposal rejects the offer on the table with a counter-offer (which the
protocol then puts on the table, as NegotiationArena's next turn answers it); ``ACCEPT``
accepts; ``REJECT`` walks away (it ends a NegotiationArena game without a trade). The
messages go with the moves.

Imported episodes go to the run :data:`RUN_NAME`; their agents are of the kind
``imported`` (labels name the player and model), their spec carries ``imported_from`` in
its scenario (``negotiationarena:PATH``), and they are stored ``done``: nothing re-runs
them (the models' replies are in the log, not reproducible). Metrics add the game's own
numbers: ``price`` (buy-sell), ``na_outcome_<player>`` (the log's ``player_outcome``) and
``na_final_response``.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.core.moves import Accept, Move, Offer, Reject, Walk
from accord.core.scenario import Scenario
from accord.formats.base import FormatError
from accord.formats.negotiationarena import (
    MONEY,
    load_document,
    log_file,
    player_names,
    resources,
    scenario_data,
    settings_of,
    typed,
)
from accord.protocols.agent import Agent
from accord.protocols.base import Observation

#: the store run imported NegotiationArena episodes belong to
RUN_NAME = "negotiationarena-import"
ANSWERS = ("PROPOSAL", "ACCEPT", "REJECT")
#: at most this many logs are imported from one folder
MAX_LOGS = 10_000


@dataclass(frozen=True)
class Turn:
    """One turn of the log: who, the answer, the proposal as an accord package, message."""

    party: str
    answer: str
    package: dict[str, Any] | None
    message: str
    model: str = ""


class ScriptedAgent(Agent):
    """Plays one player's recorded moves, in order (the log's turns)."""

    name = "imported"

    def __init__(self, moves: list[Move], label: str) -> None:
        self.moves: deque[Move] = deque(moves)
        self.label = label

    async def act(self, observation: Observation) -> Move:
        if not self.moves:  # the log ends with a proposal nobody answered
            return Reject(message="(the NegotiationArena log ends here)")
        return self.moves.popleft()

    def describe(self) -> str:
        return self.label


def _package(src: str, where: str, trade: Any, names: tuple[str, str], game: str,
             initial: list[dict[str, int]], scenario: Scenario) -> dict[str, Any]:
    """The accord package a NegotiationArena trade stands for."""
    value = typed(src, where, trade, "trade")
    if not isinstance(value, dict) or set(value) != set(names):
        raise FormatError(src, f"{where}._value", f"expected what each of {list(names)} "
                          "gives")
    gives = {p: resources(src, f"{where}._value.{p}", value[p]) for p in names}
    if game == "BuySellGame":
        paying = [p for p in names if gives[p].get(MONEY, 0) > 0]
        payer = paying[0] if len(paying) == 1 else None
        other = names[1] if payer == names[0] else names[0]
        goods = {k: v for k, v in gives[other].items() if k != MONEY and v > 0}
        if payer is None or len(goods) != 1 or next(iter(goods.values())) != 1:
            raise FormatError(src, where, f"not a sale of the one object for {MONEY}: "
                              f"{gives}")
        pkg: dict[str, Any] = {"price": gives[payer][MONEY]}
    else:
        first, second = names
        pkg = {}
        for issue in scenario.space.names:
            held = initial[0].get(issue, 0) - gives[first].get(issue, 0) \
                + gives[second].get(issue, 0)
            pkg[issue] = held
    for issue, v in pkg.items():
        if v not in scenario.space.issue(issue).values:
            raise FormatError(src, where, f"{issue} = {v} is outside the game "
                              f"(the scenario allows {scenario.space.issue(issue).values[0]}"
                              f"..{scenario.space.issue(issue).values[-1]})")
    return pkg


def read_turns(src: str, doc: dict[str, Any], scenario: Scenario) -> list[Turn]:
    """The played turns of a log, checked (alternating players, known answers, trades
    inside the game)."""
    names = player_names(src, doc)
    game = str(doc.get("class"))
    settings = settings_of(src, doc)
    key = "player_initial_resources" if "player_initial_resources" in settings \
        else "player_starting_resources"
    initial = [resources(src, f"game_state[0].settings.{key}[{i}]", r)
               for i, r in enumerate(settings.get(key) or [])]
    models = ["", ""]
    for i, p in enumerate(doc.get("players") or []):
        if isinstance(p, dict) and isinstance(p.get("model"), str):
            models[i] = p["model"]
    states = doc.get("game_state")
    if not isinstance(states, list):
        raise FormatError(src, "game_state", "missing: a log lists its turns in game_state")
    turns: list[Turn] = []
    for i, entry in enumerate(states):
        where = f"game_state[{i}]"
        if not isinstance(entry, dict):
            raise FormatError(src, where, "expected an object")
        it = entry.get("current_iteration")
        if it in ("START", "END"):
            continue
        if isinstance(it, bool) or not isinstance(it, int):
            raise FormatError(src, f"{where}.current_iteration", f"expected START, END or a "
                              f"turn number, got {str(it)[:20]!r}")
        turn = entry.get("turn")
        if turn not in (0, 1):
            raise FormatError(src, f"{where}.turn", f"expected 0 or 1, got {str(turn)[:20]!r}")
        if turns and names.index(turns[-1].party) == turn:
            raise FormatError(src, f"{where}.turn", "the same player moved twice in a row")
        info = entry.get("player_public_info_dict")
        if not isinstance(info, dict):
            raise FormatError(src, f"{where}.player_public_info_dict", "missing")
        answer = info.get("player answer")
        if answer not in ANSWERS:
            raise FormatError(src, f"{where}.player_public_info_dict.player answer",
                              f"expected one of {list(ANSWERS)}, got {str(answer)[:30]!r}")
        message = info.get("message")
        message = message if isinstance(message, str) else ""
        package = None
        if answer == "PROPOSAL":
            package = _package(src, f"{where}.player_public_info_dict.newly proposed trade",
                               info.get("newly proposed trade"), names, game, initial,
                               scenario)
        elif answer == "ACCEPT" and not turns:
            raise FormatError(src, f"{where}.player_public_info_dict.player answer",
                              "ACCEPT with no proposal on the table")
        turns.append(Turn(names[turn], answer, package, message, models[turn]))
    if not turns:
        raise FormatError(src, "game_state", "no turns were played")
    return turns


def scripts(turns: list[Turn]) -> dict[str, list[Move]]:
    """Each player's moves in accord's protocol (see the module docstring)."""
    out: dict[str, list[Move]] = {t.party: [] for t in turns}
    for i, t in enumerate(turns):
        msg = t.message or None
        if t.answer == "PROPOSAL":
            offer = Offer(t.package or {}, message=msg)
            out[t.party].append(offer if i == 0 else Reject(counter=Offer(t.package or {}),
                                                            message=msg))
        elif t.answer == "ACCEPT":
            out[t.party].append(Accept(message=msg))
        else:
            out[t.party].append(Walk(reason=msg))
    return out


def replay(scenario: Scenario, turns: list[Turn]) -> Any:
    """Run the turns through accord's alternating-offers protocol; the EpisodeResult."""
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
    from accord.protocols.engine import Bounds, run_episode

    first = turns[0].party
    order = (first, *[p for p in scenario.party_names if p != first])
    rounds = max(1, len(turns) - 1)
    protocol = AlternatingOffers(scenario, AlternatingConfig(
        max_rounds=rounds, turn_order=order, stagnation_rounds=0))
    moves = scripts(turns)
    agents = {p: ScriptedAgent(moves.get(p, []), f"imported {p}") for p in scenario.party_names}
    for a in agents.values():
        a.reset()
    return asyncio.run(run_episode(protocol, agents, bounds=Bounds(max_rounds=rounds)))


def _log_numbers(src: str, doc: dict[str, Any], names: tuple[str, str]) -> dict[str, Any]:
    """The game's own outcome from the log's END summary (when it has one)."""
    states = doc.get("game_state") or []
    end = states[-1] if states and isinstance(states[-1], dict) else {}
    summary = end.get("summary") if end.get("current_iteration") == "END" else None
    out: dict[str, Any] = {}
    if isinstance(summary, dict):
        outcome = summary.get("player_outcome")
        if isinstance(outcome, list) and len(outcome) == 2:
            for p, v in zip(names, outcome, strict=True):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    out[f"na_outcome_{p}"] = v
                elif isinstance(v, bool):
                    out[f"na_goal_reached_{p}"] = v
        if isinstance(summary.get("final_response"), str):
            out["na_final_response"] = summary["final_response"]
    return out


@dataclass(frozen=True)
class Prepared:
    """One log replayed and measured, ready to store."""

    source: str
    spec: Any
    result: Any
    metrics: dict[str, Any]
    scenario: str
    turns: int


def prepare_log(path: str | Path) -> Prepared:
    """Read, check and replay one log (nothing is written); :class:`FormatError` naming
    the file and the field for a malformed one."""
    from accord.agents.spec import AgentSpec
    from accord.domains.bargaining.load import ScenarioError, parse_scenario
    from accord.domains.bargaining.metrics import bargaining_metrics
    from accord.domains.base import EpisodeSpec

    p = log_file(str(path)).resolve()
    src = str(p)
    doc = load_document(p)
    imported = scenario_data(p, doc)
    try:
        scenario = parse_scenario(imported.data, f"negotiationarena:{src}")
    except ScenarioError as exc:
        raise FormatError(src, "game_state[0].settings", str(exc)) from None
    turns = read_turns(src, doc, scenario)
    names = player_names(src, doc)
    models = {t.party: t.model for t in turns}
    agents = tuple(AgentSpec("imported", "negotiationarena", {"model": models.get(n) or "unknown"})
                   for n in scenario.party_names)
    rounds = max(1, len(turns) - 1)
    spec = EpisodeSpec("bargaining", f"negotiationarena:{src}", agents,
                       {"max_rounds": rounds, "stagnation_rounds": 0,
                        "turn_order": [turns[0].party] + [n for n in scenario.party_names
                                                          if n != turns[0].party]}, 0)
    result = replay(scenario, turns)
    metrics = dict(bargaining_metrics(scenario, result))  # what DOMAIN.metrics computes
    if "price" in scenario.space.names and result.status == "agreement":
        metrics["price"] = result.record.get("agreement", {}).get("price")
    if result.status == "agreement" and scenario.name.startswith("negotiationarena-buysell"):
        budget = len(scenario.space.issue("price").values) - 1
        for n in names:  # the gain over the BATNA in ZUP: the game's own outcome
            metrics[f"surplus_{n}"] = round(metrics[f"gain_{n}"] * budget, 6)
    metrics.update(_log_numbers(src, doc, names))
    metrics["imported"] = True
    return Prepared(src, spec, result, metrics, scenario.name, len(turns))


def store_logs(prepared: list[Prepared], store: str | Path) -> list[dict[str, Any]]:
    """Write replayed logs into ``store`` (created if needed) as ``done`` episodes of the
    run :data:`RUN_NAME`; importing a log again replaces its episode (same id)."""
    from accord.bench.expand import PlannedEpisode
    from accord.bench.lineups import Lineup
    from accord.bench.provenance import provenance
    from accord.bench.store import Store
    from accord.bench.worker import EpisodeRecord, jsonable
    from accord.domains.ids import episode_id

    out: list[dict[str, Any]] = []
    now = time.time()
    with Store.open(store) as st:
        st.lock()
        existing = set(st.statuses(RUN_NAME))
        session = st.begin_session(RUN_NAME, {
            "name": RUN_NAME, "command": "accord import negotiationarena-log",
            "imported": True, "description": "NegotiationArena game_state.json logs, "
            "imported read-only: replayed from the logs, not re-runnable"}, None,
            provenance(), "accord import", len(prepared))
        for prep in prepared:
            eid = str(episode_id(prep.spec))
            lineup = Lineup(prep.spec.agents)
            if eid not in existing:
                st.add_planned(RUN_NAME, [PlannedEpisode(eid, prep.spec, 0, {
                    "lineup": lineup.label(), "agents": lineup.agent_labels(),
                    "imported": "negotiationarena"}, len(existing))])
                existing.add(eid)
            res = prep.result
            st.write(RUN_NAME, EpisodeRecord(
                eid, "done", outcome=res.status, summary=jsonable(res.summary()),
                metrics=jsonable(prep.metrics), trajectory=res.trajectory.to_jsonl(),
                wall_time=0.0, started=now, finished=now, worker="imported"), session)
            out.append({"episode": eid, "run": RUN_NAME, "source": prep.source,
                        "scenario": prep.scenario, "status": res.status,
                        "turns": prep.turns, "metrics": prep.metrics,
                        "agreement": res.record.get("agreement")
                        if res.status == "agreement" else None})
        st.end_session(session, "finished", {"planned": len(prepared), "queued": 0,
                                             "done": len(prepared), "failed": 0})
    return out


def import_logs(path: str | Path, store: str | Path) -> list[dict[str, Any]]:
    """Import every log at ``path`` (see :func:`log_files`) into ``store``: all are read
    and replayed first, so a malformed one leaves the store untouched."""
    return store_logs([prepare_log(f) for f in log_files(path)], store)


def log_files(path: str | Path) -> list[Path]:
    """The logs at ``path``: the file, a folder's ``game_state.json``, or every
    ``game_state.json`` under the folder (recursively, sorted)."""
    p = Path(path)
    if p.is_file() or (p / "game_state.json").is_file():
        return [log_file(str(p))]
    if not p.is_dir():
        raise FormatError(str(p), "<file>", "no such file or folder")
    found = sorted(f for f in p.rglob("game_state.json") if f.is_file())
    if not found:
        raise FormatError(str(p), "<folder>", "no game_state.json under this folder")
    if len(found) > MAX_LOGS:
        raise FormatError(str(p), "<folder>", f"{len(found)} logs; at most {MAX_LOGS}")
    return found
