"""Fetch the Deal-or-No-Deal files from upstream for a user and verify their SHA-256 sums.

The expected digests ship with accord (``data/SHA256SUMS.txt``); the files themselves
(CC BY-NC 4.0) do not. A download goes to a temporary file beside its destination and is
renamed into place only when its digest matches, so a failed or tampered download never
leaves a file that looks valid. This module is the only one in the domain that touches
the network.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from accord.core.safeload import parse_yaml
from accord.domains.deal_or_no_deal.location import dataset_dir

_CHUNK = 1 << 16


class ChecksumError(ValueError):
    """A file whose SHA-256 digest differs from the expected one."""


class FetchError(OSError):
    """A file that could not be fetched (no network, a wrong URL, an HTTP error); the
    message names the URL. Errors writing the destination stay plain ``OSError``."""


@dataclass(frozen=True, slots=True)
class FetchReport:
    """What :func:`download` did for one file: ``fetched``, ``present`` (already valid)."""

    name: str
    path: Path
    status: str
    sha256: str


def parse_sha256sums(text: str, source: str = "SHA256SUMS") -> dict[str, str]:
    """Parse ``sha256sum`` output (``<hex>  <name>`` per line) into ``{name: hex}``."""
    out: dict[str, str] = {}
    for num, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*")
        if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest) \
                or not name:
            raise ValueError(f"{source}:{num}: expected '<64 hex digits>  <file name>', "
                             f"got {line.strip()!r}")
        out[name] = digest.lower()
    return out


def expected_sums() -> dict[str, str]:
    """The digests accord ships for the upstream files."""
    text = resources.files("accord.domains.deal_or_no_deal").joinpath(
        "data/SHA256SUMS.txt").read_text(encoding="utf-8")
    return parse_sha256sums(text, "accord/domains/deal_or_no_deal/data/SHA256SUMS.txt")


def upstream() -> dict[str, Any]:
    """The upstream description: ``base_url``, ``license`` and ``files``."""
    text = resources.files("accord.domains.deal_or_no_deal").joinpath(
        "data/upstream.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = parse_yaml(text, "deal_or_no_deal/data/upstream.yaml").data
    return data


def _file_urls(meta: dict[str, Any]) -> dict[str, str]:
    """``{file name: URL}`` from the upstream description: a plain name lives under
    ``base_url``; an entry ``{name, url}`` names its own source."""
    base = str(meta["base_url"]).rstrip("/") + "/"
    out: dict[str, str] = {}
    for entry in meta["files"]:
        if isinstance(entry, str):
            out[entry] = base + entry
        else:
            out[str(entry["name"])] = str(entry["url"])
    return out


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 digest of a file, read in chunks."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_file(path: str | Path, expected: str) -> str:
    """Return the digest of ``path``; raise :class:`ChecksumError` when it is not ``expected``."""
    got = sha256_file(path)
    if got != expected.lower():
        raise ChecksumError(f"{path}: SHA-256 {got} does not match the expected {expected}")
    return got


def verify_dir(folder: str | Path, sums: dict[str, str] | None = None,
               names: Sequence[str] | None = None) -> dict[str, str]:
    """Verify files in ``folder`` against ``sums`` (default: ``folder/SHA256SUMS``).

    Only ``names`` are checked when given; a listed file that is missing is an error.
    """
    base = Path(folder)
    if sums is None:
        sums_path = base / "SHA256SUMS"
        if not sums_path.is_file():
            raise FileNotFoundError(f"{sums_path}: no SHA256SUMS file to verify against")
        sums = parse_sha256sums(sums_path.read_text(encoding="utf-8"), str(sums_path))
    out: dict[str, str] = {}
    for name in names or sorted(sums):
        if name not in sums:
            raise KeyError(f"no expected SHA-256 for {name!r} (known: {', '.join(sorted(sums))})")
        target = base / name
        if not target.is_file():
            raise FileNotFoundError(f"{target}: listed in SHA256SUMS but missing")
        out[name] = verify_file(target, sums[name])
    return out


def _fetch(url: str, target: Path, expected: str, timeout: float) -> str:
    tmp = target.with_name(f".{target.name}.part")
    h = hashlib.sha256()
    try:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp, tmp.open("wb") as out:
                while chunk := resp.read(_CHUNK):
                    h.update(chunk)
                    out.write(chunk)
        except (urllib.error.URLError, TimeoutError, ConnectionError,
                http.client.HTTPException) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            raise FetchError(f"cannot fetch {url}: {reason}") from exc
        got = h.hexdigest()
        if got != expected:
            raise ChecksumError(f"{url}: SHA-256 {got} does not match the expected {expected}; "
                                "the file was not saved")
        os.replace(tmp, target)
        return got
    finally:
        if tmp.exists():
            tmp.unlink()


def download(dest: str | Path | None = None, *, names: Sequence[str] | None = None,
             base_url: str | None = None, force: bool = False, timeout: float = 60.0,
             progress: Callable[[str], None] | None = None) -> list[FetchReport]:
    """Fetch the data files into ``dataset_dir(dest)`` and verify each one.

    ``dest`` follows the precedence of :mod:`~accord.domains.deal_or_no_deal.location`
    (explicit, ``ACCORD_DATA``, user default). A file already present with the right digest
    is kept unless ``force``. ``base_url`` overrides the upstream folder (any ``http://``,
    ``https://`` or ``file://`` URL ending in ``/``). Writes ``SHA256SUMS`` beside the files.
    """
    meta = upstream()
    sums = expected_sums()
    urls = _file_urls(meta)
    wanted = list(names or urls)
    unknown = [n for n in wanted if n not in sums]
    if unknown:
        raise KeyError(f"no expected SHA-256 for {', '.join(unknown)}; "
                       f"downloadable: {', '.join(sorted(sums))}")
    if base_url is not None and not base_url.endswith("/"):
        base_url += "/"
    folder = dataset_dir(dest)
    folder.mkdir(parents=True, exist_ok=True)
    reports: list[FetchReport] = []
    for name in wanted:
        target = folder / name
        if target.is_file() and not force and sha256_file(target) == sums[name]:
            reports.append(FetchReport(name, target, "present", sums[name]))
            continue
        url = base_url + name if base_url is not None else urls.get(
            name, str(meta["base_url"]).rstrip("/") + "/" + name)
        if progress is not None:
            progress(f"fetching {url}")
        digest = _fetch(url, target, sums[name], timeout)
        reports.append(FetchReport(name, target, "fetched", digest))
    lines = "".join(f"{sums[n]}  {n}\n" for n in sorted(wanted))
    (folder / "SHA256SUMS").write_text(lines, encoding="utf-8")
    return reports

