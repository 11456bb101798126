"""A three-or-more-party debrief as a parallel-coordinates chart (server-rendered SVG, no
script, no link).

Drawn from :func:`accord.play.debrief_multi.multi_debrief`'s ``parallel`` data: one
vertical axis per party (the person's first, utility 0 at the bottom, 1 at the top), each
party's BATNA as a blue tick on its axis, the Pareto-optimal agreements as faint green
lines, and this episode (gold, thick), the Nash point (black, dashed) and the best
agreement for the person that everyone would take (green) as lines across the axes.
Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

H, PAD_X, PAD_TOP, PAD_BOTTOM, GAP = 320, 80, 22, 46, 170

STYLE = {"episode": ('stroke="#e0b000" stroke-width="4"', "#9a7a00"),
         "nash": ('stroke="#000" stroke-width="1.8" stroke-dasharray="6 3"', "#000"),
         "best": ('stroke="#2a9d3a" stroke-width="2"', "#2a9d3a")}
"""How each line is drawn, and the colour of its label in the legend."""


def _span(lines: Sequence[Sequence[float]]) -> tuple[float, float]:
    vals = [v for line in lines for v in line]
    lo, hi = min([0.0, *vals]), max([1.0, *vals])
    return lo, hi


def parallel_svg(data: Mapping[str, Any], svg_id: str = "debrief-parallel") -> Markup:
    """The SVG markup of a debrief's ``parallel`` data."""
    axes = [str(a) for a in data.get("axes") or []]
    batna = [float(b) for b in data.get("batna") or []]
    lines = list(data.get("lines") or [])
    front = [list(map(float, f)) for f in data.get("frontier") or []]
    lo, hi = _span([batna, *front, *[ln["values"] for ln in lines]])
    w = 2 * PAD_X + GAP * max(1, len(axes) - 1) + 150  # the legend on the right

    def x(i: int) -> float:
        return PAD_X + GAP * i

    def y(v: float) -> float:
        return PAD_TOP + (hi - v) / (hi - lo) * (H - PAD_TOP - PAD_BOTTOM)

    def path(values: Sequence[float]) -> str:
        return " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))

    out: list[str] = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" class="parallel" id="{escape(svg_id)}" '
        f'viewBox="0 0 {w} {H}" width="{w}" height="{H}" role="img">')
    add("<title>every party's utility: this episode, the Nash point and the best "
        "agreement for you, one axis per party</title>")
    add('<g class="frontier" stroke="#2a9d3a" stroke-opacity="0.18" fill="none">'
        "<title>Pareto-optimal agreements</title>")
    for f in front:
        add(f'<polyline points="{path(f)}"/>')
    add("</g>")
    for i, name in enumerate(axes):
        add(f'<line class="axis" x1="{x(i):.1f}" y1="{y(hi):.1f}" x2="{x(i):.1f}" '
            f'y2="{y(lo):.1f}" stroke="#999"/>')
        who = f"you ({escape(name)})" if i == 0 else escape(name)
        add(f'<text x="{x(i):.1f}" y="{H - 26}" font-size="12" text-anchor="middle">'
            f"{who}</text>")
        for t in (lo, (lo + hi) / 2, hi):
            add(f'<text x="{x(i) - 5:.1f}" y="{y(t) + 3:.1f}" font-size="9" '
                f'text-anchor="end" fill="#666">{t:.2g}</text>')
        if i < len(batna):
            add(f'<line class="batna" x1="{x(i) - 9:.1f}" y1="{y(batna[i]):.1f}" '
                f'x2="{x(i) + 9:.1f}" y2="{y(batna[i]):.1f}" stroke="#1f6fb2" '
                f'stroke-width="3"><title>{escape(name)}\'s BATNA {batna[i]:.3g}</title>'
                "</line>")
    for ln in lines:
        key = str(ln.get("key"))
        style = STYLE.get(key, ('stroke="#555" stroke-width="1.5"', "#555"))[0]
        add(f'<polyline class="line-{escape(key)}" points="{path(ln["values"])}" '
            f'fill="none" {style}><title>{escape(ln.get("label"))}</title></polyline>')
        for i, v in enumerate(ln["values"]):
            add(f'<circle class="dot-{escape(key)}" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" '
                f'fill="#fff" {style}/>')
    lx = x(len(axes) - 1) + 30
    legend = [(str(ln.get("label")), STYLE.get(str(ln.get("key")), ("", "#555"))[1])
              for ln in lines] + [("BATNA (blue tick)", "#1f6fb2"),
                                   ("Pareto-optimal (faint)", "#2a9d3a")]
    for i, (text, colour) in enumerate(legend):
        add(f'<text x="{lx:.1f}" y="{PAD_TOP + 10 + 15 * i:.1f}" font-size="11" '
            f'fill="{colour}">{escape(text)}</text>')
    add("</svg>")
    return Markup("".join(out))


__all__ = ["parallel_svg"]
