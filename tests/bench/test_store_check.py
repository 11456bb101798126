"""Issue 24, items 3 and 7: stores checked on open, ``accord store check [--repair]``, and
stores readable on read-only media.

Damage is made for real (a page of a healthy store overwritten); read-only media cannot
be made with ``chmod`` when the tests run as root (root writes anyway), so the read-only
tests do two honest things instead: they check the *decision* (``os.access`` patched to
say "not writable" makes the store open ``immutable=1``) and that an ``immutable=1`` open
really reads everything with no ``-shm`` file created; and, when not root, a real
``chmod`` folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench.store import Store, StoreError
from accord.bench.storecheck import check_store, repair_store
from accord.cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "demo.db"
    res = runner.invoke(app, ["bench", "demo", "--out", str(path), "--json", "--quiet"])
    assert res.exit_code == 0, res.stderr
    return path


def _episode_ids(path: Path) -> set[str]:
    with Store.open_readonly(path) as st:
        return {e.id for e in st.episodes()}


def _damage(src: Path, dest: Path, page: int) -> Path:
    raw = bytearray(src.read_bytes())
    raw[(page - 1) * 4096:page * 4096] = b"\xff" * 4096
    dest.write_bytes(bytes(raw))
    return dest


def test_open_checks_integrity_and_names_the_command(healthy: Path, tmp_path: Path) -> None:
    bad = _damage(healthy, tmp_path / "bad.db", healthy.stat().st_size // 4096)
    for opener in (Store.open_readonly, lambda p: Store.open(p, create=False)):
        with pytest.raises(StoreError, match=r"store damaged: .*run `accord store check "):
            opener(bad)


def test_a_whole_store_checks_ok(healthy: Path) -> None:
    report = check_store(healthy)
    assert report.ok and report.integrity == ["ok"]
    assert report.episodes == report.readable == len(_episode_ids(healthy)) > 0
    res = runner.invoke(app, ["store", "check", str(healthy), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["ok"] is True


@pytest.mark.parametrize("which", ["last", "middle"])
def test_repair_recovers_every_readable_episode(healthy: Path, tmp_path: Path,
                                                which: str) -> None:
    pages = healthy.stat().st_size // 4096
    page = pages if which == "last" else pages // 2
    bad = _damage(healthy, tmp_path / "bad.db", page)
    out = tmp_path / "fixed.db"
    res = runner.invoke(app, ["store", "check", str(bad), "--json"])
    assert res.exit_code == 1  # damage found
    assert json.loads(res.stdout)["ok"] is False
    res = runner.invoke(app, ["store", "check", str(bad), "--repair", str(out), "--json"])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    got = _episode_ids(out)
    assert data["repaired"]["episodes"] == len(got) == data["readable"]
    assert data["readable"] + data["lost"] == data["episodes"]
    assert got <= _episode_ids(healthy) and got  # only real episodes, and some of them
    assert check_store(out).ok  # the copy is whole and opens everywhere
    res = runner.invoke(app, ["results", str(out), "--json"])
    assert res.exit_code == 0, res.stderr
    assert bad.read_bytes() == _damage(healthy, tmp_path / "again.db", page).read_bytes()


def test_repair_reads_row_by_row_past_a_damaged_table_page(healthy: Path,
                                                           tmp_path: Path) -> None:
    """Damage one leaf page of the episodes table: the rows on the other pages survive."""
    with sqlite3.connect(f"file:{healthy}?mode=ro", uri=True) as conn:
        leaf = conn.execute("SELECT pageno FROM dbstat WHERE name='episodes' AND "
                            "pagetype='leaf' ORDER BY pageno LIMIT 1").fetchone() \
            if _has_dbstat(conn) else None
    conn.close()
    if leaf is None:
        pytest.skip("SQLite without dbstat: cannot find a table leaf page")
    bad = _damage(healthy, tmp_path / "bad.db", int(leaf[0]))
    report = repair_store(bad, tmp_path / "fixed.db")
    total = len(_episode_ids(healthy))
    assert 0 < report.readable < total  # the other leaves' rows, not all, not none
    assert len(_episode_ids(tmp_path / "fixed.db")) == report.readable
    assert report.episodes == total  # the indexes still name the lost rows: counted


def _has_dbstat(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT 1 FROM dbstat LIMIT 1")
        return True
    except sqlite3.DatabaseError:
        return False


def test_repair_never_overwrites(healthy: Path, tmp_path: Path) -> None:
    out = tmp_path / "exists.db"
    out.write_text("keep me")
    res = runner.invoke(app, ["store", "check", str(healthy), "--repair", str(out)])
    assert res.exit_code == 2 and "exists" in res.stderr
    assert out.read_text() == "keep me"


def test_check_of_a_foreign_file(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"junk" * 1000)
    res = runner.invoke(app, ["store", "check", str(junk), "--json"])
    assert res.exit_code == 2
    assert "is not an accord store" in json.loads(res.stdout)["error"]["message"]


# -- read-only media --------------------------------------------------------------------

def _copy_closed(healthy: Path, folder: Path) -> Path:
    folder.mkdir()
    dest = folder / "demo.db"
    shutil.copy(healthy, dest)
    return dest


def test_an_unwritable_place_opens_immutable(healthy: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """What this proves: when the access check says the folder cannot be written, the store
    is opened ``immutable=1`` and reads every episode without creating ``-shm``/``-wal``
    files. (It does not prove the kernel refuses writes: see the non-root test.)"""
    path = _copy_closed(healthy, tmp_path / "ro")
    real = os.access

    def no_write(p: object, mode: int, *a: object, **k: object) -> bool:
        if mode & os.W_OK and str(p).startswith(str(path.parent)):
            return False
        return real(p, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", no_write)
    with Store.open_readonly(path) as st:
        assert st.immutable
        assert {e.id for e in st.episodes()} == _episode_ids(healthy)
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.db"]
    for args in (["results", str(path), "--json"], ["report", str(path), "--out",
                                                    str(tmp_path / "r.html")]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, (args, res.stderr)
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.db"]


def test_a_writable_place_keeps_the_wal_reader(healthy: Path, tmp_path: Path) -> None:
    path = _copy_closed(healthy, tmp_path / "rw")
    with Store.open_readonly(path) as st:
        assert not st.immutable  # a running bench's newest commits stay visible


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into a read-only folder anyway")
def test_a_read_only_folder_for_real(healthy: Path, tmp_path: Path) -> None:
    path = _copy_closed(healthy, tmp_path / "ro")
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        res = runner.invoke(app, ["results", str(path), "--json"])
        assert res.exit_code == 0, res.stderr
        res = runner.invoke(app, ["show", str(path), next(iter(_episode_ids(healthy))),
                                  "--json"])
        assert res.exit_code == 0, res.stderr
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)


def test_the_read_only_fallback_when_sqlite_cannot_make_its_shm(
        healthy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The access check says yes but SQLite cannot open ``mode=ro`` (a read-only mount
    that looks writable): the store is read immutable instead of failing."""
    path = _copy_closed(healthy, tmp_path / "mount")
    expected = len(_episode_ids(healthy))
    real = Store._connect_readonly.__func__  # type: ignore[attr-defined]
    calls: list[bool] = []

    def fake(cls: type[Store], p: Path, immutable: bool, check: bool) -> Store:
        calls.append(immutable)
        if not immutable:
            raise sqlite3.OperationalError("unable to open database file")
        return real(cls, p, immutable, check)

    monkeypatch.setattr(Store, "_connect_readonly", classmethod(fake))
    with Store.open_readonly(path) as st:
        assert st.immutable and len(st.episodes()) == expected
    assert calls == [False, True]
