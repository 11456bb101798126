"""The figures of the web app and the report: an episode's own figure (drawn by its
domain) and the run-level charts (bars, intervals, outcome shares) as inline SVG.

The episode figure is the transcript page's, drawn by the episode's own domain.

Each domain may draw one (:meth:`accord.domains.Domain.episode_figure`: bargaining its
utility plane, task exchange the study's Figure 2, a plug-in whatever it likes); the web
app asks the installed domain named in the stored spec and shows nothing when there is
none, the domain is not installed, or drawing fails.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

log = logging.getLogger(__name__)


def episode_figure(key: str, spec: Mapping[str, Any], summary: Mapping[str, Any] | None,
                   events: Sequence[Mapping[str, Any]]) -> Markup | None:
    """The domain's figure of a stored episode as markup, or ``None``."""
    from accord.domains.base import get_domain

    name = spec.get("domain")
    if not isinstance(name, str):
        return None
    try:
        domain = get_domain(name)
    except KeyError:
        return None
    try:
        html = domain.episode_figure(key, spec, summary, events)
    except Exception as exc:  # a plug-in's drawing code can fail in any way
        log.warning("domain %s could not draw episode %s: %s: %s", name, key,
                    type(exc).__name__, exc)
        return None
    return None if html is None else Markup(html)



# --- run-level charts (inline SVG: the web app and the report) ----------------------------
#: geometry of the horizontal charts (px); LABEL_W holds a 30-character row label in a
#: 12 px sans-serif (DejaVu Sans, the widest common one, needs about 215 px for it)
LABEL_W, PLOT_W, ROW_H, PAD = 240, 250, 20, 8
#: outcome -> fill colour of the outcome distribution
OUTCOME_COLOURS = {"agreement": "#2e8b3e", "completed": "#1d4f8a", "no_deal": "#c08a1a",
                   "error": "#a40000", "failed": "#a40000", "pending": "#bbbbbb"}


def _label(text: str, limit: int = 30) -> str:
    """A row label cut to ``limit`` characters. A ``line-up · party`` label is cut in its
    line-up, so the party stays readable (two rows of one long line-up differ)."""
    if len(text) <= limit:
        return text
    head, sep, tail = text.rpartition(" · ")
    if sep and limit - len(tail) - len(sep) - 1 >= 8:
        return head[:limit - len(tail) - len(sep) - 1] + "…" + sep + tail
    return text[:limit - 1] + "…"


def _svg(rows: int, title: str, body: list[str], cls: str) -> Markup:
    from markupsafe import escape

    height = PAD * 2 + ROW_H * max(rows, 1) + 18
    width = LABEL_W + PLOT_W + 84
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" '
                  f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
                  f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
                  + "".join(body) + "</svg>")


def _row_label(i: int, text: str) -> str:
    from markupsafe import escape

    y = PAD + i * ROW_H + ROW_H * 0.68
    return (f'<text x="{LABEL_W - 6}" y="{y:.1f}" text-anchor="end" font-size="12">'
            f'<title>{escape(text)}</title>{escape(_label(text))}</text>')


def _axis(rows: int, lo: float, hi: float, fmt: str | Callable[[float], str],
          ticks: Sequence[float] | None = None) -> list[str]:
    """The value axis: a tick and its label at each of ``ticks`` (by default the quarters
    from ``lo`` to ``hi``)."""
    y = PAD + ROW_H * max(rows, 1)
    out = [f'<line x1="{LABEL_W}" y1="{PAD}" x2="{LABEL_W}" y2="{y}" stroke="#999"/>']
    if ticks is None:
        ticks = [lo + (hi - lo) * k / 4 for k in range(5)]
    for v in ticks:
        x = LABEL_W + PLOT_W * (v - lo) / (hi - lo)
        out.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="#999"/>'
                   f'<text x="{x:.1f}" y="{y + 15}" text-anchor="middle" font-size="11" '
                   f'fill="#555">{_fmt(fmt, v)}</text>')
    return out


def _fmt(fmt: str | Callable[[float], str], v: float) -> str:
    return fmt(v) if callable(fmt) else fmt.format(v)


def _tick_format(decimals: int) -> str:
    """The format of a tick label with ``decimals`` decimals (thousands separated)."""
    return "{:,." + str(decimals) + "f}"


def nice_ticks(lo: float, hi: float, most: int = 5) -> tuple[list[float], int]:
    """Round ticks covering ``lo`` to ``hi`` (at most ``most`` intervals, steps of 1, 2,
    2.5 or 5 times a power of ten: ``0, 0.25, ..., 1`` or ``0, 2,000, ..., 8,000``, never
    ``0.41`` or ``2.5e-10``), and the decimals their labels need. An empty range reads
    as ``lo`` to ``lo + 1``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 1e-9 * max(1.0, abs(lo)):
        hi = lo + 1.0
    raw = (hi - lo) / most
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0, 20.0):
        step = m * mag
        first = math.floor(lo / step + 1e-9) * step
        last = math.ceil(hi / step - 1e-9) * step
        n = round((last - first) / step)
        if n <= most:
            break
    ticks = [first + k * step for k in range(n + 1)]
    # decimals of the step: 0.25 needs 2, 0.2 one, 2,000 none
    decimals = 0
    while decimals < 10 and abs(step * 10 ** decimals - round(step * 10 ** decimals)) > 1e-6:
        decimals += 1
    return [0.0 if abs(t) < step * 1e-9 else t for t in ticks], decimals


def bar_chart(rows: Sequence[tuple[str, float | None, float | None]], title: str,
              lo: float = 0.0, hi: float | None = None,
              fmt: str | Callable[[float], str] = "{:.2f}") -> Markup:
    """Horizontal bars, one per ``(label, value, spread)``, the spread (an SD) drawn as a
    whisker; ``None`` values are left empty. ``fmt`` (a format string or a function)
    writes each bar's value. With ``hi`` given the axis runs from ``lo`` to ``hi`` in
    quarters, labelled by ``fmt``; without it, it runs over round ticks that cover every
    value and whisker (:func:`nice_ticks`)."""
    ticks: list[float] | None = None
    tick_fmt: str | Callable[[float], str] = fmt
    if hi is not None:
        top = hi if hi > lo else lo + 1.0
    else:
        top = max([*(v + (e or 0) for _, v, e in rows if v is not None), lo])
        ticks, decimals = nice_ticks(lo, top)
        lo, top = ticks[0], ticks[-1]
        tick_fmt = _tick_format(decimals)
    scale = PLOT_W / (top - lo)
    body = _axis(len(rows), lo, top, tick_fmt, ticks)
    for i, (label, v, err) in enumerate(rows):
        body.append(_row_label(i, label))
        if v is None:
            continue
        y = PAD + i * ROW_H + 4
        w = max(0.0, (min(v, top) - lo) * scale)
        body.append(f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{ROW_H - 8}" '
                    f'fill="#5b7fb0"><title>{_fmt(fmt, v)}</title></rect>'
                    f'<text x="{LABEL_W + w + 4:.1f}" y="{y + ROW_H - 10}" font-size="11">'
                    f'{_fmt(fmt, v)}</text>')
        if err:
            a = LABEL_W + max(0.0, (v - err - lo) * scale)
            b = LABEL_W + min(PLOT_W, (v + err - lo) * scale)
            cy = y + (ROW_H - 8) / 2
            body.append(f'<line x1="{a:.1f}" y1="{cy:.1f}" x2="{b:.1f}" y2="{cy:.1f}" '
                        'stroke="#222"/>')
    return _svg(len(rows), title, body, "bars")


def interval_chart(rows: Sequence[tuple[str, float, float, float]], title: str) -> Markup:
    """A point with its interval per ``(label, point, low, high)`` (NaN bounds: the
    point alone): ratings with their bootstrap intervals as error bars."""
    finite = [x for _, p, lo, hi in rows for x in (p, lo, hi) if not math.isnan(x)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    margin = (hi - lo) * 0.05
    ticks, decimals = nice_ticks(lo - margin, hi + margin)
    lo, hi = ticks[0], ticks[-1]
    scale = PLOT_W / (hi - lo)
    body = _axis(len(rows), lo, hi, _tick_format(decimals), ticks)
    for i, (label, p, a, b) in enumerate(rows):
        body.append(_row_label(i, label))
        cy = PAD + i * ROW_H + ROW_H / 2
        if not (math.isnan(a) or math.isnan(b)):
            x1, x2 = LABEL_W + (a - lo) * scale, LABEL_W + (b - lo) * scale
            body.append(f'<line class="interval" x1="{x1:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" '
                        f'y2="{cy:.1f}" stroke="#23395b" stroke-width="2"/>'
                        f'<line x1="{x1:.1f}" y1="{cy - 5:.1f}" x2="{x1:.1f}" y2="{cy + 5:.1f}" '
                        f'stroke="#23395b"/><line x1="{x2:.1f}" y1="{cy - 5:.1f}" '
                        f'x2="{x2:.1f}" y2="{cy + 5:.1f}" stroke="#23395b"/>')
        if not math.isnan(p):
            x = LABEL_W + (p - lo) * scale
            body.append(f'<circle class="rating" cx="{x:.1f}" cy="{cy:.1f}" r="4" '
                        f'fill="#c2521b"><title>{p:.0f}</title></circle>')
    return _svg(len(rows), title, body, "intervals")


def stacked_chart(rows: Sequence[tuple[str, Mapping[str, int]]], title: str) -> Markup:
    """One bar per ``(label, counts by outcome)``, split by outcome (shares of the row)."""
    from markupsafe import escape

    body = _axis(len(rows), 0.0, 1.0, "{:.0%}")
    seen: list[str] = []
    for i, (label, counts) in enumerate(rows):
        body.append(_row_label(i, label))
        total = sum(counts.values()) or 1
        x = float(LABEL_W)
        y = PAD + i * ROW_H + 4
        for outcome, n in sorted(counts.items(), key=lambda kv: (kv[0] != "agreement", kv[0])):
            if outcome not in seen:
                seen.append(outcome)
            w = PLOT_W * n / total
            colour = OUTCOME_COLOURS.get(outcome, "#888")
            body.append(f'<rect class="oc-{escape(outcome)}" x="{x:.1f}" y="{y}" '
                        f'width="{w:.1f}" height="{ROW_H - 8}" fill="{colour}"><title>'
                        f'{escape(outcome)}: {n} of {total}</title></rect>')
            x += w
    lx = LABEL_W + PLOT_W + 8
    for k, outcome in enumerate(seen):
        body.append(f'<rect x="{lx}" y="{PAD + k * 16}" width="10" height="10" '
                    f'fill="{OUTCOME_COLOURS.get(outcome, "#888")}"/><text x="{lx + 13}" '
                    f'y="{PAD + k * 16 + 9}" font-size="10">'
                    f'{escape(outcome.replace("_", " "))}</text>')
    return _svg(len(rows), title, body, "outcomes")


__all__ = ["bar_chart", "episode_figure", "interval_chart", "nice_ticks", "stacked_chart"]
