"""``accord report``: one self-contained HTML file about a store, for mailing to a
colleague: per run the summary first (charts and the aggregate table per line-up), the
leaderboard (ratings with intervals, head to head, safety), an index of the episodes,
and then only the transcripts asked for (:func:`pick_transcripts`), so the file stays
small for large runs.

The file has no script and no external reference: the stylesheets are inlined, plots are
inline SVG, links are in-page anchors only. Text is escaped by the same templates as the
web app (:mod:`accord.serve.app`), so a model's ``<script>`` is shown, never run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup

from accord.bench import approvals
from accord.bench.store import EpisodeRow, Store, StoreError
from accord.serve import overview, views
from accord.serve.stores import Stores

#: transcripts included when not asked: this many per run, failed and error ones first
DEFAULT_TRANSCRIPTS = "20"
#: most episodes listed in a run's index (a larger run is summarised by its tables)
MAX_INDEX = 2000


class ReportError(ValueError):
    """A ``--transcripts`` value that is not none, failed, all or a whole number."""


def parse_transcripts(text: str) -> str | int:
    """``none``, ``failed``, ``all`` or a whole number N >= 0 (``ReportError`` else)."""
    value = text.strip().lower()
    if value in ("none", "failed", "all"):
        return value
    if value.isdigit():
        return int(value)
    raise ReportError(f"--transcripts must be none, failed, all or a whole number N, got "
                      f"{text!r}")


def _troubled(row: EpisodeRow) -> bool:
    return row.status == "failed" or row.outcome == "error"


def pick_transcripts(rows: Sequence[EpisodeRow], which: str | int) -> list[EpisodeRow]:
    """The episodes whose transcripts go in: none, the failed (or errored) ones, all, or
    N (failed and errored ones first, then the rest in plan order)."""
    if which == "none":
        return []
    if which == "all":
        return list(rows)
    failed = [r for r in rows if _troubled(r)]
    if which == "failed":
        return failed
    assert isinstance(which, int)
    chosen = (failed + [r for r in rows if not _troubled(r)])[:which]
    keep = {id(r) for r in chosen}
    return [r for r in rows if id(r) in keep]


def _which_text(which: str | int) -> str:
    return {"none": "no transcripts (--transcripts none)",
            "failed": "the transcripts of failed episodes (--transcripts failed)",
            "all": "every transcript (--transcripts all)"}.get(
        str(which), f"up to {which} transcripts per run, failed ones first "
                    f"(--transcripts {which}; all, failed or none to change)")


def build_report(path: str | Path, run: str | None = None,
                 transcripts: str | int = DEFAULT_TRANSCRIPTS) -> str:
    """The report of the store at ``path`` (one run, or every run) as HTML text;
    ``transcripts`` as :func:`parse_transcripts` reads it."""
    from accord._version import __version__
    from accord.bench.aggregate import aggregate
    from accord.serve.app import environment

    which = parse_transcripts(transcripts) if isinstance(transcripts, str) else transcripts
    st = Store.open_readonly(path)
    try:
        runs = st.runs()
        if run is not None:
            runs = [r for r in runs if r["name"] == run]
            if not runs:
                names = ", ".join(r["name"] for r in st.runs()) or "none"
                raise StoreError(f"no run {run!r} in {path}; runs: {names}")
        out: list[dict[str, Any]] = []
        total = shown = 0
        for r in runs:
            rows = st.episodes(r["name"])
            total += len(rows)
            chosen = pick_transcripts(rows, which)
            shown += len(chosen)
            found = approvals.of_episodes(st.conn, [(e.run, e.id) for e in rows[:MAX_INDEX]]
                                          + [(e.run, e.id) for e in chosen])
            eps = [views.episode_view(e, st.trajectory(e.run, e.id),
                                      found.get((e.run, e.id)), {}) for e in chosen]
            with_transcript = {e.id for e in chosen}
            index = [{**views.row_view(e, found.get((e.run, e.id))),
                      "anchor": e.id in with_transcript} for e in rows[:MAX_INDEX]]
            out.append({"info": Stores.run_info(st, r),
                        "aggregate": views.aggregate_view(aggregate(rows)),
                        "charts": overview.charts(overview.lineups(rows)),
                        "leaderboard": overview.board_view(rows),
                        "index": index, "more": max(0, len(rows) - MAX_INDEX),
                        "episodes": eps})
    finally:
        st.conn.close()
    static = resources.files("accord.serve").joinpath("static")
    # the package's own stylesheets, inlined as they are: autoescaping them turned the
    # quotes of the font list into &#34; and the report fell back to a serif font
    css = Markup("\n".join(static.joinpath(name).read_text("utf-8")
                           for name in ("nav.css", "style.css")))
    tpl = environment().get_template("report.html.j2")
    return tpl.render(report=True, inline_css=css, root="", play=False, can_decide=False,
                      csrf_field="", csrf_token="", runs=out, store_name=Path(path).name,
                      now=time.time(), version=__version__, episode_count=total,
                      transcripts_shown=shown, which=_which_text(which))


__all__ = ["DEFAULT_TRANSCRIPTS", "MAX_INDEX", "ReportError", "build_report",
           "parse_transcripts", "pick_transcripts"]
