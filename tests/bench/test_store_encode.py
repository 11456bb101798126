"""The store's encoder (:class:`accord.bench.rows.RowEncoder`) writes rows that every reader
decodes to what the encoding before issue 30 (kept verbatim as the reference) wrote, on real
episodes of every domain, multi-party, LLM episodes holding secrets, and hand-made edge
cases: byte for byte where the JSON encoder is ``json``; with orjson the JSON columns are
compact text of the same values, error and trajectory still byte for byte."""

from __future__ import annotations

import asyncio
import enum
import json
import math
import os
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.spec import parse_agent_list
from accord.bench import EpisodeRecord, Store
from accord.bench.rows import JSON_ENCODER, RowEncoder, json_bytes, plain
from accord.bench.worker import EpisodeTask, execute, jsonable
from accord.core import redact as core_redact
from accord.core.redact import MASK, Redactor, json_text
from accord.domains import EpisodeSpec
from accord.testing import ScriptedPolicy, StubServer
from accord.testing.legacy_store import LegacyRedactor, decoded, legacy_encode

PROV = {"accord_version": "0.1.0", "git_commit": None, "cwd_commit": None, "host": "h"}
KEY = "sk-store30-SECRET-0badc0de"
REPO = Path(__file__).resolve().parents[2]


def _dond() -> str | None:
    env = os.environ.get("ACCORD_DATA")
    base = Path(env) if env else REPO.parent / "shared" / "data"
    folder = base if (base / "test.txt").is_file() else base / "dealornodeal"
    return str(folder) if (folder / "test.txt").is_file() else None


def _specs() -> list[EpisodeSpec]:
    def s(domain: str, scenario: str, agents: str, params: dict[str, Any] | None = None,
          seed: int = 0) -> EpisodeSpec:
        return EpisodeSpec(domain, scenario, tuple(parse_agent_list(agents)), params or {},
                           seed)

    out = [s("bargaining", "buyer-seller", "boulware,conceder", seed=3),
           s("bargaining", "procurement", "tit-for-tat,linear", seed=4),
           s("bargaining", "sprint-planning", "boulware,conceder,linear", seed=1),  # 3 parties
           s("task-exchange", "competitive", "scripted:UNK+keep,utility-aware",
             {"strategy": "utility-aware"}, 4),
           s("games", "prisoners-dilemma", "rational,rational"),
           s("deliberation", "menu-numeric", "share,share")]
    data = _dond()
    if data is not None:
        out.append(s("deal-or-no-deal", "test/5", "workflow,greedy",
                     {"data": data, "rounds": 10}))
    return out


#: LLM replies that hold secrets of every kind the redaction knows (by value: the key the
#: endpoint uses; by shape; bearer values; passwords in URLs; key=value pairs)
LEAKY = [f"<MESSAGE>my key is {KEY}, also sk-proj-abcdefghijklmnop and ghp_"
         "abcdefghijklmnopqrstuvwx; Bearer abc.def-123456 at https://me:hunter22@example.org "
         "token=zzzzzz999 İ KEY</MESSAGE><PROPOSAL>{\"price\": 1000}</PROPOSAL>",
         "<MESSAGE>password: 'swordfish123' — café ünïcode \u212aey=abcdefgh</MESSAGE>"
         "<WALK>"]


@pytest.fixture(scope="module")
def records() -> list[EpisodeRecord]:
    """Real records of every domain and of LLM episodes (the stub), and edge cases."""
    mp = pytest.MonkeyPatch()

    async def run(specs: list[EpisodeSpec]) -> list[EpisodeRecord]:
        return [await execute(EpisodeTask(f"e{k}", sp, 0, "r")) for k, sp in enumerate(specs)]

    recs = asyncio.run(run(_specs()))
    try:
        # the model name picks the stub's policy: a scripted leaky one, the negotiator
        with StubServer(ScriptedPolicy(LEAKY), api_key=KEY) as stub:
            mp.setenv("STUB_BASE_URL", stub.base_url)
            mp.setenv("STUB_API_KEY", KEY)
            llm = [EpisodeSpec("bargaining", "buyer-seller", tuple(parse_agent_list(
                f"llm:openai-api/stub/{model},boulware")), {"max_rounds": 3}, 7)
                for model in ("leaky", "negotiator")]
            recs += asyncio.run(run(llm))
    finally:
        mp.undo()
    assert all(r.status == "done" for r in recs), [r.error for r in recs]
    # the client masks what the model says: put secrets back where it had them, as a
    # record holding secrets the client never saw (a key in an error, a key set later)
    leaky = next(r for r in recs if MASK in (r.trajectory or ""))
    back = iter([KEY, "sk-proj-abcdefghijklmnop", "Bearer abcdefghijk"] * 9)
    parts = (leaky.trajectory or "").split(MASK)
    traj = parts[0] + "".join(next(back) + p for p in parts[1:])
    recs.append(EpisodeRecord(**{**leaky.__dict__, "trajectory": traj,
                                 "summary": {**(leaky.summary or {}), "detail": KEY}}))
    recs += [
        EpisodeRecord("f1", "failed", error=f"RuntimeError: {KEY} Bearer abcdefgh\n" * 3,
                      started=1.0, finished=2.0, worker="w"),
        EpisodeRecord("f2", "failed", error="ValueError: plain", worker="w"),
        EpisodeRecord("d1", "done", "agreement", {"api_key": "abcdefghij", "n": [1, 2.5]},
                      {"x": math.pi, "note": "ok"}, "", {"buyer": {"input_tokens": 3}}),
        EpisodeRecord("d2", "done", "no_deal", {"text": "İstanbul \x00 nul", "k": "k"},
                      {}, '{"seq": 0, "t": "ke"}\n{"seq": 1, "t": "y"}\n', None),
        EpisodeRecord("d3", "done", "completed", {"obj": {1: Path("/x"), "t": (1, 2)}},
                      None, None, {}),
    ]
    for k, rec in enumerate(recs):
        rec.id = f"e{k}"
    return recs


def _store(path: Path, recs: list[EpisodeRecord], fmt: int) -> tuple[Store, int]:
    if fmt == 1:
        from accord.testing.legacy_store import create_format1_store

        create_format1_store(path)
    st = Store.open(path)
    assert st.format == fmt
    sid = st.begin_session("r", {}, None, PROV, "local", 1)
    with st.conn:
        st.conn.executemany("INSERT INTO episodes (run, id, seq, spec, labels) VALUES "
                            "(?,?,?,'{}','{}')", [("r", r.id, k) for k, r in enumerate(recs)])
    return st, sid


_ROWS = ("SELECT e.id, status, outcome, summary, metrics, usage, error, wall_time, started,"
         " finished, session, worker, t.jsonl FROM episodes e LEFT JOIN trajectories t"
         " ON t.run=e.run AND t.id=e.id ORDER BY e.seq")


@pytest.mark.parametrize("fmt", [1, 2])
def test_rows_are_byte_identical_to_the_old_encoding(tmp_path: Path, monkeypatch:
                                                     pytest.MonkeyPatch,
                                                     records: list[EpisodeRecord],
                                                     fmt: int) -> None:
    monkeypatch.setenv("STUB_API_KEY", KEY)  # the redaction masks it by value
    new, sid = _store(tmp_path / "new.db", records, fmt)
    old, osid = _store(tmp_path / "old.db", records, fmt)
    for rec in records:
        got = new.encode("r", rec, sid)
        want = legacy_encode(old, "r", rec, osid)
        assert decoded(new, *got) == decoded(old, *want), rec.id
        # error and trajectory are the same bytes whichever JSON encoder runs
        assert got[0][5] == want[0][5] and got[1] == want[1], rec.id
        if JSON_ENCODER == "json":
            assert got == want, rec.id
    new.write_many("r", records, sid)
    with old.conn:
        for rec in records:
            row, traj = legacy_encode(old, "r", rec, osid)
            old.conn.execute(Store._UPDATE_EPISODE, row)
            if traj is not None:
                old.conn.execute(Store._PUT_TRAJECTORY, traj)
    a, b = new.conn.execute(_ROWS).fetchall(), old.conn.execute(_ROWS).fetchall()
    assert len(a) == len(b) == len(records)
    for x, y in zip(a, b, strict=True):
        assert decoded(new, x[1:12], (x[0], x[0], x[12])) == decoded(old, y[1:12], (
            y[0], y[0], y[12]))
    assert JSON_ENCODER != "json" or a == b
    blob = (tmp_path / "new.db").read_bytes() + Path(f"{tmp_path / 'new.db'}-wal").read_bytes()
    assert KEY.encode() not in blob or fmt == 2  # format 2 stores frames, checked above
    trajs = [new.trajectory("r", r.id) or "" for r in new.episodes("r")]
    assert sum(KEY in (r.trajectory or "") for r in records) >= 1  # secrets were there,
    assert not any(KEY in t for t in trajs)  # and are masked
    assert sum(t.count(MASK) for t in trajs) > sum((r.trajectory or "").count(MASK)
                                                   for r in records)
    assert KEY not in json.dumps([r.to_dict() for r in new.episodes("r")])
    new.close()
    old.close()


def test_a_record_packed_elsewhere_is_written_as_packed_only_for_the_same_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[EpisodeRecord]) -> None:
    keys = set()
    for fmt in (1, 2):
        st, sid = _store(tmp_path / f"s{fmt}.db", records, fmt)
        spec = pickle.loads(pickle.dumps(st.encoder_spec()))  # what a pool worker receives
        worker = RowEncoder.from_spec(spec)
        assert worker.key == st.encoder().key
        keys.add(worker.key)
        for rec in records:
            packed = worker.pack(rec)
            rec2 = EpisodeRecord(**{**rec.__dict__, "packed": (worker.key, packed)})
            assert st.encode("r", rec2, sid) == st.encode("r", rec, sid)
            assert (fmt == 1) == all(v is None or isinstance(v, str) for v in packed)
        st.close()
    assert len(keys) == 2  # a format-1 store never takes frames packed for format 2
    st, sid = _store(tmp_path / "s.db", records, 2)
    # packed under another key (another store's dictionary or secrets): encoded again
    rec = records[0]
    bogus = EpisodeRecord(**{**rec.__dict__, "packed": (("other",), (b"x",) * 5)})
    assert st.encode("r", bogus, sid) == st.encode("r", rec, sid)
    st.close()
    # a worker that does not know the driver's secret packs under another key, so the
    # driver encodes the record itself and masks the secret
    monkeypatch.setenv("STORE30_API_KEY", "driver-only-secret-123")
    st, sid = _store(tmp_path / "t.db", records, 1)
    blind = RowEncoder.from_spec(replace(st.encoder_spec(), secrets=()))
    assert blind.key != st.encoder().key and "driver-only-secret-123" not in str(blind.key)
    leak = EpisodeRecord("e0", "failed", error="RuntimeError: driver-only-secret-123")
    leak.packed = (blind.key, blind.pack(leak))
    assert "driver-only-secret-123" in leak.packed[1][3]
    assert st.encode("r", leak, sid)[0][5] == f"RuntimeError: {MASK}"
    st.close()


TEXT = st.text(alphabet=st.sampled_from(list("keysecrtonpawdlihgxf_b:/-AKIBE \"İ\u212a\x00{}")),
               max_size=40)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_gated_trigger_test_decides_as_the_plain_scan(text: str) -> None:
    r = Redactor([])
    assert r._suspect(text) == LegacyRedactor([])._suspect(text)
    assert r.text(text) == LegacyRedactor([]).text(text)


#: pieces of trigger words (whole, partial, other case) and of the text around them
PIECES = st.sampled_from(["key", "KeY", "secr", "ecret", "tok", "oken", "passw", "ssw",
                          "creden", "tial", "auth", "aut", "uth", "sk-", "sk", "gh", "g", "h",
                          "xox", "akia", "hf_", "bearer", "basic", "://", ":/", "/", " ",
                          "\"", "0.5", "_", "-", "é", "K", "\x00", "\n"])
#: trigger-free JSON, to make text long enough for the one-pass search
FILLER = '{"round": 3, "party": "buyer", "offer": {"price": 950, "days": 2}}\n'


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join), st.integers(0, 6), st.integers(0, 6),
       st.booleans())
def test_the_byte_check_decides_as_the_exact_scan(core: str, before: int, after: int,
                                                  one_pass: bool) -> None:
    """``Redactor.untouched_utf8`` (the store's check over the bytes it compresses) says
    "untouched" exactly when the text holds no trigger word (lower-cased) and no secret
    value, with the one-pass search and with the gated substring tests it falls back to;
    and then the redaction returns the text unchanged."""
    text = FILLER * before + core + FILLER * after
    secret = "sk-store30-SECRET-0badc0de"
    expected = not any(t in text.lower() for t in core_redact._TRIGGERS)
    saved = core_redact._trigger_finder
    if not one_pass:
        core_redact._trigger_finder = lambda: None  # type: ignore[assignment]
    try:
        assert Redactor([]).untouched_utf8(text.encode()) is expected
        assert Redactor([]).untouched(text) is expected
        assert Redactor([secret]).untouched_utf8((text + secret).encode()) is False
        assert Redactor([secret]).untouched_utf8(text.encode()) is expected
    finally:
        core_redact._trigger_finder = saved
    if expected:
        assert Redactor([]).text(text) == text


def test_the_one_pass_search_is_there() -> None:
    """The dependency is installed (so the fast path is the one measured), and its answer
    on a long text with one trigger at the end is the exact one."""
    assert core_redact._trigger_finder() is not None
    long = (FILLER * 40).encode()
    assert core_redact._has_trigger(long) is False
    assert core_redact._has_trigger(long + b"bearer") is True
    assert Redactor([]).untouched_utf8(long + b"Authorization") is False
    assert Redactor([]).untouched_utf8("Straße ".encode() + long) is True


@pytest.mark.parametrize("value", [
    {"a": 1.5, "b": [True, None, "é\n\"q\""], "c": {"d": float("nan")}},
    [1, 2, 3], 7, 0.1, "plain", None, {1: "int key", None: "none key"},
    {"path": Path("/tmp/x"), "t": (1, (2, 3))}, {"inf": float("-inf")},
])
def test_json_text_is_json_dumps(value: Any) -> None:
    assert json_text(value) == json.dumps(value, ensure_ascii=False, default=str)


def test_json_text_after_an_error_still_encodes_right() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        json_text({"a": loop})
    shared = [1]
    assert json_text({"x": shared, "y": shared}) == '{"x": [1], "y": [1]}'

    class Bad:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    with pytest.raises(RuntimeError, match="no text"):
        json_text({"a": [Bad()]})
    assert json_text({"a": [1, {"b": 2}]}) == '{"a": [1, {"b": 2}]}'


def test_pool_workers_pack_records_the_driver_writes_as_it_would_encode_them(
        tmp_path: Path) -> None:
    from accord.bench import BenchOptions, ProcessExecutor, expand, parse_config, run_bench

    cfg = {"name": "s", "domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
           "agents": [["boulware", "conceder"], ["linear", "tit-for-tat"]], "seeds": 2}
    plan = expand(parse_config(cfg))
    st, _ = _store(tmp_path / "probe.db", [], 2)
    spec = st.encoder_spec()
    ex = ProcessExecutor(2)
    ex.encode_for(spec)

    async def run() -> list[EpisodeRecord]:
        tasks = [EpisodeTask(e.id, e.spec, e.repeat, "s") for e in plan.episodes[:4]]
        return [r async for r in ex.run(tasks)]

    recs = asyncio.run(run())
    assert recs and all(r.packed is not None and r.packed[0] == st.encoder().key
                        and r.worker.rsplit(":", 1)[1] != str(os.getpid()) for r in recs)
    for rec in recs:  # what the worker packed is what the driver would have encoded
        plain = EpisodeRecord(**{**rec.__dict__, "packed": None})
        assert st.encode("s", rec, 1) == st.encode("s", plain, 1)
    st.close()
    # a whole run through the pool stores what the in-process run stores, byte for byte
    conf = parse_config({**cfg, "agents": [["boulware", "conceder"]]})
    cols = ("SELECT e.id, status, outcome, summary, metrics, usage, error, t.jsonl FROM "
            "episodes e LEFT JOIN trajectories t ON t.run=e.run AND t.id=e.id ORDER BY e.seq")
    got = {}
    for executor in ("local", "process"):
        path = tmp_path / f"{executor}.db"
        rep = run_bench(conf, BenchOptions(store=path, executor=executor, concurrency=2,
                                           quiet=True))
        assert rep.done == len(expand(conf).episodes)
        with Store.open(path, create=False) as s:
            rows = s.conn.execute(cols).fetchall()
        # summaries and trajectories hold wall times: compare the decoded text minus those
        got[executor] = [(i, stt, o, m, u, e) for i, stt, o, _, m, u, e, _ in rows]
        assert all(isinstance(r[3], bytes) and isinstance(r[7], bytes) for r in rows)
    assert got["local"] == got["process"]


class _Color(enum.Enum):
    RED = 1


class _Level(enum.IntEnum):
    HIGH = 3


class _Name(str):
    pass


@pytest.mark.parametrize("value", [
    {"a": 1.5, "b": [True, None, "é\n\"q\"\x00\u2028"], "c": {"d": -0.0, "e": 1e-05}},
    {"big": 2**70, "neg": -(2**63) - 1, "ok": 2**63 - 1}, [1e300, 5e-324, 0.1],
    {"nan": float("nan")}, {"inf": [float("inf")]}, {"ninf": {"x": float("-inf")}},
    {1: "int key", None: "none key", 2.5: "float key", False: "bool key"},
    {"path": Path("/tmp/x"), "t": (1, (2, 3))}, {"enum": _Color.RED}, {"int enum": _Level.HIGH},
    {"str subclass": _Name("x")}, {_Name("k"): 1}, {"np": np.float64(0.25)},
    {"np int": np.int64(7)}, {"set": {1}}, [], {}, "s", 7, None, 0.5,
])
def test_json_bytes_decodes_to_what_json_dumps_wrote(value: Any) -> None:
    """The store's JSON (orjson where it can, json.dumps otherwise) reads back as the old
    text: NaN and infinities, enums, subclasses, non-str keys and huge ints go to json."""
    old = json.dumps(value, ensure_ascii=False, default=str)
    got = json_bytes(value).decode("utf-8")
    assert repr(json.loads(got)) == repr(json.loads(old))  # repr: NaN equals itself
    if not plain(value):
        assert got == old  # not JSON's own types: json.dumps decides, byte for byte


def test_plain_accepts_exactly_json_types() -> None:
    assert plain({"a": [1, 2.5, "x", None, True, (1, {"b": -0.0})]})

    for bad in (float("nan"), [float("inf")], {"x": {"y": float("-inf")}}, _Color.RED,
                _Level.HIGH, _Name("s"), np.float64(1.0), Path("/"), {"a": {1}}, b"x"):
        assert not plain(bad), bad


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids,
                                                              max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_json_bytes_reads_as_json_dumps_for_any_json_value(value: Any) -> None:
    try:
        old = json.dumps(value, ensure_ascii=False, default=str)
        old.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the store cannot write it either way
        with pytest.raises(UnicodeEncodeError):
            json_bytes(value)
        return
    assert repr(json.loads(json_bytes(value))) == repr(json.loads(old))


@pytest.mark.parametrize("value", [
    {"a": 1.5, "b": [True, None, "é\n\"q\"\x00\u2028"], "c": {"d": -0.0, "e": 1e-05}},
    {"big": 2**70, "neg": -(2**63) - 1, "ok": 2**63 - 1}, {"nan": float("nan")},
    {1: "int key", None: "none key", 2.5: "float key"}, {"path": Path("/tmp/x")},
    {"enum": _Color.RED}, {"int enum": _Level.HIGH}, {"str subclass": _Name("x")},
    {_Name("k"): 1}, {"np": np.float64(0.25)}, {"np int": np.int64(7)}, {"set": {1}},
])
def test_a_value_jsonable_made_is_written_as_json_dumps_reads_it(value: Any) -> None:
    """A record's values made by ``jsonable`` skip the type walk (``made_jsonable``) and
    still read back as ``json.dumps`` of the same value (``str`` subclasses and huge ints
    included: orjson writes the former as text, refuses the latter)."""
    made = jsonable(value)
    old = json.dumps(made, ensure_ascii=False, default=str)
    assert repr(json.loads(json_bytes(made, made_jsonable=True))) == repr(json.loads(old))


@settings(max_examples=200, deadline=None)
@given(JSONISH)
def test_made_jsonable_reads_as_json_dumps_for_any_json_value(value: Any) -> None:
    made = jsonable(value)
    try:
        old = json.dumps(made, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            json_bytes(made, made_jsonable=True)
        return
    assert repr(json.loads(json_bytes(made, made_jsonable=True))) == repr(json.loads(old))


def test_records_an_episode_finished_say_their_values_are_jsonable() -> None:
    """``EpisodeRecord.finish`` marks its values; a record made by hand is not marked (the
    store checks its types), and ``dataclasses.replace`` keeps the mark."""
    spec = EpisodeSpec("bargaining", "buyer-seller", tuple(parse_agent_list("boulware,linear")),
                       {}, 0)
    rec = asyncio.run(execute(EpisodeTask("e1", spec, 0, "r")))
    assert rec.status == "done" and rec.made_jsonable
    assert replace(rec, packed=None).made_jsonable
    assert not EpisodeRecord("e2", "done", summary={"x": float("nan")}).made_jsonable
