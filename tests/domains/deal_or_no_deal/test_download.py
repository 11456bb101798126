"""Data location precedence, SHA256SUMS verification and the download helper (offline)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal import fetch as dl
from accord.domains.deal_or_no_deal.location import (
    DataNotFoundError,
    data_root,
    dataset_dir,
    split_file,
)

Files = dict[str, bytes]


def test_precedence_explicit_then_env_then_default(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ACCORD_DATA", raising=False)
    assert data_root() == tmp_path / "xdg" / "accord"
    monkeypatch.setenv("ACCORD_DATA", str(tmp_path / "env"))
    assert data_root() == tmp_path / "env"
    assert data_root(tmp_path / "explicit") == tmp_path / "explicit"
    assert dataset_dir(tmp_path / "explicit") == tmp_path / "explicit" / "dealornodeal"


def test_path_may_name_file_folder_or_root(tmp_path: Path) -> None:
    folder = tmp_path / "somewhere"
    folder.mkdir()
    (folder / "test.txt").write_text("", encoding="utf-8")
    assert split_file(folder) == folder / "test.txt"
    assert split_file(folder / "test.txt") == folder / "test.txt"
    root = tmp_path / "root"
    (root / "dealornodeal").mkdir(parents=True)
    (root / "dealornodeal" / "val.txt").write_text("", encoding="utf-8")
    assert split_file(root, "val") == root / "dealornodeal" / "val.txt"


def test_missing_data_says_how_to_fetch_it(tmp_path: Path) -> None:
    with pytest.raises(DataNotFoundError, match="accord dond download"):
        split_file(tmp_path / "nothing")
    with pytest.raises(ValueError, match="unknown split"):
        split_file(tmp_path, "train")


def test_parse_sha256sums_and_errors() -> None:
    text = f"{'a' * 64}  test.txt\n# comment\n\n{'B' * 64} *val.txt\n"
    assert dl.parse_sha256sums(text) == {"test.txt": "a" * 64, "val.txt": "b" * 64}
    with pytest.raises(ValueError, match=r"SUMS:2: expected"):
        dl.parse_sha256sums(f"{'a' * 64}  x\nnot-a-digest  y\n", "SUMS")


def test_verify_file_and_dir(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(b"hello\n")
    digest = hashlib.sha256(b"hello\n").hexdigest()
    assert dl.verify_file(f, digest) == digest
    with pytest.raises(dl.ChecksumError, match="does not match"):
        dl.verify_file(f, "0" * 64)
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  a.txt\n", encoding="utf-8")
    assert dl.verify_dir(tmp_path) == {"a.txt": digest}
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  a.txt\n{digest}  gone.txt\n",
                                         encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"gone\.txt"):
        dl.verify_dir(tmp_path)


def test_shipped_sums_match_shared_data(dond_dir: Path) -> None:
    shared = dl.parse_sha256sums((dond_dir / "SHA256SUMS").read_text(encoding="utf-8"))
    assert dl.expected_sums() == shared
    assert dl.verify_dir(dond_dir, names=["test.txt"]) == {"test.txt": shared["test.txt"]}


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Fake upstream files in tmp_path/up with the shipped sums patched to theirs."""
    files = {"test.txt": b"test data\n", "val.txt": b"val data\n", "data.txt": b"raw\n",
             "sample50.txt": b"fifty\n"}
    up = tmp_path / "up"
    up.mkdir()
    for name, body in files.items():
        (up / name).write_bytes(body)
    sums = {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}
    monkeypatch.setattr(dl, "expected_sums", lambda: sums)
    return files


@pytest.fixture
def http_base(tmp_path: Path) -> Iterator[str]:
    """A local HTTP server on 127.0.0.1 serving tmp_path/up."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path / "up"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_download_over_local_http(tmp_path: Path, upstream: Files, http_base: str) -> None:
    dest = tmp_path / "dest"
    reports = dl.download(dest, base_url=http_base)
    assert [r.status for r in reports] == ["fetched"] * 4
    folder = dest / "dealornodeal"
    assert (folder / "test.txt").read_bytes() == upstream["test.txt"]
    assert set(dl.verify_dir(folder)) == {"test.txt", "val.txt", "data.txt", "sample50.txt"}
    again = dl.download(dest, base_url=http_base)
    assert [r.status for r in again] == ["present"] * 4


def test_download_refuses_tampered_file(tmp_path: Path, upstream: Files, http_base: str) -> None:
    (tmp_path / "up" / "val.txt").write_bytes(b"tampered\n")
    dest = tmp_path / "dest"
    with pytest.raises(dl.ChecksumError, match=r"val\.txt"):
        dl.download(dest, base_url=http_base, names=["val.txt"])
    assert not any((dest / "dealornodeal").iterdir())  # no partial or bad file left


def test_download_from_file_url(tmp_path: Path, upstream: Files,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_DATA", str(tmp_path / "envroot"))
    reports = dl.download(base_url=(tmp_path / "up").as_uri(), names=["test.txt"])
    assert reports[0].path == tmp_path / "envroot" / "dealornodeal" / "test.txt"
    with pytest.raises(KeyError, match="no expected SHA-256"):
        dl.download(tmp_path / "x", names=["train.txt"])


def test_upstream_names_a_source_for_every_shipped_sum() -> None:
    urls = dl._file_urls(dl.upstream())
    assert set(urls) == set(dl.expected_sums())
    assert urls["test.txt"].endswith("/src/data/negotiate/test.txt")
    assert "Wenyueh/game_theory" in urls["sample50.txt"]


def test_unreachable_url_is_a_fetch_error_naming_it(tmp_path: Path) -> None:
    """A port bound but not listening refuses connections: offline without the internet."""
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{closed.getsockname()[1]}/"
        with pytest.raises(dl.FetchError, match=f"cannot fetch {base}test.txt"):
            dl.download(tmp_path / "d", names=["test.txt"], base_url=base, timeout=10)
    missing = (tmp_path / "nowhere").as_uri() + "/"
    with pytest.raises(dl.FetchError, match="cannot fetch file://"):
        dl.download(tmp_path / "d", names=["test.txt"], base_url=missing)
    assert not list((tmp_path / "d").rglob("*.txt"))  # nothing half-written
