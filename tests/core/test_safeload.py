"""accord.core.safeload: the budgets every input file is read under (issue 12)."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pytest

from accord.core import safeload as s
from accord.core.safeload import Limits, LoadError


def _refuses(text: str, fragment: str, *, fmt: str = "yaml", limits: Limits | None = None
             ) -> LoadError:
    parse = s.parse_yaml if fmt == "yaml" else s.parse_json
    with pytest.raises(LoadError) as info:
        parse(text, "f.yaml", limits)
    assert fragment in str(info.value), str(info.value)
    assert len(str(info.value)) < 1500
    return info.value


def test_plain_documents_and_key_lines() -> None:
    doc = s.parse_yaml("a:\n  b: [1, 2]\n  c:\n    - {d: x}\n", "f.yaml")
    assert doc.data == {"a": {"b": [1, 2], "c": [{"d": "x"}]}}
    assert doc.lines[("a", "b")] == 2 and doc.lines[("a", "c", 0, "d")] == 4
    assert doc.line(("a", "c", 0, "nope")) == 4
    assert s.parse_yaml("", "f.yaml").data is None
    assert s.parse_json('{"a": [1, 2.5, null]}', "f.json").data == {"a": [1, 2.5, None]}


def test_aliases_within_budget_and_merge_keys_are_fine() -> None:
    doc = s.parse_yaml("base: &b {x: 1, y: 2}\nuse: {<<: *b, y: 3}\nlist: [*b, *b]\n", "f")
    assert doc.data["use"] == {"x": 1, "y": 3} and doc.data["list"] == [{"x": 1, "y": 2}] * 2


def test_billion_laughs_is_refused_fast() -> None:
    t0 = time.perf_counter()
    err = _refuses("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi",
                                                                      strict=True)),
        "aliases expand")
    assert err.line is None and time.perf_counter() - t0 < 30  # a guard, not a benchmark


def test_alias_count_and_cycles() -> None:
    _refuses("x: &x 1\ny: [" + ", ".join(["*x"] * 101) + "]\n", "more than 100 alias uses")
    assert s.parse_yaml("x: &x 1\ny: [" + ", ".join(["*x"] * 100) + "]\n", "f").data["y"]
    err = _refuses("a: &a [1, *a]\n", "cyclic alias")
    assert err.line == 1
    _refuses("a: &a {b: {c: *a}}\n", "cyclic alias")


@pytest.mark.parametrize("text", ["a: " + "[" * 101 + "]" * 101, "- " * 101 + "x",
                                  "".join("  " * i + "k:\n" for i in range(101)),
                                  "a: " + "{b: " * 101 + "1" + "}" * 101])
def test_depth_cap_yaml(text: str) -> None:
    _refuses(text, "nesting deeper than 100 levels")


def test_depth_cap_json_and_data() -> None:
    _refuses("[" * 101 + "]" * 101, "nesting deeper", fmt="json")
    _refuses("[" * 200_000 + "]" * 200_000, "nesting deeper", fmt="json")
    assert s.parse_json("[" * 99 + "]" * 99, "f").data is not None
    _refuses("[" * 30 + "]" * 30, "nesting deeper than 20", fmt="json",
             limits=Limits(max_depth=20))


@pytest.mark.parametrize("text, fragment", [
    ("x: .nan", "not a finite number"), ("x: -.inf", "not a finite number"),
    ("x: 1.0e+400", "not a finite number"), ("x: 1.0e+16", "out of range"),
    ("x: 10000000000000001", "out of range"), ("x: 1.0e-320", "too small"),
    ("x: " + "9" * 100, "number literal of 100 characters"), ("{1.0e+300: a}", "key"),
])
def test_numbers_yaml(text: str, fragment: str) -> None:
    _refuses(text, fragment)


@pytest.mark.parametrize("text, fragment", [
    ('{"x": NaN}', "finite"), ('{"x": -Infinity}', "finite"), ('{"x": 1e400}', "1e400"),
    ('{"x": 1e16}', "out of range"), ('{"x": 1e-320}', "too small"),
    ('{"x": ' + "9" * 5000 + "}", "number literal of 5000 characters"),
])
def test_numbers_json(text: str, fragment: str) -> None:
    _refuses(text, fragment, fmt="json")


def test_numbers_in_range_and_zero_pass() -> None:
    data = s.parse_yaml("a: [0, 0.0, -0.0, 1.0e-15, 1.0e+15, -1000000000000000, 0.1]\n",
                        "f").data
    assert data["a"][3] == 1e-15 and s.number_problem(math.pi) is None
    assert s.number_problem(True) is None and s.number_problem("1e400") is None


def test_duplicate_keys() -> None:
    err = _refuses("a: 1\nb: 2\na: 3\n", "duplicate key")
    assert err.key == ("a",) and err.line == 3
    _refuses('{"a": 1, "a": 2}', "duplicate key", fmt="json")
    assert s.parse_yaml("m: &m {a: 1}\nn: {<<: *m, a: 2}\n", "f").data["n"] == {"a": 2}


def test_syntax_errors_and_tags() -> None:
    assert _refuses("a: [1, 2\n", "invalid YAML").line is not None
    _refuses("!!python/object/apply:os.system ['true']\n", "invalid YAML")
    _refuses("a: 1\n---\nb: 2\n", "single document")
    _refuses("a: \x00\n", "U+0000")
    err = _refuses('{"a": }', "invalid JSON", fmt="json")
    assert (err.line, err.column) == (1, 7) and err.position == "line 1 column 7"


def test_yaml_text_size_cap() -> None:
    _refuses("a: " + "x" * 2000 + "\n", "more than the limit of 1,000",
             limits=Limits(max_yaml_bytes=1000))


def test_files_regular_utf8_and_capped(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert s.load_yaml(good).data == {"a": 1}
    assert s.load_data(good).data == {"a": 1}
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(LoadError, match=r"bad.yaml:2: not UTF-8 text: byte 0xe9") as info:
        s.load_yaml(bad)
    assert info.value.stage == "read" and info.value.key_text() == "<file>"
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(17 * 1024 * 1024)
    with pytest.raises(LoadError, match="more than the limit of 16,777,216"):
        s.load_json(big)
    with pytest.raises(LoadError, match="not a regular file"):
        s.read_bytes("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(LoadError, match="not a regular file"):
        s.read_text(fifo)  # opening must not block waiting for a writer
    with pytest.raises(LoadError, match="is a directory"):
        s.read_text(tmp_path)
    with pytest.raises(LoadError, match="No such file"):
        s.read_text(tmp_path / "missing.yaml")
    long = tmp_path / ("n" * 5000)
    with pytest.raises(LoadError, match="too long") as info:
        s.read_text(long)
    assert len(str(info.value)) < 500


def test_size_cap_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": "' + "x" * 100 + '"}')
    monkeypatch.setenv(s.SIZE_ENV, "50")
    with pytest.raises(LoadError, match=f"set {s.SIZE_ENV}"):
        s.load_json(path)
    monkeypatch.setenv(s.SIZE_ENV, "5000")
    assert s.load_json(path).data["a"] == "x" * 100
    assert Limits.default({s.SIZE_ENV: "junk"}) == Limits()


def test_short_and_clip_bound_what_errors_echo() -> None:
    assert len(s.short("x" * 100_000)) < 250 and len(s.short([[["x" * 1000] * 100] * 100])) < 250
    nested: list[object] = []
    nested.append(nested)
    assert "..." in s.short(nested) or "[" in s.short(nested)
    assert s.clip("abc", 10) == "abc" and "(5 more characters)" in s.clip("x" * 15, 10)
    assert len(str(LoadError("f" * 5000, "p" * 5000, ("k" * 5000,)))) < 1500


def test_unknown_keys_and_names() -> None:
    assert s.unknown_keys({"weights": 1}, ["weights"]) is None
    key, text = s.unknown_keys({"wieghts": 1}, ["weights", "values"]) or ("", "")
    assert key == "wieghts" and "did you mean 'weights'" in text
    assert s.check_name("n" * 201, "scenario") and s.check_name("ok", "scenario") is None
    assert not s.is_file("n" * 5000) and not s.exists("n" * 5000)
