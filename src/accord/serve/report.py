"""``accord report``: one self-contained HTML file with a store's aggregate tables, plots
and every transcript, for mailing to a colleague.

The file has no script and no external reference: the stylesheet is inlined, plots are
inline SVG, links are in-page anchors only. Text is escaped by the same templates as the
web app (:mod:`accord.serve.app`), so a model's ``<script>`` is shown, never run.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path
from typing import Any

from accord.bench import approvals
from accord.bench.store import Store, StoreError
from accord.serve import views
from accord.serve.stores import Stores


def build_report(path: str | Path, run: str | None = None) -> str:
    """The report of the store at ``path`` (one run, or every run) as HTML text."""
    from accord._version import __version__
    from accord.bench.aggregate import aggregate
    from accord.serve.app import environment

    st = Store.open_readonly(path)
    try:
        runs = st.runs()
        if run is not None:
            runs = [r for r in runs if r["name"] == run]
            if not runs:
                names = ", ".join(r["name"] for r in st.runs()) or "none"
                raise StoreError(f"no run {run!r} in {path}; runs: {names}")
        out: list[dict[str, Any]] = []
        total = 0
        for r in runs:
            rows = st.episodes(r["name"])
            total += len(rows)
            found = approvals.of_episodes(st.conn, [(e.run, e.id) for e in rows])
            eps = [views.episode_view(e, st.trajectory(e.run, e.id),
                                      found.get((e.run, e.id)), {}) for e in rows]
            out.append({"info": Stores.run_info(st, r),
                        "aggregate": views.aggregate_view(aggregate(rows)), "episodes": eps})
    finally:
        st.conn.close()
    css = resources.files("accord.serve").joinpath("static", "style.css").read_text("utf-8")
    tpl = environment().get_template("report.html.j2")
    return tpl.render(report=True, inline_css=css, root="", play=False, can_decide=False,
                      csrf_field="", csrf_token="", runs=out, store_name=Path(path).name,
                      now=time.time(), version=__version__, episode_count=total)


__all__ = ["build_report"]
