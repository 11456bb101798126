"""``accord run`` and ``accord analyze``: one episode or one scenario analysis.

Imported when one of those commands runs (not at ``accord --help`` time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from accord.cli import common as c
from accord.cli import end_startup


def parse_params(items: list[str]) -> dict[str, Any]:
    """``--param KEY=VALUE`` pairs as a params dict; each VALUE is read as a YAML scalar
    (``3`` an int, ``0.5`` a float, ``true`` a bool, ``[a, b]`` a list, else a string)."""
    out: dict[str, Any] = {}
    if not items:  # PyYAML is not a start-up cost of a run without --param
        return out
    import yaml

    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise c.fail(f"--param wants KEY=VALUE, got {item!r}")
        try:
            out[key] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise c.fail(f"--param {key}: cannot read {text!r}: {exc}") from None
    return out


def _run_coroutine(spec: Any, coro: Any) -> Any:
    """Run the episode's coroutine: a line-up of code strategies without an event loop
    (:func:`accord.protocols.engine.run_now`: no asyncio to import, the same record), one
    with an LLM or a person (at a seat, or as mediator, judge or scorer) with
    ``asyncio.run`` as always."""
    waits = any(a.kind == "human" or a.kind.startswith("llm") for a in spec.agents) or any(
        isinstance(v, str) and v.startswith(("llm", "human")) for v in spec.params.values())
    if waits:
        import asyncio

        return asyncio.run(coro)
    from accord.protocols.engine import run_now

    return run_now(coro)


def resolve_target(target: str) -> tuple[str, str]:
    """``DOMAIN/REST`` -> (domain, rest) for any installed domain; a bare scenario
    ``PATH.yaml`` is a bargaining scenario file and ``FORMAT:PATH`` (``genius:dir``) an
    imported one. Unknown domains fail with the known ones."""
    from accord.domains import domain_names, is_domain_name, registered_domains

    domain, _, rest = target.partition("/")
    if is_domain_name(domain):
        return domain, rest
    names = sorted({*domain_names(), *registered_domains()})
    if target.endswith((".yaml", ".yml")):
        return "bargaining", target
    from accord.formats import FormatError, split_target

    try:
        split = split_target(target)
    except FormatError as exc:
        raise c.fail(str(exc)) from None
    if split is not None:  # FORMAT:PATH, a file of another tool
        _import_notes(*split)
        return "bargaining", target
    from accord.core.names import unknown_name
    from accord.core.safeload import short

    raise c.fail(unknown_name("domain", domain, names,
                              hint=f"(in {short(target)}; or give a scenario PATH.yaml)"))


def _import_notes(fmt: str, path: str) -> None:
    """Print on stderr what an import of ``path`` cannot carry over (a bad file is
    reported by the scenario resolver, with the file and element)."""
    from accord.formats import FormatError, import_path

    try:
        notes = import_path(fmt, path).notes
    except FormatError:
        return
    for note in notes:
        c.warn(note)


def domain_params(domain: Any, options: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The domain's params from the given ``accord run`` options and ``--param`` pairs.

    An option the domain does not take is refused by name (it would otherwise be ignored
    silently); ``--param`` keys are checked by the domain itself.
    """
    out: dict[str, Any] = {}
    for name, value in options.items():
        if value is None:
            continue
        key = domain.run_options.get(name)
        if key is None:
            flag = "--" + name.replace("_", "-")
            takers = _domains_taking(name)
            raise c.fail(f"{flag} does not apply to domain {domain.name!r}"
                         + (f" (it is for {', '.join(takers)})" if takers else "")
                         + "; use --param KEY=VALUE for the domain's own parameters")
        out[key] = value
    return {**out, **params}


def _domains_taking(option: str) -> list[str]:
    from accord.domains import all_domains

    return sorted(name for name, dom in all_domains().items() if option in dom.run_options)


def import_plugins(modules: list[str]) -> None:
    """Import ``--plugin`` modules (each registers domains or agent kinds when imported)."""
    if not modules:  # the bench machinery is not a single run's start-up cost
        return
    from accord.bench.expand import import_plugins as load

    try:
        load(modules)
    except ImportError as exc:
        raise c.fail(f"--plugin: cannot import {exc.name or exc}: {exc}") from None


def run_target(target: str, agents: str, seed: int, options: dict[str, Any],
               params: dict[str, Any], out: Path | None, as_json: bool,
               llm: dict[str, Any], quiet: bool = False, data: Path | None = None,
               store: Path | None = None, require_approval: bool = False) -> None:
    """``accord run TARGET``: one episode of any installed domain, printed or as JSON (and
    stored with ``store``, its agreement pending approval with ``require_approval``)."""
    import time

    from accord.agents.spec import AgentSpecError, parse_agent_list
    from accord.domains import RunContext, get_domain

    name, rest = resolve_target(target)
    try:
        dom = get_domain(name)
        spec = dom.run_spec(rest, parse_agent_list(agents),
                            domain_params(dom, options, params), seed)
        dom.validate(spec)
        from accord.agents.hygiene import same_model_roles

        hygiene = same_model_roles(spec.agents, spec.params)
        for line in hygiene:
            c.warn(line[0].upper() + line[1:] + ".")
        seat = _seat(spec, as_json, None if data is None else str(data))
        ctx = RunContext(episode_id=_episode_id(spec), llm=llm,
                         data=None if data is None else str(data), extra={"seat": seat})
        end_startup()  # the domain, scenario and agents are loaded: the episode begins
        t0 = time.perf_counter()
        try:
            result = _run_coroutine(spec, dom.run_episode(spec, ctx))
        except KeyboardInterrupt:  # Ctrl-C while an agent moved (a person's at a prompt quits)
            raise _interrupted() from None
        wall = time.perf_counter() - t0
        record = dom.summary(spec, result)
    except (ValueError, KeyError, TypeError, AgentSpecError, OSError) as exc:
        # ValueError covers ScenarioError, ParamError and refused protocol settings; the
        # episode itself turns every error into a record, never an exception
        raise c.fail(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args
                     else str(exc)) from None
    if out is not None:
        c.write_trajectory(result.trajectory, out)
    stored = _store(store, spec, result, require_approval, wall, _person_seats(spec, seat))
    if as_json:
        _debrief(seat, spec, result)  # on stderr, with the prompts
        c.emit_json({**record, **stored, **({"warnings": hygiene} if hygiene else {})})
        _exit_on_error(result.status)
        return
    from accord.cli.render import print_negotiation_record, print_record_fields, print_transcript

    console = c.console()
    if quiet:  # only what was asked for: the outcome in one line
        from accord.cli.quiet import quiet_line

        verdict = None if name == "bargaining" else dom.outcome_text(record)
        console.print(quiet_line(result.summary() if name == "bargaining" else record,
                                 verdict), highlight=False, soft_wrap=True)
        _debrief(seat, spec, result)
        _exit_on_error(result.status)
        return
    console.print(f"[bold]{c.plain(dom.headline(spec))}[/]")
    print_transcript(console, result.trajectory)
    if name == "bargaining":  # the agreement artefact / no-deal record as a table
        print_negotiation_record(console, result.summary())
    else:
        if (verdict := dom.outcome_text(record)) is not None:
            console.print(c.plain(verdict), highlight=False)
        print_record_fields(console, record)
    if out is not None:
        console.print(f"trajectory log: {c.plain(out)}")
    _debrief(seat, spec, result)
    _exit_on_error(result.status)


def _debrief(seat: Any, spec: Any, result: Any) -> None:
    """After a person played: their debrief (:mod:`accord.play.debrief`) for every role
    they played, at their terminal. A debrief that cannot be made is said, never fatal."""
    roles = getattr(seat, "roles", None)
    if not roles:
        return
    from accord.play.debrief import debrief

    for role in roles:
        try:
            data = debrief(spec, result, role)
        except Exception as exc:  # the debrief is a bonus: the episode is done and printed
            c.warn(f"no debrief: {type(exc).__name__}: {exc}")
            return
        if data is not None:
            seat.debrief(data)


def _person_seats(spec: Any, seat: Any) -> dict[int, str] | None:
    """``{position: role}`` of the people in the line-up (named in the stored line-up,
    ``human (buyer) vs boulware``, ``human (buyer) vs human (seller)`` in hot-seat play);
    ``None`` when they cannot be told apart."""
    if seat is None:  # no person played: nothing of accord.play on a code-agent run
        return None
    from accord.play.seats import lineup_seats, people_in

    people = people_in(spec.agents)
    roles = list(getattr(seat, "roles", None) or [])
    if len(people) == 1 and len(roles) == 1:
        return {people[0]: roles[0]}
    named = lineup_seats(spec.agents, getattr(seat, "seats", None) or {})
    return named if len(people) > 1 and len(named) == len(people) else None


def _store(store: Path | None, spec: Any, result: Any, require_approval: bool,
           wall_time: float, seats: dict[int, str] | None = None) -> dict[str, Any]:
    """``--save``: write the episode to a results store (run ``accord-run``); returns the
    ``stored`` entry of the JSON output (empty without ``--save``)."""
    if store is None:
        return {}
    from accord.bench.single import RUN_NAME, store_episode
    from accord.bench.store import StoreError
    from accord.domains import get_domain

    try:
        metrics = get_domain(spec.domain).metrics(spec, result)
    except Exception as exc:  # metrics are a bonus for the stored record, never fatal
        c.warn(f"metrics of the stored episode: {type(exc).__name__}: {exc}")
        metrics = None
    try:
        eid = store_episode(store, spec, result, metrics, require_approval, wall_time, seats)
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    gated = require_approval and result.status == "agreement"
    c.console(stderr=True).print(
        f"stored as {eid} in {c.plain(store)} (run {RUN_NAME})"
        + (f"; the agreement awaits approval: accord approve {c.plain(store)} {eid[:8]} "
           "[--reject --comment TEXT], or accord serve" if gated else "")
        + (f"; nothing to approve: the episode ended {result.status}, not in an agreement"
           if require_approval and not gated else ""))
    return {"stored": {"store": str(store), "run": RUN_NAME, "id": eid,
                       "approval": "pending" if gated else None}}


def _seat(spec: Any, as_json: bool, data: str | None = None) -> Any:
    """A terminal seat when a person plays (``human`` in the line-up), else ``None``;
    with two or more people, a hot-seat one that names each seat as it hands the keyboard
    over (:mod:`accord.play.seats`).

    With ``--json`` the prompts go to stderr so stdout stays one JSON document.
    """
    if not any(getattr(a, "kind", None) == "human" for a in spec.agents):
        return None  # checked here so a code-agent run never imports accord.play
    from accord.play.seats import people_in, person_seats
    from accord.play.terminal import TerminalSeat

    people = people_in(spec.agents)

    seats = person_seats(spec.domain, spec.scenario, spec.agents, data) \
        if len(people) > 1 else {}
    return TerminalSeat(c.console(stderr=as_json), seats=seats, people=len(people))


def _interrupted() -> typer.Exit:
    """Ctrl-C stopped the episode before it ended: say so on stderr, exit 130."""
    c.console(stderr=True).print(
        "[yellow]interrupted[/]: Ctrl-C stopped the episode before it ended; nothing was "
        "recorded (a person at the prompt ends an episode as their quit with Ctrl-C or Ctrl-D)")
    return typer.Exit(c.EXIT_INTERRUPTED)


def _exit_on_error(status: str) -> None:
    """An episode that ended in status ``error`` is reported, then exits 1 (for scripts)."""
    if status == "error":
        raise typer.Exit(c.EXIT_FAILED)


#: the solution points of ``accord analyze`` (its --json keys) and how a person reads them
POINT_LABELS = {"nash": "Nash", "kalai": "Kalai", "kalai_smorodinsky": "Kalai-Smorodinsky",
                "max_welfare": "max welfare"}


def _other_domain(target: str) -> str:
    """For ``accord analyze games/stag-hunt``: say that ``analyze`` reads bargaining
    scenarios only and name the command for that domain ("" for any other target)."""
    from accord.domains import is_domain_name

    head, sep, name = target.partition("/")
    if not sep or head == "bargaining" or not is_domain_name(head) or Path(target).exists():
        return ""
    what = (f"{c.plain(target)} is a {c.plain(head)} scenario, and accord analyze reads "
            "bargaining scenarios only")
    if head == "games":
        return (f"{what}; for the game's equilibria and Pareto optima run: accord games "
                f"solve {c.plain(name)}")
    return f"{what}; run it with: accord run {c.plain(target)} --agents ..."


def analyze_target(target: str, as_json: bool, max_outcomes: int | None,
                   time: float = 0.0) -> None:
    """``accord analyze``: the frontier and the bargaining solutions of one scenario."""
    from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
    from accord.domains.bargaining import ScenarioError, analyze, resolve_scenario

    cap = DEFAULT_MAX_OUTCOMES if max_outcomes is None else max_outcomes
    try:
        scenario = resolve_scenario(target, cap)  # refused before any array is allocated
    except ScenarioError as exc:
        raise c.fail(_other_domain(target) or str(exc)) from None
    if scenario.space.size > cap:
        raise c.fail(f"{scenario.name}: {scenario.space.size} outcomes is more than the "
                     f"analysis cap of {cap}; raise it with --max-outcomes N (memory grows "
                     "with outcomes x parties)")
    data = analyze(scenario, time)
    if as_json:
        c.emit_json(data)
        return
    from rich.table import Table

    console = c.console()
    parties = data["parties"]
    pareto = data["pareto"]
    n_ir = data["pareto_individually_rational"]
    console.print(f"[bold]{c.plain(data['scenario'])}[/]: {data['outcomes']} outcomes, "
                  f"{data['individually_rational']} individually rational, "
                  f"{len(pareto)} Pareto-optimal ({n_ir} of them individually rational)")
    if "discount" in data:
        factors = ", ".join(f"{c.plain(p)} {data['discount'][p]:g}" for p in parties)
        console.print(f"Utilities and BATNAs are taken at relative time t = {time:g} "
                      f"(time discounts u x delta^t: {factors}; --time T for another t).")
    rules = data.get("passing_under_rules")
    if rules is not None:
        need = f"{rules['k']} of {len(parties)} yes votes" + (
            f" including {', '.join(rules['required'])}" if rules["required"] else "")
        console.print(c.plain(f"Under the scenario's rules ({need}, each party voting yes "
                              f"when an outcome meets its minimum), {rules['outcomes']} "
                              "outcomes pass."), highlight=False)
    t = Table("point", "outcome", *[c.plain(p) for p in parties])
    for key, label in POINT_LABELS.items():
        pt = data[key]
        if pt is None:
            t.add_row(label, "none (no individually rational outcome)", *["-"] * len(parties))
        else:
            text = ", ".join(f"{k}={v}" for k, v in pt["outcome"].items())
            if pt.get("individually_rational") is False:  # max welfare's fallback
                text += " (over all outcomes: none is individually rational)"
            t.add_row(label, c.plain(text), *[f"{pt['utilities'][p]:.3f}" for p in parties])
    console.print(t)
    f = Table("Pareto-optimal outcome", *[c.plain(p) for p in parties],
              "individually rational")
    for pt in pareto:
        below = pt["below_batna"]
        f.add_row(c.plain(", ".join(f"{k}={v}" for k, v in pt["outcome"].items())),
                  *[f"{pt['utilities'][p]:.3f}" for p in parties],
                  "yes" if not below else f"no: {c.plain(', '.join(below))} below BATNA")
    console.print(f)
    batnas = ", ".join(f"{c.plain(p)} {data['batna'][p]:.2f}" for p in parties)
    if n_ir < len(pareto):
        console.print(f"{len(pareto) - n_ir} of the {len(pareto)} Pareto-optimal outcomes "
                      f"leave a party below its BATNA ({batnas}): no rational party agrees "
                      "to them. The solution points are chosen among individually rational "
                      "outcomes only" + ("." if data["individually_rational"] else
                                         " (max welfare, when there is none, among all)."))
    else:
        console.print(f"Every Pareto-optimal outcome is individually rational (BATNAs: "
                      f"{batnas}).")


def _episode_id(spec: Any) -> str:
    """The episode's id (:func:`accord.domains.ids.episode_id`, as ``accord bench`` gives it)."""
    from accord.domains.ids import episode_id

    return str(episode_id(spec))
