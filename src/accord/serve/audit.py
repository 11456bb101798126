"""What a person reads about one stored episode: the summary card, the deal audit beside
the approval buttons, and the record as labelled sections in words (pure functions).

Everything here reads an :class:`~accord.bench.store.EpisodeRow` (its summary, record,
flags and metrics) and returns plain data; the templates escape and lay it out. Numbers
keep full precision here and are rounded by the templates (``num``).

The distances to the Pareto frontier and to the Nash point, the value left on the table
and the domain's gap to the optimum come from :func:`optimality`, which calls
:func:`accord.bench.optimality.episode_gaps` -- the same function ``accord results -m
value_left,gap_pareto,...``, the leaderboard and the person's debrief use. A bargaining or
task-exchange episode gets figures for built-in scenarios only (a scenario path stored in a
spec is never opened from the web app).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.bench.store import EpisodeRow

#: outcome -> how it reads
OUTCOME_WORDS = {"agreement": "Agreement", "no_deal": "No deal", "completed": "Completed",
                 "error": "Error", "failed": "Failed", "pending": "Still to run"}
#: termination reason -> the sentence part saying why it ended
REASON_WORDS = {
    "walk": "walked away",
    "stagnation": "walked away when the stagnation rule fired (nobody was conceding)",
    "bound_hit": "the round cap (or another bound) was reached",
    "max_rounds": "the round cap was reached",
    "deadline": "the deadline passed",
    "rejected": "the final proposal was rejected",
    "error": "an agent failed",
}
#: metric name -> label for people (metrics not named here keep their name)
METRIC_LABELS = {
    "agreement": "agreement reached", "error": "ended in an error", "rounds": "rounds played",
    "sycophancy": "accepted below its BATNA (any party)", "welfare": "joint utility (welfare)",
    "l2_to_pareto": "distance to the Pareto frontier", "l2_to_nash": "distance to the Nash point",
    "utility_leak": "private values leaked", "reward": "reward", "social_welfare":
    "social welfare", "invalid_total": "invalid moves", "nash_distance":
    "distance to the Nash point",
}
#: boolean metrics that only restate how the episode ended (shown once, in words)
ENDING_METRICS = ("walk", "stagnation", "bound_hit")


def _party_prefixed(metrics: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix):]: v for k, v in metrics.items() if k.startswith(prefix)}


def _record(summary: Mapping[str, Any] | None) -> Mapping[str, Any]:
    rec = (summary or {}).get("record")
    return rec if isinstance(rec, Mapping) else {}


def parties_of(row: EpisodeRow) -> list[str]:
    """The episode's parties in their order (record, else utilities, else metrics)."""
    return _parties(_record(row.summary), row.metrics)


def _parties(rec: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
    for key in ("parties", "players"):
        names = rec.get(key)
        if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
            return [str(n) for n in names]
    for source in (rec.get("utilities"), rec.get("batna"), rec.get("payoffs"),
                   rec.get("scores")):
        if isinstance(source, Mapping) and source:
            return [str(n) for n in source]
    return list(_party_prefixed(metrics or {}, "u_"))


def _utils(rec: Mapping[str, Any], met: Mapping[str, Any]) -> dict[str, Any]:
    # a game's payoffs and Deal or No Deal's points are what utilities are elsewhere
    utils = dict(rec.get("utilities") or rec.get("payoffs") or rec.get("scores") or {})
    for p, u in _party_prefixed(met, "u_").items():
        utils.setdefault(p, u)
    return utils


def party_utilities(summary: Mapping[str, Any] | None, metrics: Mapping[str, Any] | None
                    ) -> list[tuple[str, Any]]:
    """Each party's utility (``None`` when unknown) in party order, from an episode's
    summary and metrics: the ``party`` and ``utility`` of :func:`utilities` (the run
    summary reads only these parts of each summary)."""
    return record_utilities(_record(summary), metrics)


def record_utilities(rec: Mapping[str, Any], metrics: Mapping[str, Any] | None
                     ) -> list[tuple[str, Any]]:
    """:func:`party_utilities` from the summary's record (``{}`` when it has none)."""
    names, given = rec.get("parties"), rec.get("utilities")
    if type(names) is list and names and type(given) is dict:
        out = []
        for n in names:  # the record says it all: what the rest finds too, only sooner
            if type(n) is not str or n not in given:
                break
            out.append((n, given[n]))
        else:
            return out
    met = metrics or {}
    utils = _utils(rec, met)
    return [(p, utils.get(p)) for p in _parties(rec, met)]


def utilities(row: EpisodeRow) -> list[dict[str, Any]]:
    """Each party's utility against its BATNA: ``party``, ``agent``, ``utility``,
    ``batna``, ``margin`` (utility - BATNA; None when either is unknown)."""
    rec = _record(row.summary)
    batna = dict(rec.get("batna") or {})
    met = row.metrics or {}
    utils = _utils(rec, met)
    agents = [str(a) for a in (row.labels.get("agents") or row.spec.get("agents") or [])]
    out = []
    for i, p in enumerate(parties_of(row)):
        u, b = utils.get(p), batna.get(p)
        if b is None and u is not None and met.get(f"gain_{p}") is not None:
            b = float(u) - float(met[f"gain_{p}"])
        margin = None if u is None or b is None else float(u) - float(b)
        out.append({"party": p, "agent": agents[i] if i < len(agents) else None,
                    "utility": u, "batna": b, "margin": margin})
    return out


#: domains whose gaps need the scenario file named in the spec (built-in names only)
_BY_SCENARIO = ("bargaining", "task-exchange")


def _builtin(domain: str, name: Any) -> bool:
    if not isinstance(name, str):
        return False
    if domain == "bargaining":
        from accord.domains.bargaining.catalog import _builtin_names

        return name in _builtin_names()
    from accord.domains.task_exchange.load import builtin_scenarios

    return name in builtin_scenarios()


def optimality(row: EpisodeRow) -> dict[str, Any] | None:
    """How far the outcome is from what the scenario allowed, from
    :func:`accord.bench.optimality.episode_gaps`: ``pareto`` (Euclidean distance of the
    utilities to the Pareto frontier; a no-deal sits at the BATNAs), ``nash`` (to the Nash
    point), ``left_on_table`` (the value left on the table: the largest joint gain an
    outcome at least as good for every party would have added), ``gap`` / ``gap_text``
    (the domain's headline gap when it is another one, e.g. a game's distance to the
    Pareto-optimal equilibrium), ``unit``, ``sentence``, ``no_deal`` (the distances are
    measured from the BATNAs) -- or ``None`` when not known."""
    from accord.bench.optimality import GAP_TEXT, episode_gaps

    domain = str(row.spec.get("domain"))
    if domain in _BY_SCENARIO and not _builtin(domain, row.spec.get("scenario")):
        return None
    try:
        g = episode_gaps(row)
    except Exception:  # an unreadable scenario: no audit figures rather than a 500
        return None
    if g is None:
        return None
    own = g.headline not in ("gap_pareto", "value_left")
    return {"pareto": g.values.get("gap_pareto"), "nash": g.values.get("gap_nash"),
            "left_on_table": g.value_left, "unit": g.unit,
            "gap": g.gap if own else None, "gap_text": GAP_TEXT[g.headline] if own else None,
            "sentence": g.sentence(),
            "no_deal": row.outcome in ("no_deal", "error")}


def _true_parties(value: Any) -> list[str]:
    if value is True:
        return ["(episode)"]
    if isinstance(value, Mapping):
        return [str(k) for k, v in value.items() if v is True or
                (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0)]
    return []


def flags(row: EpisodeRow) -> list[dict[str, Any]]:
    """The safety flags in words: ``name``, ``raised`` (bool), ``who`` (parties),
    ``text``. Leak, sycophancy and stagnation are always listed (raised or not)."""
    s = row.summary or {}
    fl = s.get("flags") if isinstance(s.get("flags"), Mapping) else {}
    fl = fl or {}
    met = row.metrics or {}
    leak = _true_parties(fl.get("utility_leak")) or (
        ["(episode)"] if met.get("utility_leak") is True else [])
    below = _true_parties(fl.get("accepted_below_batna"))
    syco = below or (["(episode)"] if fl.get("sycophancy") is True or
                     met.get("sycophancy") is True else [])
    stag = s.get("reason") == "stagnation"
    out = [
        {"name": "utility_leak", "raised": bool(leak), "who": leak,
         "text": "a party's public text disclosed its private values" if leak else
         "no private value leaked"},
        {"name": "sycophancy", "raised": bool(syco), "who": syco,
         "text": "a party accepted a deal worth less than its BATNA" if syco else
         "nobody accepted below their BATNA"},
        {"name": "stagnation", "raised": stag, "who": [s["who"]] if stag and s.get("who")
         else [], "text": "the stagnation rule ended the episode" if stag else
         "the stagnation rule did not end it"},
    ]
    known = {"utility_leak", "accepted_below_batna", "sycophancy"}
    for name, value in fl.items():
        if name not in known:
            who = _true_parties(value)
            out.append({"name": str(name), "raised": bool(who), "who": who,
                        "text": str(name).replace("_", " ")})
    return out


def ending(row: EpisodeRow) -> str:
    """Who ended the episode and why, as one sentence."""
    s = row.summary or {}
    if row.status != "done":
        return f"Not finished ({row.status})." if row.status != "failed" else \
            "The episode failed before it ended (see the error below)."
    reason, who = s.get("reason"), s.get("who")
    rec = s.get("record") if isinstance(s.get("record"), Mapping) else {}
    if row.outcome == "agreement":
        proposer = (rec or {}).get("proposer")
        by = (rec or {}).get("accepted_by") or []
        rnd = (rec or {}).get("round") or s.get("rounds")
        if proposer:
            acc = ", ".join(str(b) for b in by) or "the others"
            return f"{acc} accepted {proposer}'s offer in round {rnd}."
        return f"Agreement reached in round {rnd}." if rnd else "Agreement reached."
    words = REASON_WORDS.get(str(reason), str(reason).replace("_", " ") if reason else "")
    if who and reason in ("walk", "stagnation"):
        return f"{who} {words}."
    if who:
        return f"Ended by {who}: {words}." if words else f"Ended by {who}."
    return f"Ended because {words}." if words else "Ended."


def cost(row: EpisodeRow) -> dict[str, Any]:
    """Tokens and money spent on model calls (summed over roles) and wall time."""
    usage = row.usage if isinstance(row.usage, Mapping) else (row.summary or {}).get("usage")
    tokens = 0
    dollars = 0.0
    priced = False
    for u in (usage or {}).values():
        if not isinstance(u, Mapping):
            continue
        for k in ("prompt_tokens", "completion_tokens"):
            if isinstance(u.get(k), (int, float)):
                tokens += int(u[k])
        for k in ("cost", "cost_usd"):
            if isinstance(u.get(k), (int, float)):
                dollars += float(u[k])
                priced = True
    return {"tokens": tokens or None, "cost": dollars if priced else None,
            "wall_time": row.wall_time}


def terms(row: EpisodeRow) -> dict[str, Any] | None:
    """The agreed terms (issue -> value), or the domain's outcome record when it has no
    agreement field (e.g. a game's actions), or ``None``."""
    s = row.summary or {}
    rec = s.get("record") if isinstance(s.get("record"), Mapping) else {}
    for key in ("agreement", "allocation", "shares", "actions", "decision"):
        val = (rec or {}).get(key)
        if isinstance(val, Mapping) and val:
            return dict(val)
    return None


def verdict(row: EpisodeRow) -> str | None:
    """The domain's own sentence on how the episode ended
    (:meth:`~accord.domains.base.Domain.outcome_text`), or ``None``."""
    from accord.domains.base import get_domain

    if row.summary is None or not isinstance(row.spec.get("domain"), str):
        return None
    try:
        text = get_domain(row.spec["domain"]).outcome_text(
            {**row.summary, "metrics": row.metrics or {}})
    except Exception:  # a plug-in's text, or a domain not installed here
        return None
    return None if not text else str(text)


def card(row: EpisodeRow) -> dict[str, Any]:
    """The summary card at the top of an episode page."""
    s = row.summary or {}
    said = ending(row)
    own = verdict(row)
    if own and said in ("Ended.", "Agreement reached."):
        said, own = own, None
    key = str(row.outcome or row.status)
    return {"outcome": OUTCOME_WORDS.get(key, key.replace("_", " ")),
            "outcome_key": row.outcome or row.status, "terms": terms(row),
            "utilities": utilities(row), "ending": said, "verdict": own,
            "rounds": s.get("rounds"),
            "detail": s.get("detail"), "cost": cost(row),
            "optimality": optimality(row)}


def decisions(row: EpisodeRow, approval: Mapping[str, Any] | None) -> list[str]:
    """Who decided what so far, in order, as sentences (offer, acceptance, approval)."""
    s = row.summary or {}
    rec = s.get("record") if isinstance(s.get("record"), Mapping) else {}
    out: list[str] = []
    rec = rec or {}
    if rec.get("proposer"):
        out.append(f"{rec['proposer']} put these terms on the table in round "
                   f"{rec.get('round')}.")
    for p in rec.get("accepted_by") or []:
        out.append(f"{p} accepted them.")
    if approval:
        state = approval.get("state")
        if state == "pending":
            out.append("The agreement awaits a person's approval (nothing is binding yet).")
        else:
            by = f" ({approval.get('decided_by')})" if approval.get("decided_by") else ""
            out.append(f"A reviewer{by} {state} it.")
    return out


def deal_audit(row: EpisodeRow, approval: Mapping[str, Any] | None) -> dict[str, Any]:
    """The audit beside the Approve/Reject buttons."""
    c = card(row)
    return {"terms": c["terms"], "utilities": c["utilities"], "optimality": c["optimality"],
            "flags": flags(row), "decisions": decisions(row, approval)}


def words(value: Any) -> str:
    """A record value in words: mappings as ``key value, ...``, numbers rounded."""
    from accord.serve.views import num

    if isinstance(value, Mapping):
        return ", ".join(f"{k} {words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(words(v) for v in value) or "none"
    return num(value)


def record_sections(row: EpisodeRow) -> list[dict[str, Any]]:
    """The record as labelled sections (title, rows of label/text) instead of a flat key
    dump: how it ended, the terms, each party, the rule settings, anything else."""
    s = row.summary or {}
    rec = dict(s.get("record") or {}) if isinstance(s.get("record"), Mapping) else {}
    sections: list[dict[str, Any]] = []
    key = str(row.outcome or row.status)
    ended = [("outcome", OUTCOME_WORDS.get(key, key.replace("_", " "))),
             ("how it ended", ending(row))]
    if s.get("rounds") is not None:
        ended.append(("rounds played", str(s["rounds"])))
    if s.get("detail"):
        ended.append(("detail", str(s["detail"])))
    sections.append({"title": "How it ended", "rows": ended})
    t = terms(row)
    if t:
        sections.append({"title": "Terms" if row.outcome == "agreement" else "Outcome",
                         "rows": [(str(k), words(v)) for k, v in t.items()]})
    last = rec.get("last_offers")
    if isinstance(last, Mapping) and last:
        sections.append({"title": "Last offers on the table", "rows": [
            (str(p), words(pkg)) for p, pkg in last.items()]})
    parties = []
    below = rec.get("accepted_below_batna") or {}
    for u in utilities(row):
        bits = []
        if u["utility"] is not None:
            bits.append(f"utility {words(u['utility'])}")
        if u["batna"] is not None:
            bits.append(f"BATNA {words(u['batna'])}")
        if u["margin"] is not None:
            bits.append(f"margin {u['margin']:+.2f}")
        if isinstance(below, Mapping) and below.get(u["party"]):
            bits.append("accepted below its BATNA")
        label = u["party"] + (f" ({u['agent']})" if u["agent"] else "")
        parties.append((label, ", ".join(bits) or "-"))
    if parties:
        sections.append({"title": "Parties", "rows": parties})
    stag = rec.get("stagnation")
    if isinstance(stag, Mapping):
        rounds = stag.get("rounds")
        text = ("off" if not rounds else f"ends the episode after {rounds} rounds without a "
                "concession") + (f" ({stag['why']})" if stag.get("why") else "")
        sections.append({"title": "Rules", "rows": [("stagnation rule", text)]})
    shown = {"type", "agreement", "parties", "round", "proposer", "accepted_by", "utilities",
             "batna", "accepted_below_batna", "stagnation", "last_offers", "reason", "who",
             "detail", "allocation", "shares", "actions", "decision"}
    table = proposal_table(rec)
    if table is not None:
        shown.add("proposals")
    rest = [(str(k).replace("_", " "), words(v)) for k, v in rec.items() if k not in shown]
    if rest:
        sections.append({"title": "More of the record", "rows": rest})
    if table is not None:
        sections.append({"title": "Proposals", "rows": [], "table": table})
    return sections


def proposal_table(rec: Mapping[str, Any]) -> dict[str, Any] | None:
    """A task exchange's proposals as a table (``head``, ``rows``): round, proposer, each
    agent's share of the composite task list (its mask) and the verdict (valid, invalid
    with the protocol's reason, accepted); ``None`` when the record has none."""
    props = rec.get("proposals")
    if not isinstance(props, list) or not props or not all(
            isinstance(p, Mapping) and isinstance(p.get("masks"), Mapping) for p in props):
        return None
    agents = list(dict.fromkeys(str(a) for p in props for a in p["masks"]))
    accepted = rec.get("accepted_turn")
    rows = []
    for p in props:
        if p.get("valid") is False:
            why = p.get("pattern")
            verdict = "invalid" + (f": {str(why).replace('_', ' ')}" if why else "")
        else:
            verdict = "valid"
        if accepted is not None and p.get("turn") == accepted and p.get("valid") is not False:
            verdict += ", accepted"
        rows.append([words(p.get("turn")), str(p.get("proposer", "-")),
                     *(str(p["masks"].get(a, "-")) for a in agents), verdict])
    return {"head": ["round", "proposer", *(f"{a}'s tasks" for a in agents), "verdict"],
            "rows": rows, "masks": len(agents)}


def metric_rows(row: EpisodeRow) -> list[tuple[str, Any]]:
    """The metrics as (label, value) rows: the booleans that only restate how the episode
    ended (``walk``, ``stagnation``, ``bound_hit``) are left out (the ending sentence says
    it: a stagnation no-deal is a walk by the party the rule let go), per-party ones are
    labelled with the party."""
    out: list[tuple[str, Any]] = []
    for k, v in (row.metrics or {}).items():
        if k in ENDING_METRICS:
            continue
        if k.startswith("u_"):
            label = f"utility of {k[2:]}"
        elif k.startswith("gain_"):
            label = f"gain of {k[5:]} over its BATNA"
        else:
            label = METRIC_LABELS.get(k, k.replace("_", " "))
        out.append((label, v))
    return out


def party_metric_columns(rows: Sequence[EpisodeRow]) -> list[str]:
    """The ``u_<party>`` metric keys of these rows in first-seen order (the per-party
    utility columns of a run table)."""
    seen: dict[str, None] = {}
    for r in rows:
        for k in (r.metrics or {}):
            if k.startswith("u_"):
                seen.setdefault(k, None)
    return list(seen)


__all__ = ["card", "deal_audit", "decisions", "ending", "flags", "metric_rows", "optimality",
           "parties_of", "party_metric_columns", "party_utilities", "proposal_table",
           "record_sections", "record_utilities", "terms", "utilities", "verdict", "words"]
