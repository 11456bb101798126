"""Readable record sections of the episode page: a task exchange's proposals as a table,
and a transcript without a message column when nobody said anything."""

from __future__ import annotations

import re
from pathlib import Path

from accord.bench.store import Store


def _episode(path: Path, domain: str, scenario: str | None = None):
    st = Store.open_readonly(path)
    try:
        return next(r for r in st.episodes("mixed") if r.spec.get("domain") == domain
                    and (scenario is None or r.spec.get("scenario") == scenario))
    finally:
        st.conn.close()


def test_task_exchange_proposals_are_a_table(make_client, mixed_store: Path) -> None:
    row = _episode(mixed_store, "task-exchange", "competitive")
    rec = row.summary["record"]
    html = make_client(mixed_store).get(f"/episodes/{row.id}").text
    assert '<table class="proposals">' in html
    table = html[html.index('<table class="proposals">'):]
    table = table[:table.index("</table>")]
    head = re.findall(r"<th>([^<]*)</th>", table)
    assert head == ["round", "proposer", "Alice&#39;s tasks", "Bob&#39;s tasks", "verdict"]
    body = re.findall(r"<tr>(.*?)</tr>", table[table.index("<tbody>"):], re.S)
    assert len(body) == len(rec["proposals"])
    for tr, p in zip(body, rec["proposals"], strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr)
        assert cells[:2] == [str(p["turn"]), p["proposer"]]
        assert cells[2:4] == [f"<code>{p['masks']['Alice']}</code>",
                              f"<code>{p['masks']['Bob']}</code>"]
        assert cells[4].startswith("valid" if p["valid"] else "invalid")
    # the accepted proposal says so; no flattened dump of the proposals remains
    assert body[-1].endswith("valid, accepted</td>") and rec["accepted_turn"] == \
        rec["proposals"][-1]["turn"]
    assert "proposer Alice, valid yes" not in html and "masks Alice" not in html


def test_a_records_other_fields_stay_in_more_of_the_record(make_client,
                                                           mixed_store: Path) -> None:
    row = _episode(mixed_store, "task-exchange")
    html = make_client(mixed_store).get(f"/episodes/{row.id}").text
    more = html[html.index("<caption>More of the record</caption>"):]
    more = more[:more.index("</table>")]
    assert "strategy" in more and "proposals" not in more


def test_no_message_column_when_nobody_spoke(make_client, mixed_store: Path,
                                             xss_store: Path) -> None:
    for domain in ("task-exchange", "bargaining", "games"):
        row = _episode(mixed_store, domain)
        html = make_client(mixed_store).get(f"/episodes/{row.id}").text
        head = html[html.index('<table class="transcript'):]
        head = head[:head.index("</thead>")]
        assert "<th>detail</th>" in head and "<th>message</th>" not in head, domain
        assert 'class="msg"' not in html, domain
    # an LLM that talks keeps its column (and its words)
    st = Store.open_readonly(xss_store)
    try:
        eid = st.episodes("xss")[0].id
    finally:
        st.conn.close()
    html = make_client(xss_store).get(f"/episodes/{eid}").text
    assert "<th>message</th>" in html and 'class="msg"' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
