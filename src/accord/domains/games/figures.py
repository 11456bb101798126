"""The data behind seed 003's section-6 figures (Figures 5-12) from stored games episodes.

Section 6 shows its results only as charts: the distribution of the joint action (Figures
5-11) and the split rate in Golden Balls (Figure 12). :func:`section6_figures` recovers each
chart's numbers from the episodes of a store (the shipped ``games_section6_*`` specs fill
one store each, or one store together); :func:`format_figures` prints one sub-table per
figure and game. An episode belongs to a figure by what it varies:

* Figures 5 and 6: the Prisoner's Dilemma / Stag Hunt and their NE-invariant variations
  (``-v1``, ``-v2``), no negotiation, no personality or prompt (shown when a variation is
  in the store); actions by position (``a1`` = action 1), as the paper labels them;
* Figure 7: the personality option of the agents (``personality=witty``), no negotiation;
  the line-up without one is the ``none`` baseline of the same game;
* Figure 8: the Prisoner's Dilemma, Stag Hunt, Battle of the Sexes and Rock-Paper-Scissors
  at 0-3 rounds of negotiation, plain prompts (shown when two or more round counts are);
* Figures 9 and 10: the engineered prompts (``prompt=1..6``; ``none`` = the baseline) at
  1-3 rounds, in the Prisoner's Dilemma / Stag Hunt;
* Figure 11: the Battle of the Sexes with ``params.first_speaker`` set;
* Figure 12: Golden Balls: the share of ``split`` over all decisions per line-up and jackpot.

Pure functions over the episode dicts of ``accord results`` (``spec``, ``labels``,
``status``, ``metrics``, ``summary.record``); the captions are data
(``data/section6_figures.yaml``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from accord.domains.seats import agent_model

VARIANTS: dict[str, str] = {"": "classic", "-v1": "variation 1", "-v2": "variation 2"}
ROUNDS_GAMES = ("prisoners-dilemma", "stag-hunt", "battle-of-the-sexes", "rock-paper-scissors")
GAME_NAMES = {"prisoners-dilemma": "Prisoner's Dilemma", "stag-hunt": "Stag Hunt",
              "battle-of-the-sexes": "Battle of the Sexes",
              "rock-paper-scissors": "Rock-Paper-Scissors", "golden-balls": "Golden Balls"}
#: figure -> the factors of a row besides the game and the model, in column order
FACTORS: dict[str, tuple[str, ...]] = {
    "5": ("variant",), "6": ("variant",), "7": ("personality",), "8": ("rounds",),
    "9": ("rounds", "prompt"), "10": ("rounds", "prompt"), "11": ("rounds", "first_speaker"),
    "12": ("lineup", "rounds", "jackpot")}
NONE = "none"
DASH = "—"


@functools.lru_cache(maxsize=1)
def figure_info() -> dict[str, dict[str, Any]]:
    """Caption, section, seed line and what it plots, per figure (``"5"`` ... ``"12"``)."""
    import yaml

    text = (resources.files("accord.domains.games") / "data" / "section6_figures.yaml"
            ).read_text(encoding="utf-8")
    return {str(f["figure"]): dict(f) for f in yaml.safe_load(text)["figures"]}


@dataclass(frozen=True)
class Point:
    """One finished games episode, reduced to what the figures group by."""

    game: str
    base: str
    variant: str
    rounds: int
    personality: str
    prompt: str
    first_speaker: str | None
    jackpot: Any
    lineup: str
    model: str
    record: Mapping[str, Any]
    metrics: Mapping[str, Any]


def _option(parts: Sequence[tuple[str, str, dict[str, Any]]], key: str) -> str:
    values = {str(o.get(key)) for _, _, o in parts if o.get(key) is not None}
    missing = any(o.get(key) is None for _, _, o in parts)
    if not values:
        return NONE
    return values.pop() if len(values) == 1 and not missing else "mixed"


def points(episodes: Iterable[Mapping[str, Any]]) -> list[Point]:
    """The finished games episodes with a recorded outcome, each as a :class:`Point`."""
    out = []
    for ep in episodes:
        spec = ep.get("spec") or {}
        if spec.get("domain") != "games" or ep.get("status") != "done":
            continue
        record = (ep.get("summary") or {}).get("record") or {}
        if not record.get("completed") or not record.get("profile"):
            continue
        game = str(spec.get("scenario"))
        base, variant = game, ""
        for suffix in ("-v1", "-v2"):
            if game.endswith(suffix):
                base, variant = game.removesuffix(suffix), suffix
        agents = [str(a) for a in spec.get("agents") or []]
        parts = [agent_model(a) for a in agents]
        models = list(dict.fromkeys(m for _, m, _ in parts))
        params = spec.get("params") or {}
        fs = params.get("first_speaker")
        out.append(Point(game, base, VARIANTS[variant], int(params.get("negotiation_rounds", 0)),
                         _option(parts, "personality"), _option(parts, "prompt"),
                         None if fs is None else str(fs), params.get("jackpot"),
                         str((ep.get("labels") or {}).get("lineup") or " vs ".join(agents)),
                         models[0] if len(models) == 1 else " vs ".join(models[:2]),
                         record, ep.get("metrics") or {}))
    return out


def _plain(p: Point) -> bool:
    return p.personality == NONE and p.prompt == NONE


def members(figure: str, pts: Sequence[Point]) -> list[Point]:
    """The points of ``figure`` (empty when the store holds nothing the figure varies)."""
    if figure in ("5", "6"):
        base = "prisoners-dilemma" if figure == "5" else "stag-hunt"
        sel = [p for p in pts if p.base == base and _plain(p) and p.rounds == 0
               and p.first_speaker is None]
        return sel if any(p.variant != "classic" for p in sel) else []
    if figure == "7":
        varied = {p.game for p in pts if p.personality not in (NONE, "mixed")
                  and p.game != "golden-balls" and p.rounds == 0 and p.prompt == NONE}
        return [p for p in pts if p.game in varied and p.rounds == 0 and p.prompt == NONE
                and p.personality != "mixed" and p.first_speaker is None]
    if figure == "8":
        sel = [p for p in pts if p.game in ROUNDS_GAMES and _plain(p) and p.rounds <= 3
               and p.first_speaker is None]
        return sel if len({p.rounds for p in sel}) > 1 else []
    if figure in ("9", "10"):
        game = "prisoners-dilemma" if figure == "9" else "stag-hunt"
        sel = [p for p in pts if p.game == game and p.personality == NONE
               and p.prompt != "mixed" and 1 <= p.rounds <= 3 and p.first_speaker is None]
        return sel if any(p.prompt != NONE for p in sel) else []
    if figure == "11":
        return [p for p in pts if p.game == "battle-of-the-sexes" and _plain(p)
                and p.first_speaker is not None and p.rounds >= 1]
    if figure == "12":
        return [p for p in pts if p.game == "golden-balls"]
    raise ValueError(f"no section-6 figure {figure!r}; figures: {', '.join(FACTORS)}")


def _labels(record: Mapping[str, Any], positional: bool) -> tuple[list[str], dict[str, str]]:
    """Every joint action of the game in order, and a profile's key -> its label."""
    actions = [list(a) for a in (record.get("spec") or {}).get("actions") or []]
    names = [[f"a{i + 1}" for i in range(len(a))] if positional else a for a in actions]
    profiles = list(itertools.product(*actions))
    shown = list(itertools.product(*names))
    return ([", ".join(s) for s in shown],
            {", ".join(p): ", ".join(s) for p, s in zip(profiles, shown, strict=True)})


def _key(p: Point, factor: str) -> Any:
    return {"variant": p.variant, "personality": p.personality, "rounds": p.rounds,
            "prompt": p.prompt, "first_speaker": p.first_speaker, "lineup": p.lineup,
            "jackpot": p.jackpot}[factor]


def _sort(value: Any) -> tuple[int, Any]:
    """Baselines first, numbers by value, then text."""
    if value == NONE or value == "classic":
        return (0, 0)
    try:
        return (1, float(value))
    except (TypeError, ValueError):
        return (2, str(value))


def _rate(values: Sequence[Any]) -> float | None:
    got = [bool(v) for v in values if v is not None]
    return sum(got) / len(got) if got else None


def _distribution_rows(figure: str, sel: Sequence[Point]) -> list[dict[str, Any]]:
    factors = FACTORS[figure]
    positional = figure in ("5", "6")
    games: dict[str, list[Point]] = {}
    for p in sel:
        games.setdefault(p.base if positional else p.game, []).append(p)
    out = []
    for game, gpts in games.items():
        groups: dict[tuple[Any, ...], list[Point]] = {}
        for p in gpts:
            groups.setdefault((*(_key(p, f) for f in factors), p.model), []).append(p)
        outcomes, _ = _labels(gpts[0].record, positional)
        rows = []
        for key in sorted(groups, key=lambda k: [_sort(v) for v in k]):
            ps = groups[key]
            counts = dict.fromkeys(outcomes, 0)
            for p in ps:
                label = _labels(p.record, positional)[1].get(", ".join(p.record["profile"]))
                if label is not None:
                    counts[label] = counts.get(label, 0) + 1
            rows.append({**dict(zip(factors, key[:-1], strict=True)), "model": key[-1],
                         "n": len(ps), "ne": _rate([p.metrics.get("nash") for p in ps]),
                         "pone": _rate([p.metrics.get("pareto_optimal_nash") for p in ps]),
                         "outcomes": {k: v / len(ps) for k, v in counts.items()}})
        out.append({"game": game, "name": GAME_NAMES.get(game, game), "outcomes": outcomes,
                    "rows": rows})
    return out


def _split_rows(sel: Sequence[Point]) -> list[dict[str, Any]]:
    """Per line-up, model and number of negotiation rounds (the seed's figure has none;
    talk first and it is another row): the split share over all jackpots and per jackpot."""
    groups: dict[tuple[str, str, int], dict[Any, list[str]]] = {}
    for p in sel:
        acts = [str(a) for a in (p.record.get("actions") or {}).values()]
        groups.setdefault((p.lineup, p.model, p.rounds), {}).setdefault(
            p.jackpot, []).extend(acts)
    rows = []
    for (lineup, model, rounds), by_jackpot in sorted(groups.items()):
        every = [a for acts in by_jackpot.values() for a in acts]
        cells = [{"jackpot": j, "decisions": len(acts),
                  "split_rate": sum(a == "split" for a in acts) / len(acts)}
                 for j, acts in sorted(by_jackpot.items(), key=lambda kv: _sort(kv[0]))]
        rows.append({"lineup": lineup, "model": model, "rounds": rounds,
                     "decisions": len(every),
                     "split_rate": sum(a == "split" for a in every) / len(every),
                     "jackpots": cells})
    return [{"game": "golden-balls", "name": GAME_NAMES["golden-balls"], "rows": rows}]


def section6_figures(episodes: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The data of every section-6 figure the store has episodes for, JSON-ready: per
    figure its number, caption, what it plots, section and seed line, and per game its rows
    (factors, model, episodes ``n``, NE and PO-NE rates and the share of each joint action;
    Figure 12: split rate per line-up over all jackpots and per jackpot)."""
    pts = points(episodes)
    out = []
    for figure, info in figure_info().items():
        sel = members(figure, pts)
        if not sel:
            continue
        games = _split_rows(sel) if figure == "12" else _distribution_rows(figure, sel)
        out.append({"figure": figure, "caption": info["caption"], "plots": info["plots"],
                    "section": info["section"], "line": info["line"],
                    "factors": list(FACTORS[figure]), "episodes": len(sel), "games": games})
    return out


def _f(x: float | None) -> str:
    return DASH if x is None else f"{x:.2f}"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], left: int) -> list[str]:
    return ["| " + " | ".join(head) + " |",
            "|" + "---|" * left + "---:|" * (len(head) - left),
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def format_figures(figures: Sequence[Mapping[str, Any]]) -> str:
    """The figures' data as Markdown: a heading per figure (caption, what it plots, where),
    a sub-table per game; shares rounded to two places (``--json`` keeps full precision)."""
    out: list[str] = []
    for fig in figures:
        out += [f"Figure {fig['figure']}: {fig['caption']} (section {fig['section']}, seed "
                f"line {fig['line']}); plots {fig['plots']}.", ""]
        for g in fig["games"]:
            if fig["figure"] == "12":
                out += ["Golden Balls: split rate by jackpot", ""]
                jackpots = list(dict.fromkeys(c["jackpot"] for r in g["rows"]
                                              for c in r["jackpots"]))
                body = []
                for r in g["rows"]:
                    by = {c["jackpot"]: c["split_rate"] for c in r["jackpots"]}
                    body.append([r["lineup"], r["model"], str(r["rounds"]),
                                 str(r["decisions"]), _f(r["split_rate"]),
                                 *(_f(by.get(j)) for j in jackpots)])
                out += _table(["Line-up", "Model", "Rounds", "Decisions", "Split (all)",
                               *(f"jackpot {j}" for j in jackpots)], body, 2)
                continue
            factors = fig["factors"]
            out += [f"{g['name']}: share of each joint action", ""]
            body = [[*(str(r[f]) for f in factors), r["model"], str(r["n"]), _f(r["ne"]),
                     _f(r["pone"]), *(_f(r["outcomes"][o]) for o in g["outcomes"])]
                    for r in g["rows"]]
            out += _table([*(f.replace("_", " ").capitalize() for f in factors), "Model", "n",
                           "NE", "PO-NE", *(f"({o})" for o in g["outcomes"])], body,
                          len(factors) + 1)
    return "\n".join(out) + ("\n" if out else "")


__all__ = ["FACTORS", "Point", "figure_info", "format_figures", "members", "points",
           "section6_figures"]
