"""The utility-plane plot of a two-party bargaining episode, as inline SVG.

The outcome cloud, the Pareto frontier, the Nash point (from :mod:`accord.core` through
:func:`accord.domains.bargaining.analyze`), each party's BATNA as a line, each party's
offers over time (numbered, joined in order) and the agreement. Only built-in scenarios
are plotted: a scenario path stored in an episode's spec is never opened from the web
app. Text is escaped (:func:`markupsafe.escape`); the SVG has no script and no link.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

W, H, PAD = 440, 380, 44
#: outcomes drawn in the cloud at most (a regular subsample beyond)
MAX_CLOUD = 4000
COLOURS = ("#1f6fb2", "#c2521b")


@lru_cache(maxsize=32)
def _scenario_data(name: str) -> dict[str, Any] | None:
    from accord.domains.bargaining import analyze, resolve_scenario
    from accord.domains.bargaining.catalog import _builtin_names

    if name not in _builtin_names():
        return None
    sc = resolve_scenario(name)
    if len(sc.party_names) != 2:
        return None
    u = sc.utility_matrix
    step = max(1, len(u) // MAX_CLOUD)
    return {"scenario": sc, "cloud": [(float(a), float(b)) for a, b in u[::step]],
            "analysis": analyze(sc)}


def offers(events: list[Mapping[str, Any]]) -> list[tuple[int, str, dict[str, Any]]]:
    """``(round, party, package)`` of every offer (plain or as a counter), in order."""
    out = []
    for ev in events:
        if ev.get("kind") != "move":
            continue
        m = ev.get("move") or {}
        pkg = None
        if m.get("kind") == "offer":
            pkg = m.get("package")
        elif m.get("kind") == "reject" and m.get("counter"):
            pkg = (m["counter"] or {}).get("package")
        if pkg:
            out.append((int(ev.get("round") or 0), str(ev.get("party")), dict(pkg)))
    return out


def utility_plane(spec: Mapping[str, Any], summary: Mapping[str, Any] | None,
                  events: list[Mapping[str, Any]]) -> Markup | None:
    """The SVG (or ``None`` when not a two-party built-in bargaining scenario)."""
    if spec.get("domain") != "bargaining":
        return None
    data = _scenario_data(str(spec.get("scenario")))
    if data is None:
        return None
    sc = data["scenario"]
    a, b = sc.party_names
    an = data["analysis"]

    def xy(ua: float, ub: float) -> tuple[float, float]:
        return (PAD + ua * (W - PAD - 12), H - PAD - ub * (H - PAD - 12))

    parts: list[str] = []
    add = parts.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" class="plane" viewBox="0 0 {W} {H}" '
        f'width="{W}" height="{H}" role="img">')
    add(f"<title>Utility plane: {escape(a)} (x) against {escape(b)} (y)</title>")
    x0, y0 = xy(0, 0)
    x1, y1 = xy(1, 1)
    add(f'<rect x="{x0:.1f}" y="{y1:.1f}" width="{x1 - x0:.1f}" height="{y0 - y1:.1f}" '
        'fill="#fafafa" stroke="#999"/>')
    for t in (0, 0.5, 1):
        tx, _ = xy(t, 0)
        _, ty = xy(0, t)
        add(f'<text x="{tx:.1f}" y="{y0 + 14:.1f}" font-size="10" '
            f'text-anchor="middle">{t:g}</text>')
        add(f'<text x="{x0 - 6:.1f}" y="{ty + 3:.1f}" font-size="10" '
            f'text-anchor="end">{t:g}</text>')
    add(f'<text x="{(x0 + x1) / 2:.1f}" y="{H - 8}" font-size="12" text-anchor="middle">'
        f"utility of {escape(a)}</text>")
    add(f'<text x="12" y="{(y0 + y1) / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {(y0 + y1) / 2:.1f})">utility of {escape(b)}</text>')
    add('<g class="cloud" fill="#bbb">')
    for ua, ub in data["cloud"]:
        px, py = xy(ua, ub)
        add(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="1.6"/>')
    add("</g>")
    front = sorted((p["utilities"][a], p["utilities"][b]) for p in an["pareto"])
    if front:
        pts = " ".join(f"{xy(ua, ub)[0]:.1f},{xy(ua, ub)[1]:.1f}" for ua, ub in front)
        add(f'<polyline class="pareto" points="{pts}" fill="none" stroke="#2a9d3a" '
            'stroke-width="1.5"/>')
    da, db = an["batna"][a], an["batna"][b]
    bx, _ = xy(da, 0)
    _, by = xy(0, db)
    add(f'<line class="batna" x1="{bx:.1f}" y1="{y0:.1f}" x2="{bx:.1f}" y2="{y1:.1f}" '
        f'stroke="{COLOURS[0]}" stroke-dasharray="4 3"/>')
    add(f'<line class="batna" x1="{x0:.1f}" y1="{by:.1f}" x2="{x1:.1f}" y2="{by:.1f}" '
        f'stroke="{COLOURS[1]}" stroke-dasharray="4 3"/>')
    for i, party in enumerate((a, b)):
        pts_xy = []
        for rnd, who, pkg in offers(events):
            if who != party:
                continue
            try:
                ua = float(sc.party(a).utility(pkg))
                ub = float(sc.party(b).utility(pkg))
            except (KeyError, ValueError, TypeError, IndexError):
                continue
            pts_xy.append((rnd, *xy(ua, ub)))
        if not pts_xy:
            continue
        line = " ".join(f"{px:.1f},{py:.1f}" for _, px, py in pts_xy)
        add(f'<g class="offers" data-party="{escape(party)}" fill="{COLOURS[i]}">')
        add(f'<polyline points="{line}" fill="none" stroke="{COLOURS[i]}" '
            'stroke-opacity="0.6"/>')
        for rnd, px, py in pts_xy:
            add(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.2"><title>{escape(party)} '
                f"round {rnd}</title></circle>")
        add("</g>")
    nash = an.get("nash")
    if nash:
        nx, ny = xy(nash["utilities"][a], nash["utilities"][b])
        add(f'<rect class="nash" x="{nx - 4:.1f}" y="{ny - 4:.1f}" width="8" height="8" '
            'fill="none" stroke="#000" stroke-width="1.5"><title>Nash point</title></rect>')
    if summary and summary.get("status") == "agreement":
        rec = summary.get("record") or {}
        ut = rec.get("utilities") or {}
        if a in ut and b in ut:
            gx, gy = xy(float(ut[a]), float(ut[b]))
            add(f'<path class="agreement" d="M{gx:.1f},{gy - 7:.1f} L{gx + 2:.1f},'
                f"{gy - 2:.1f} L{gx + 7:.1f},{gy - 2:.1f} L{gx + 3:.1f},{gy + 2:.1f} "
                f"L{gx + 5:.1f},{gy + 7:.1f} L{gx:.1f},{gy + 4:.1f} L{gx - 5:.1f},"
                f"{gy + 7:.1f} L{gx - 3:.1f},{gy + 2:.1f} L{gx - 7:.1f},{gy - 2:.1f} "
                f'L{gx - 2:.1f},{gy - 2:.1f} Z" fill="#e0b000" stroke="#000">'
                "<title>agreement</title></path>")
    ly = y1 + 12
    for i, (label, colour) in enumerate(((f"{a} offers", COLOURS[0]),
                                         (f"{b} offers", COLOURS[1]),
                                         ("Pareto frontier", "#2a9d3a"))):
        add(f'<text x="{x1 - 4:.1f}" y="{ly + 13 * i:.1f}" font-size="10" '
            f'text-anchor="end" fill="{colour}">{escape(label)}</text>')
    add("</svg>")
    return Markup("".join(parts))


#: task-exchange figures already drawn: episode key -> markup (PNG rendering is slow)
_FIGURES: dict[str, Markup] = {}
MAX_FIGURES = 256


def task_exchange_figure(key: str, spec: Mapping[str, Any],
                         summary: Mapping[str, Any] | None) -> Markup | None:
    """Figure 2 of the task-exchange study for one episode (its own renderer, as a PNG
    data URI), or ``None``; built-in scenarios only, like :func:`utility_plane`."""
    import base64

    if spec.get("domain") != "task-exchange" or not summary:
        return None
    record = summary.get("record")
    if not isinstance(record, Mapping) or not record.get("proposals"):
        return None
    if key in _FIGURES:
        return _FIGURES[key]
    from accord.domains.task_exchange import DOMAIN, get_scenario
    from accord.domains.task_exchange.plot import render_trajectories_png

    name = str(spec.get("scenario"))
    if name not in DOMAIN.scenarios():
        return None
    try:
        png = render_trajectories_png(get_scenario(name), [record], None, dpi=90)
    except (KeyError, ValueError, TypeError, IndexError):
        return None
    out = Markup('<img class="figure" alt="proposal trajectory in the utility plane '
                 '(Figure 2 of the task-exchange study)" src="data:image/png;base64,{}">'
                 ).format(base64.b64encode(png).decode("ascii"))
    if len(_FIGURES) >= MAX_FIGURES:
        _FIGURES.pop(next(iter(_FIGURES)))
    _FIGURES[key] = out
    return out


__all__ = ["offers", "task_exchange_figure", "utility_plane"]
