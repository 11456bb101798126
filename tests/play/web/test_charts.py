"""The debrief's server-rendered SVG charts: what they draw and that every text is escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from accord.play.web.parallel import parallel_svg
from accord.play.web.plane import plane_svg

EVIL = "<script>alert(1)</script>&\"'"
SVG = "{http://www.w3.org/2000/svg}"


def _parallel() -> dict[str, object]:
    return {"axes": ["me", EVIL, "ops"], "batna": [0.35, 0.35, 0.3],
            "lines": [{"key": "episode", "label": "this episode", "values": [0.4, 0.8, 0.6]},
                      {"key": "nash", "label": EVIL, "values": [0.7, 0.6, 0.8]}],
            "frontier": [[0.9, 0.1, 0.5], [0.2, 0.9, 0.9]]}


def test_parallel_coordinates_draw_one_axis_per_party_and_escape_names() -> None:
    svg = str(parallel_svg(_parallel()))
    root = ET.fromstring(svg)  # well-formed: a name cannot break out of its element
    assert root.get("id") == "debrief-parallel"
    assert len(root.findall(f".//{SVG}line[@class='axis']")) == 3
    assert len(root.findall(f".//{SVG}line[@class='batna']")) == 3
    assert len(root.findall(f".//{SVG}g[@class='frontier']/{SVG}polyline")) == 2
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "you (me)" in texts and EVIL in texts  # the person's axis first, named
    # higher utility is drawn higher: the episode's line climbs from 0.4 to 0.8
    (ep,) = root.findall(f".//{SVG}polyline[@class='line-episode']")
    ys = [float(p.split(",")[1]) for p in (ep.get("points") or "").split()]
    assert ys[1] < ys[0] and ys[2] < ys[0]


def test_a_projected_frontier_is_drawn_as_dots_on_a_named_plane() -> None:
    plane = {"you": "me", "other": EVIL, "unit": "utility", "points": [[0.1, 0.2], [0.5, 0.5]],
             "frontier": [[0.5, 0.5], [0.9, 0.1]], "frontier_dots": True,
             "nash": [[0.5, 0.5]], "disagreement": [0.3, 0.3], "outcome": [0.1, 0.2],
             "better": [0.5, 0.5]}
    svg = str(plane_svg(plane, "debrief-plane-2", 300, 257))
    root = ET.fromstring(svg)
    assert root.get("id") == "debrief-plane-2" and root.get("width") == "300"
    assert len(root.findall(f".//{SVG}g[@class='pareto']/{SVG}circle")) == 2
    assert not root.findall(f".//{SVG}polyline[@class='pareto']")
    assert "<script>" not in svg
    two_party = str(plane_svg({**plane, "frontier_dots": False}))
    assert re.search(r'<polyline class="pareto"', two_party) and 'id="debrief-plane"' in two_party
