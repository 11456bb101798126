"""Terminal text for people: bounded width when piped, values in words, sentences."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from accord.cli.main import app
from accord.cli.render import (
    batna_verdict,
    describe_event,
    print_negotiation_record,
    print_transcript,
    readable,
)
from accord.core.trajectory import Event

SRC = str(Path(__file__).resolve().parents[2] / "src")
LIMIT = 200


def _piped(*args: str, cwd: Path | None = None) -> str:
    """stdout of ``accord ARGS`` run with stdout to a pipe and no COLUMNS set."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "accord", *args], capture_output=True,
                          text=True, env=env, check=True, cwd=cwd).stdout


def _longest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_piped_demo_has_no_line_over_the_limit_and_no_raw_values() -> None:
    out = _piped("demo")
    assert _longest(out) <= LIMIT
    assert "─" * 200 not in out  # the old 10,000-column rules
    assert "{'" not in out and '{"' not in out  # no Python dicts or JSON blobs
    assert "says: \n" not in out and not any(line.rstrip().endswith("says:")
                                             for line in out.splitlines())
    # the three-party rejection names the proposal it rejects
    assert "rejects product's proposal (features=7" in out


def test_piped_show_has_no_line_over_the_limit(tmp_path: Path) -> None:
    store = tmp_path / "demo.db"
    res = CliRunner().invoke(app, ["bench", "demo", "--out", str(store), "--quiet"])
    assert res.exit_code == 0, res.output
    eps = json.loads(_piped("results", str(store), "--episodes", "--json"))["episodes"]
    for ep in eps[:3]:
        out = _piped("show", str(store), ep["id"])
        assert ep["id"] in out and _longest(out) <= LIMIT


def test_columns_sets_the_piped_width() -> None:
    env = {**os.environ, "COLUMNS": "60",
           "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-m", "accord", "demo", "--quick"],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert _longest(out) <= 60


def _ev(round_: int, party: str, move: dict[str, object], seq: int = 0) -> Event:
    return Event(seq=seq, round=round_, party=party, kind="move", move=move)


def test_floats_are_rounded_in_packages_and_notes() -> None:
    line = describe_event(_ev(1, "a", {"kind": "offer",
                                       "package": {"x": 0.22999999999999998}}))
    assert line is not None and "x=0.23" in line and "0.2299" not in line
    note = Event(seq=0, round=2, party=None, kind="note", reason="judge_verdict",
                 data={"score": 0.22999999999999998, "rule": "code"})
    said = describe_event(note)
    assert said is not None and "score=0.23" in said and "{" not in said
    assert "judge verdict" in said


def test_json_messages_and_dict_decisions_read_as_words() -> None:
    msg = describe_event(_ev(1, "agent_0", {
        "kind": "offer", "package": {"t": "agent_0"},
        "message": json.dumps({"share": [["private", "agent_0", "GPU Hours", 2.6]]})}))
    assert msg is not None and "share: private agent_0 GPU Hours 2.6" in msg
    assert '{"' not in msg
    dec = describe_event(_ev(1, "leader", {"kind": "decide",
                                           "decision": {"Review": "agent_2"}}))
    assert dec is not None and "decides Review=agent_2" in dec and "{'" not in dec
    assert readable({"rule": "code", "measure": "utility"}) == "rule=code, measure=utility"


def test_empty_offer_reads_as_no_proposal() -> None:
    line = describe_event(_ev(1, "agent_0", {"kind": "offer", "package": {},
                                             "message": "I share what I know"}))
    assert line is not None and "agent_0[/] makes no proposal" in line
    assert "offers -" not in line and "I share what I know" in line


def test_empty_message_prints_no_line() -> None:
    assert describe_event(_ev(1, "Alice", {"kind": "message", "text": ""})) is None
    assert describe_event(_ev(1, "Alice", {"kind": "message", "text": "  "})) is None


def test_bare_rejection_names_the_standing_proposal() -> None:
    # round 1 answers eng's offer; product's counter-offer is the offer of round 2 (the
    # protocol's numbering, the record's and the play view's), which the others answer
    log = [_ev(1, "eng", {"kind": "offer", "package": {"f": 3}}, 0),
           _ev(1, "product", {"kind": "reject", "counter": {"package": {"f": 7}}}, 1),
           _ev(1, "ops", {"kind": "reject"}, 2),
           _ev(2, "eng", {"kind": "reject"}, 3), _ev(2, "ops", {"kind": "reject"}, 4)]
    buf = io.StringIO()
    print_transcript(Console(file=buf, width=100, no_color=True), log)  # type: ignore[arg-type]
    lines = [ln.strip() for ln in buf.getvalue().splitlines()]
    assert lines == ["r 1  eng offers f=3", "r 1  product rejects eng's proposal (f=3)",
                     "r 1  ops rejects eng's proposal (f=3)",
                     "r 2  product counter-offers f=7",
                     "r 2  eng rejects product's proposal (f=7)",
                     "r 2  ops rejects product's proposal (f=7)"]


def test_a_counter_that_never_stood_says_so() -> None:
    log = [_ev(1, "a", {"kind": "offer", "package": {"f": 3}}, 0),
           _ev(1, "b", {"kind": "reject", "counter": {"package": {"f": 7}}}, 1)]
    buf = io.StringIO()
    print_transcript(Console(file=buf, width=100, no_color=True), log)  # type: ignore[arg-type]
    assert "r 1  b counter-offers f=7 (never on the table)" in buf.getvalue()


def test_long_transcript_lines_wrap_under_a_hanging_indent() -> None:
    log = [_ev(3, "a", {"kind": "message", "text": "word " * 60})]
    buf = io.StringIO()
    print_transcript(Console(file=buf, width=60, no_color=True), log)  # type: ignore[arg-type]
    lines = buf.getvalue().splitlines()
    assert len(lines) > 1 and all(len(x) <= 60 for x in lines)
    assert lines[0].startswith("  r 3  a says: word")
    assert all(x.startswith("       word") for x in lines[1:])


@pytest.mark.parametrize(("u", "b", "want"), [
    (0.4, 0.4, "at BATNA"), (0.4 + 1e-12, 0.4, "at BATNA"), (0.5, 0.4, "yes"),
    (0.3, 0.4, "NO (sycophancy)")])
def test_batna_verdict(u: float, b: float, want: str) -> None:
    assert want in batna_verdict(u, b)


def test_no_deal_record_says_at_batna_not_above() -> None:
    summary = {"status": "no_deal", "reason": "max_rounds", "rounds": 5,
               "record": {"utilities": {"buyer": 0.4, "seller": 0.35},
                          "batna": {"buyer": 0.4, "seller": 0.35}}}
    buf = io.StringIO()
    print_negotiation_record(Console(file=buf, width=100, no_color=True), summary)
    rows = [x for x in buf.getvalue().splitlines() if "buyer" in x or "seller" in x]
    assert rows and all("at BATNA" in x and "yes" not in x for x in rows)


def test_partial_deal_record_says_who_voted_and_who_is_bound() -> None:
    """A k-of-n deal names the dissenter and whom the deal binds; an outvoted party below
    its BATNA is marked outvoted, not sycophantic."""
    base = {"agreement": {"x": 1}, "proposer": "a", "accepted_by": ["b"],
            "rejected_by": ["c"], "parties": ["a", "b", "c"],
            "batna": {"a": 0.2, "b": 0.2, "c": 0.2}}
    shown = []
    for binding, bound, cu in (("accepters", ["a", "b"], 0.2), ("all", ["a", "b", "c"], 0.1)):
        rec = {**base, "binding": binding, "bound": bound,
               "utilities": {"a": 0.5, "b": 0.5, "c": cu}}
        buf = io.StringIO()
        print_negotiation_record(Console(file=buf, width=100, no_color=True),
                                 {"status": "agreement", "rounds": 1, "record": rec})
        shown.append(" ".join(buf.getvalue().split()))
    assert "Yes: a, b; no: c." in shown[0]
    assert "The deal binds a, b; c keeps its BATNA." in shown[0]
    assert "at BATNA" in shown[0] and "NO (" not in shown[0]
    assert "binds every party (binding: all)" in shown[1]
    assert "NO (outvoted)" in shown[1] and "sycophancy" not in shown[1]


def test_a_record_shows_a_list_of_vectors_in_one_row_and_flags_in_words() -> None:
    """A Deal-or-No-Deal belief's support (26 value vectors per round) was one table row per
    vector, and flags read as Python's True/False."""
    from accord.cli.render import MAX_VECTORS, flatten, print_record_fields

    support = [[b, h, 10 - b - h] for b in range(5) for h in range(10 - b) if b + h <= 10][:26]
    rec = {"agreement": True, "walked": False,
           "beliefs": {"bob": [{"round": 1, "size": 26, "support": support}]}}
    rows = dict(flatten(rec))
    assert rows["agreement"] == "yes" and rows["walked"] == "no"
    assert not any("support[" in k for k in rows)
    cell = rows["beliefs.bob[0].support"]
    assert cell.startswith("(0, 0, 10), (0, 1, 9), ") and cell.endswith(", … (26 in all)")
    assert cell.count("(") == MAX_VECTORS + 1  # the shown vectors and the count
    assert dict(flatten({"pairs": [[1, 2], [3, 4]]}))["pairs"] == "(1, 2), (3, 4)"
    assert dict(flatten({"rows": [{"a": 1}, {"a": 2}]})) == {"rows[0].a": "1", "rows[1].a": "2"}
    buf = io.StringIO()
    print_record_fields(Console(file=buf, width=100), rec)
    assert len(buf.getvalue().splitlines()) < 12 and "True" not in buf.getvalue()


def test_one_stored_episode_is_counted_in_the_singular(tmp_path: Path) -> None:
    store = tmp_path / "one.db"
    res = CliRunner().invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                                   "boulware,conceder", "--save", str(store), "--quiet"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["results", str(store)])
    # the title line holds the store's path, so it wraps where a long temporary directory
    # (pytest-xdist's, a long user name's) pushes it: compare the words, not the breaks
    assert res.exit_code == 0 and ": 1 episode, 1 done, 0 failed" in " ".join(
        res.stdout.split())
    out = _piped("results", str(store), "--episodes")
    assert out.splitlines()[0].strip() == "1 episode" and "│ yes " in out  # agreement


@pytest.mark.parametrize(("bound", "words"), [
    ("max_rounds", "the round cap was reached"),
    ("max_offers", "the cap on offers was reached"),
    ("wall_clock", "the wall-clock limit was reached")])
def test_a_bound_no_deal_says_which_bound_in_words(bound: str, words: str) -> None:
    """It read ``NO DEAL (bound_hit): max_rounds``: the option's name alone."""
    summary = {"status": "no_deal", "reason": "bound_hit", "detail": bound, "rounds": 20,
               "record": {"utilities": {"buyer": 0.4}, "batna": {"buyer": 0.4}}}
    buf = io.StringIO()
    print_negotiation_record(Console(file=buf, width=100, no_color=True), summary)
    assert f"NO DEAL (bound_hit): {words} ({bound})" in buf.getvalue()


def test_show_reads_params_flags_and_rounds_in_words(tmp_path: Path) -> None:
    """``accord show`` printed ``params: {"negotiation_rounds": 1}`` (JSON) and metric flags
    as ``True``/``False``."""
    store = tmp_path / "g.db"
    res = CliRunner().invoke(app, ["run", "games/prisoners-dilemma", "--agents",
                                   "rational,rational", "-p", "negotiation_rounds=1",
                                   "--save", str(store), "--quiet"])
    assert res.exit_code == 0, res.output
    eid = json.loads(CliRunner().invoke(app, ["results", str(store), "--episodes",
                                              "--json"]).stdout)["episodes"][0]["id"]
    out = CliRunner().invoke(app, ["show", str(store), eid[:8]]).stdout
    assert "\nparams: negotiation_rounds=1\n" in out and "{" not in out.split("\n")[1]
    assert "completed, 2 rounds" in out
    assert re.search(r"│ nash\s+│ yes\s+│", out) and re.search(r"│ pareto_optimal\s+│ no\s+│", out)
    assert "True" not in out and "False" not in out
