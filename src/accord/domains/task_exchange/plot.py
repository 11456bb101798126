"""Utility-plane trajectory plots in the style of Figure 2 (seed 000), rendered to PNG.

Each run is drawn as the sequence of its valid proposals in the (first role, second
role) utility plane: arrows join consecutive proposals, numbers give the turn, and the
final outcome is ringed. All feasible splits are drawn in grey, the Pareto front in
black, the original allocation as a square. Rendering uses matplotlib's Agg backend and
returns bytes; writing files is left to the caller.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from accord.core.names import counted
from accord.domains.task_exchange.masks import parse_mask
from accord.domains.task_exchange.metrics import scenario_front
from accord.domains.task_exchange.scenario import Scenario

Path2D = list[tuple[int, float, float]]


def proposal_path(scenario: Scenario, record: Mapping[str, Any]) -> Path2D:
    """``(turn, u_first, u_second)`` for each valid proposal of an episode record, in order."""
    out: Path2D = []
    for p in record.get("proposals", ()):
        masks = p.get("masks")
        if not masks:
            continue
        alloc = {r: parse_mask(m, scenario.universe.n) for r, m in masks.items()}
        ua, ub = scenario.point(alloc)
        out.append((int(p["turn"]), float(ua), float(ub)))
    return out


def render_trajectories_png(scenario: Scenario, runs: Sequence[Mapping[str, Any]],
                            title: str | None = None, dpi: int = 120) -> bytes:
    """A Figure 2 style panel for ``runs`` (episode records) of one scenario, as PNG bytes."""
    fig = trajectories_figure(scenario, runs, title, dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def trajectories_title(scenario: Scenario, runs: int) -> str:
    """The panel's default title: ``competitive: proposal trajectories (1 run)``."""
    return f"{scenario.name}: proposal trajectories ({counted(runs, 'run')})"


def trajectories_figure(scenario: Scenario, runs: Sequence[Mapping[str, Any]],
                        title: str | None = None, dpi: int = 120) -> Any:
    """The matplotlib ``Figure`` of :func:`render_trajectories_png` (not yet rendered)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    a, b = scenario.roles
    fig = Figure(figsize=(5.2, 5.0), dpi=dpi)
    ax = fig.add_subplot(1, 1, 1)
    pts = [(float(x), float(y)) for _, (x, y) in scenario.outcomes()]
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=10, c="#c8c8c8",
               label="feasible splits", zorder=1)
    front = [(float(x), float(y)) for x, y in scenario_front(scenario)]
    ax.plot([p[0] for p in front], [p[1] for p in front], "k-", lw=1, marker="o", ms=3,
            label="Pareto front", zorder=2)
    init = scenario.point(scenario.initial)
    ax.scatter([float(init[0])], [float(init[1])], marker="s", s=60, c="none",
               edgecolors="tab:red", label="original tasks", zorder=4)
    colors = matplotlib.colormaps["tab10"]
    for k, rec in enumerate(runs):
        path = proposal_path(scenario, rec)
        if not path:
            continue
        color = colors(k % 10)
        xs, ys = [p[1] for p in path], [p[2] for p in path]
        ax.plot(xs, ys, "o", ms=4, color=color, zorder=3)
        for (t0, x0, y0), (_, x1, y1) in itertools.pairwise(path):
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                        arrowprops={"arrowstyle": "->", "color": color, "lw": 1})
            ax.annotate(str(t0), (x0, y0), textcoords="offset points", xytext=(3, 3),
                        fontsize=7, color=color)
        t_last, x_last, y_last = path[-1]
        ax.annotate(str(t_last), (x_last, y_last), textcoords="offset points", xytext=(3, 3),
                    fontsize=7, color=color)
        if rec.get("status") == "agreed":
            ax.scatter([x_last], [y_last], s=90, facecolors="none", edgecolors=color, zorder=5)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(f"{a} utility")
    ax.set_ylabel(f"{b} utility")
    ax.set_title(title or trajectories_title(scenario, len(runs)), fontsize=10)
    ax.legend(loc="lower left", fontsize=7)
    ax.grid(alpha=0.3)
    return fig


#: task-exchange figures already drawn: episode key -> markup (PNG rendering is slow)
_FIGURES: dict[str, Markup] = {}
MAX_FIGURES = 256


def episode_figure(key: str, spec: Mapping[str, Any],
                   summary: Mapping[str, Any] | None) -> Markup | None:
    """Figure 2 of the task-exchange study for one episode (its own renderer, as a PNG
    data URI), or ``None``; built-in scenarios only, like bargaining's utility plane."""
    import base64

    if spec.get("domain") != "task-exchange" or not summary:
        return None
    record = summary.get("record")
    if not isinstance(record, Mapping) or not record.get("proposals"):
        return None
    if key in _FIGURES:
        return _FIGURES[key]
    from accord.domains.task_exchange.domain import DOMAIN
    from accord.domains.task_exchange.load import get_scenario

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


__all__ = ["episode_figure", "proposal_path", "render_trajectories_png", "trajectories_figure",
           "trajectories_title"]
