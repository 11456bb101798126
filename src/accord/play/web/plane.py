"""The debrief's utility plane as a small server-rendered SVG (no script, no link).

Drawn from :func:`accord.play.debrief.debrief`'s ``plane`` data: every outcome (grey),
the Pareto frontier (green line), the Nash point or a game's Nash equilibria (squares),
the disagreement point (BATNAs, dashed lines), the best outcome that was better for one
side and worse for neither (a ring) and where the episode ended (a star). The person is
on the x axis, the other side on the y axis. Axes run over the values' own range (a
utility in [0, 1], points or payoffs as they are). Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

W, H, PAD = 420, 360, 46


def _span(vals: Sequence[float], unit: str) -> tuple[float, float]:
    lo, hi = min(vals, default=0.0), max(vals, default=1.0)
    if unit == "utility":
        lo, hi = min(lo, 0.0), max(hi, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    return lo, hi


def _tick(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if not float(x).is_integer() else str(int(x))


def plane_svg(plane: Mapping[str, Any], svg_id: str = "debrief-plane", width: int = W,
              height: int = H) -> Markup:
    """The SVG markup of a debrief's ``plane`` (``svg_id`` names it on the page; a
    three-party debrief draws several). A plane whose ``frontier_dots`` is set draws its
    frontier as dots: the projection of a frontier of more than two parties is no curve."""
    pts = [tuple(p) for p in plane.get("points") or []]
    unit = str(plane.get("unit") or "utility")
    x_lo, x_hi = _span([p[0] for p in pts], unit)
    y_lo, y_hi = _span([p[1] for p in pts], unit)

    def xy(a: float, b: float) -> tuple[float, float]:
        return (PAD + (a - x_lo) / (x_hi - x_lo) * (W - PAD - 14),
                H - PAD - (b - y_lo) / (y_hi - y_lo) * (H - PAD - 14))

    you, other = escape(plane.get("you")), escape(plane.get("other"))
    out: list[str] = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" class="plane" id="{escape(svg_id)}" '
        f'viewBox="0 0 {W} {H}" width="{width}" height="{height}" role="img">')
    add(f"<title>{escape(unit)} plane: you ({you}, x) against {other} (y)</title>")
    x0, y0 = xy(x_lo, y_lo)
    x1, y1 = xy(x_hi, y_hi)
    add(f'<rect x="{x0:.1f}" y="{y1:.1f}" width="{x1 - x0:.1f}" height="{y0 - y1:.1f}" '
        'fill="#fafafa" stroke="#999"/>')
    for t in (0.0, 0.5, 1.0):
        xv, yv = x_lo + t * (x_hi - x_lo), y_lo + t * (y_hi - y_lo)
        tx, _ = xy(xv, y_lo)
        _, ty = xy(x_lo, yv)
        # outside the star's reach (8 px) of an outcome on the plane's edge or corner
        add(f'<text class="tick" x="{tx:.1f}" y="{y0 + 21:.1f}" font-size="10" '
            f'text-anchor="middle">{_tick(xv)}</text>')
        add(f'<text class="tick" x="{x0 - 11:.1f}" y="{ty + 3:.1f}" font-size="10" '
            f'text-anchor="end">{_tick(yv)}</text>')
    add(f'<text x="{(x0 + x1) / 2:.1f}" y="{H - 10}" font-size="12" text-anchor="middle">'
        f"your {escape(unit)} ({you})</text>")
    add(f'<text x="13" y="{(y0 + y1) / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 13 {(y0 + y1) / 2:.1f})">{other}\'s {escape(unit)}</text>')
    add('<g class="cloud" fill="#bbb">')
    for a, b in pts:
        px, py = xy(a, b)
        add(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="1.8"/>')
    add("</g>")
    front = plane.get("frontier") or []
    if front and plane.get("frontier_dots"):
        add('<g class="pareto" fill="#2a9d3a"><title>Pareto frontier (projected)</title>')
        for a, b in front:
            px, py = xy(a, b)
            add(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.6"/>')
        add("</g>")
    elif front:
        line = " ".join("{:.1f},{:.1f}".format(*xy(a, b)) for a, b in front)
        add(f'<polyline class="pareto" points="{line}" fill="none" stroke="#2a9d3a" '
            'stroke-width="1.6"><title>Pareto frontier</title></polyline>')
    d = plane.get("disagreement")
    if d:
        bx, by = xy(d[0], d[1])
        add(f'<line class="batna" x1="{bx:.1f}" y1="{y0:.1f}" x2="{bx:.1f}" y2="{y1:.1f}" '
            'stroke="#1f6fb2" stroke-dasharray="4 3"><title>your BATNA</title></line>')
        add(f'<line class="batna" x1="{x0:.1f}" y1="{by:.1f}" x2="{x1:.1f}" y2="{by:.1f}" '
            f'stroke="#c2521b" stroke-dasharray="4 3"><title>{other}\'s BATNA</title></line>')
    label = escape(plane.get("nash_label") or "Nash point")
    for a, b in plane.get("nash") or []:
        nx, ny = xy(a, b)
        add(f'<rect class="nash" x="{nx - 5:.1f}" y="{ny - 5:.1f}" width="10" height="10" '
            f'fill="none" stroke="#000" stroke-width="1.6"><title>{label}</title></rect>')
    better = plane.get("better")
    if better:
        gx, gy = xy(better[0], better[1])
        add(f'<circle class="better" cx="{gx:.1f}" cy="{gy:.1f}" r="7" fill="none" '
            'stroke="#2a9d3a" stroke-width="2"><title>better for one of you, worse for '
            'neither</title></circle>')
    at = plane.get("outcome")
    if at:
        gx, gy = xy(at[0], at[1])
        add(f'<path class="outcome" d="M{gx:.1f},{gy - 8:.1f} L{gx + 2.4:.1f},{gy - 2.4:.1f} '
            f"L{gx + 8:.1f},{gy - 2.4:.1f} L{gx + 3.4:.1f},{gy + 2:.1f} L{gx + 5:.1f},"
            f"{gy + 8:.1f} L{gx:.1f},{gy + 4.4:.1f} L{gx - 5:.1f},{gy + 8:.1f} "
            f"L{gx - 3.4:.1f},{gy + 2:.1f} L{gx - 8:.1f},{gy - 2.4:.1f} L{gx - 2.4:.1f},"
            f'{gy - 2.4:.1f} Z" fill="#e0b000" stroke="#000"><title>where this episode '
            "ended</title></path>")
    ly = y1 + 12
    for i, (text, colour) in enumerate((("Pareto frontier", "#2a9d3a"),
                                        (f"{label} (square)", "#000"),
                                        ("this episode (star)", "#9a7a00"))):
        add(f'<text x="{x1 - 4:.1f}" y="{ly + 13 * i:.1f}" font-size="10" '
            f'text-anchor="end" fill="{colour}">{escape(text)}</text>')
    add("</svg>")
    return Markup("".join(out))


__all__ = ["plane_svg"]
