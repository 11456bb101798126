"""The run-level charts (accord.serve.figures): inline SVG whose text is escaped."""

from __future__ import annotations

import math
import re

from accord.serve.figures import bar_chart, interval_chart, stacked_chart

EVIL = '<script>alert(1)</script>"onload="x'


def test_chart_text_is_escaped() -> None:
    for svg in (bar_chart([(EVIL, 0.5, 0.1)], EVIL),
                interval_chart([(EVIL, 1500.0, 1400.0, 1600.0)], EVIL),
                stacked_chart([(EVIL, {EVIL: 2, "agreement": 1})], EVIL)):
        text = str(svg)
        assert "<script>" not in text and 'onload="x' not in text
        assert "&lt;script&gt;" in text


def test_bars_scale_to_their_values() -> None:
    svg = str(bar_chart([("a", 1.0, None), ("b", 0.5, None), ("c", None, None)], "t",
                        0.0, 1.0))
    widths = [float(w) for w in re.findall(r'<rect x="\d+" y="\d+" width="([\d.]+)"', svg)]
    assert len(widths) == 2 and math.isclose(widths[0], 2 * widths[1])


def test_intervals_and_shares() -> None:
    svg = str(interval_chart([("a", 1600.0, 1500.0, 1700.0),
                              ("b", 1400.0, math.nan, math.nan)], "t"))
    assert svg.count('class="interval"') == 1 and svg.count('class="rating"') == 2
    shares = str(stacked_chart([("x", {"agreement": 3, "no_deal": 1})], "t"))
    w = {k: float(v) for k, v in re.findall(r'class="oc-(\w+)" x="[\d.]+" y="\d+" '
                                            r'width="([\d.]+)"', shares)}
    assert math.isclose(w["agreement"], 3 * w["no_deal"])


def test_long_lineup_labels_keep_their_party() -> None:
    """Issue 28's walk: the mean-utility chart cut 'utility-aware vs utility-aware · Alice'
    and '... · Bob' to the same 'utility-aware vs utility-awar…', two rows a person
    could not tell apart; the full label stays the row's tooltip."""
    svg = str(bar_chart([("utility-aware vs utility-aware · Alice", 0.8, None),
                         ("utility-aware vs utility-aware · Bob", 0.6, None),
                         ("boulware vs conceder · procurement", 0.8, None),
                         ("boulware vs conceder · vendor", 0.5, None)], "mean utility"))
    shown = re.findall(r"</title>([^<]+)</text>", svg)
    assert shown[:4] == ["utility-aware vs util… · Alice", "utility-aware vs utilit… · Bob",
                         "boulware vs con… · procurement", "boulware vs conceder · vendor"]
    assert all(len(t) <= 30 for t in shown[:4])
    assert "<title>utility-aware vs utility-aware · Alice</title>" in svg
