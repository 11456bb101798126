"""``Store.write_many``: several episodes in one transaction, read back exactly as
``Store.write`` stores them, all or none committed, redacted like every write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accord.bench import EpisodeRecord, Store, expand, parse_config

PROV = {"accord_version": "0.1.0", "git_commit": None, "cwd_commit": None, "host": "h"}


def _plan(n: int) -> Any:
    return expand(parse_config({"name": "s", "domain": "bargaining", "scenarios": ["split"],
                                "agents": [["linear", "conceder"]], "seeds": n}))


def _store(path: Path, plan: Any) -> tuple[Store, int]:
    st = Store.open(path)
    sid = st.begin_session("s", {"name": "s"}, None, PROV, "local", 1)
    st.add_planned("s", plan.episodes)
    return st, sid


def _records(plan: Any) -> list[EpisodeRecord]:
    out = []
    for k, e in enumerate(plan.episodes):
        if k % 3 == 2:
            out.append(EpisodeRecord(e.id, "failed", error=f"RuntimeError: boom {k}",
                                     started=1.0 + k, finished=2.0 + k, worker="w"))
        else:
            out.append(EpisodeRecord(
                e.id, "done", "agreement", {"status": "agreement", "k": k, "u": 0.1 * k},
                {"welfare": 0.5 + k}, f'{{"seq": {k}}}\n{{"seq": {k + 1}}}\n',
                {"buyer": {"input_tokens": k}} if k % 2 else None, None, 0.25 * k,
                1.0 + k, 2.0 + k, "w"))
    return out


def _dump(st: Store) -> list[tuple[Any, ...]]:
    raw = {row[0]: row[1:] for row in st.conn.execute(
        "SELECT id, started, worker, session FROM episodes")}
    return [(r.id, r.status, r.outcome, r.summary, r.metrics, r.usage, r.error, r.wall_time,
             r.finished, r.attempts, st.trajectory("s", r.id), raw[r.id])
            for r in st.episodes("s")]


@pytest.mark.parametrize("fmt", [1, 2])
def test_write_many_stores_what_write_stores(tmp_path: Path, fmt: int) -> None:
    plan = _plan(7)
    recs = _records(plan)
    stores = []
    for name in ("one", "many"):
        path = tmp_path / f"{name}.db"
        if fmt == 1:
            from accord.testing.legacy_store import create_format1_store

            create_format1_store(path)
        st, sid = _store(path, plan)
        assert st.format == fmt
        if name == "one":
            for rec in recs:
                st.write("s", rec, sid)
        else:
            st.write_many("s", recs[:4], sid)
            st.write_many("s", recs[4:], sid)
            st.write_many("s", [], sid)  # nothing to do
        stores.append(st)
    one, many = (_dump(st) for st in stores)
    assert one == many
    assert [row[1] for row in many].count("done") == 5
    assert many[2][6] == "RuntimeError: boom 2" and many[2][10] is None
    assert many[2][11] == (3.0, "w", 1)
    assert many[1][10] == '{"seq": 1}\n{"seq": 2}\n' and many[1][5] == {
        "buyer": {"input_tokens": 1}}
    for st in stores:
        st.close()


def test_a_batch_is_committed_whole_or_not_at_all(tmp_path: Path) -> None:
    """An episode is done only once committed: a batch that fails half-way leaves every
    episode of it pending (to run again on resume), none half-written."""
    plan = _plan(3)
    st, sid = _store(tmp_path / "s.db", plan)
    good, bad = _records(plan)[:2]
    bad.wall_time = object()  # type: ignore[assignment]  # SQLite cannot bind it
    with pytest.raises(Exception, match=r"(?i)bind|type"):
        st.write_many("s", [good, bad], sid)
    assert {s for s, _ in st.statuses("s").values()} == {"pending"}
    assert st.trajectory("s", good.id) is None
    st.write_many("s", [good], sid)  # the store is still usable
    assert st.statuses("s")[good.id] == ("done", "agreement")
    st.close()


def test_write_many_redacts_every_record(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-1234567890abcdefghijklmnop"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    plan = _plan(2)
    st, sid = _store(tmp_path / "r.db", plan)
    a, b = (e.id for e in plan.episodes)
    st.write_many("s", [
        EpisodeRecord(a, "done", "agreement", {"detail": f"key {key}"}, {"x": 1},
                      f'{{"feedback": "Authorization: Bearer {key}"}}\n'),
        EpisodeRecord(b, "failed", error=f"AuthenticationError: {key} rejected")], sid)
    texts = [str(_dump(st))]
    assert key not in texts[0] and "[REDACTED]" in texts[0]
    st.close()


def _batches_of(items: list[Any], limit: int) -> tuple[list[list[str]], BaseException | None]:
    """What :func:`accord.bench.runner.finished_batches` makes of a source that hands over
    ``items`` (records, or an exception to raise) all in one go, as finished episodes pile
    up while the driver writes."""
    import asyncio

    from accord.bench.runner import finished_batches

    async def source() -> Any:
        for item in items:
            if isinstance(item, BaseException):
                raise item
            yield item

    async def main() -> tuple[list[list[str]], BaseException | None]:
        got: list[list[str]] = []
        try:
            async for batch in finished_batches(source(), limit):
                got.append([r.id for r in batch])
        except ValueError as exc:
            return got, exc
        return got, None

    return asyncio.run(main())


def test_records_that_piled_up_are_committed_together() -> None:
    recs = [EpisodeRecord(f"e{k}", "done") for k in range(5)]
    assert _batches_of(recs, 64) == ([["e0", "e1", "e2", "e3", "e4"]], None)
    assert _batches_of(recs, 2) == ([["e0", "e1"], ["e2", "e3"], ["e4"]], None)
    assert _batches_of([], 2) == ([], None)


def test_an_executor_error_comes_after_the_records_before_it() -> None:
    boom = ValueError("boom")
    got, err = _batches_of([EpisodeRecord("a", "done"), EpisodeRecord("b", "done"), boom], 64)
    assert got == [["a", "b"]] and err is boom
