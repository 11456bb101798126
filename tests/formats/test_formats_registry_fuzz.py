"""The importer mechanism: the registry, the entry-point group, FORMAT:PATH resolution,
and the importers fuzzed like the other loaders (mutated files end in success or a
FormatError, never another exception)."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest
from formatslib import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario
from accord.domains.bargaining.load import ScenarioError
from accord.formats import FormatError, Imported, formats, get_format, register_format
from accord.formats.genius import GeniusImporter
from accord.formats.geniusweb import GeniusWebImporter
from accord.formats.registry import _REGISTERED, split_target

EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))
REPO = Path(__file__).resolve().parents[2]


class _TinyImporter:
    """A format another package could add: a two-line text file, one issue."""

    name = "tiny"
    description = "test format"

    def read(self, path: str) -> Imported:
        lines = Path(path).read_text(encoding="utf-8").split()
        return Imported({"name": "tiny", "issues": {"x": lines},
                         "parties": {"a": {"batna": 0, "utility": {
                             "weights": {"x": 1}, "values": {"x": {v: i for i, v in
                                                                   enumerate(lines)}}}},
                                     "b": {"batna": 0, "utility": {
                                         "weights": {"x": 1}, "values": {"x": {v: -i for i, v in
                                                                               enumerate(lines)}}}}}})


def test_builtins_are_known_without_entry_points() -> None:
    known = formats()
    assert isinstance(known["genius"], GeniusImporter)
    assert isinstance(known["geniusweb"], GeniusWebImporter)
    with pytest.raises(FormatError, match=r"unknown format; known formats: .*genius"):
        get_format("nope")


def test_pyproject_declares_the_builtins_under_the_entry_point_group() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    group = meta["project"]["entry-points"]["accord.formats"]
    assert group == {"genius": "accord.formats.genius:GeniusImporter",
                     "geniusweb": "accord.formats.geniusweb:GeniusWebImporter",
                     "negotiationarena":
                         "accord.formats.negotiationarena:NegotiationArenaImporter",
                     "llm-deliberation":
                         "accord.formats.llm_deliberation:LLMDeliberationImporter",
                     "scorable-games":
                         "accord.formats.llm_deliberation:LLMDeliberationImporter"}


def test_a_registered_format_works_as_a_target(tmp_path: Path) -> None:
    src = tmp_path / "values.txt"
    src.write_text("low mid high", encoding="utf-8")
    assert split_target(f"tiny:{src}") is None  # not known yet: not a format prefix
    register_format(_TinyImporter())
    try:
        assert split_target(f"tiny:{src}") == ("tiny", str(src))
        scenario = resolve_scenario(f"tiny:{src}")
        assert scenario.space.size == 3 and scenario.party_names == ("a", "b")
    finally:
        _REGISTERED.pop("tiny", None)
    with pytest.raises(TypeError, match="not an Importer"):
        register_format(object())  # type: ignore[arg-type]


def test_unknown_prefix_is_still_an_unknown_scenario() -> None:
    with pytest.raises(ScenarioError, match="unknown bargaining scenario"):
        resolve_scenario("nosuchformat:somewhere")


class _NotingImporter(_TinyImporter):
    """The tiny format with a note about something the import could not carry over."""

    name = "noting"

    def read(self, path: str) -> Imported:
        return Imported(super().read(path).data, ("the source's colours were dropped",))


def test_run_prints_an_import_note_on_stderr(tmp_path: Path) -> None:
    src = tmp_path / "values.txt"
    src.write_text("low mid high", encoding="utf-8")
    register_format(_NotingImporter())
    try:
        res = CliRunner().invoke(app, ["run", f"noting:{src}",
                                       "--agents", "boulware,conceder", "--json"])
    finally:
        _REGISTERED.pop("noting", None)
    assert res.exit_code == 0, res.output
    assert "colours were dropped" in res.stderr
    assert "colours" not in res.stdout


def test_a_genius_discount_is_applied_not_noted() -> None:
    """The Genius fixture's party1 has discount_factor 0.9: no note, and the run's record
    carries the discounted utilities (u x 0.9^t)."""
    res = CliRunner().invoke(app, ["run", f"genius:{FIXTURES / 'genius' / 'party'}",
                                   "--agents", "boulware,conceder", "--json"])
    assert res.exit_code == 0, res.output
    assert "discount" not in res.stderr
    out = json.loads(res.stdout)
    assert out["discount"] == {"party1_utility": 0.9, "party2_utility": 1.0}
    t = out["time"]
    assert 0 < t <= 1
    raw = out["undiscounted_utilities"]
    assert out["utilities"]["party1_utility"] == pytest.approx(raw["party1_utility"] * 0.9 ** t)
    assert out["utilities"]["party2_utility"] == pytest.approx(raw["party2_utility"])


def _mutations() -> st.SearchStrategy[tuple[int, int, bytes]]:
    return st.tuples(st.integers(0, 10_000), st.integers(0, 40),
                     st.binary(min_size=0, max_size=12))


@pytest.mark.parametrize(("fmt", "folder", "suffix"),
                         [("genius", FIXTURES / "genius" / "party", ".xml"),
                          ("geniusweb", FIXTURES / "geniusweb" / "jobs", ".json")])
def test_mutated_files_import_or_fail_cleanly(tmp_path: Path, fmt: str, folder: Path,
                                              suffix: str) -> None:
    files = sorted(folder.glob(f"*{suffix}"))

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(which=st.integers(0, len(files) - 1), edit=_mutations())
    def check(which: int, edit: tuple[int, int, bytes]) -> None:
        case = tmp_path / "case"
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(folder, case)
        target = case / files[which].name
        data = target.read_bytes()
        at, cut, insert = edit
        at %= len(data) + 1
        target.write_bytes(data[:at] + insert + data[at + cut:])
        try:
            imported = get_format(fmt).read(str(case))
        except FormatError as exc:
            assert exc.source and exc.element and exc.problem
            return
        try:
            resolve_scenario(f"{fmt}:{case}")
        except ScenarioError as exc:  # imported but not a usable scenario: still clean
            assert exc.key
        else:
            assert imported.data["parties"]

    check()


def test_a_broken_plugin_is_reported_only_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    from accord.formats import registry

    broken = EntryPoint("broken", "no_such_module_xyz:Importer", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [broken])
    registry._from_entry_points.cache_clear()
    monkeypatch.setattr(registry, "_BROKEN", {})
    try:
        assert "genius" in formats()  # the other formats still work
        with pytest.raises(FormatError, match=r"broken: entry point .* cannot be"):
            get_format("broken")
        with pytest.raises(ScenarioError, match="cannot be loaded"):
            resolve_scenario("broken:somewhere")
    finally:
        registry._from_entry_points.cache_clear()


_VALUES = st.one_of(st.text(max_size=8), st.floats(allow_nan=True).map(str),
                    st.integers(-10**30, 10**30).map(str), st.sampled_from(["", "-0", "1e999"]))


@pytest.mark.parametrize(("fmt", "folder", "suffix"),
                         [("genius", FIXTURES / "genius" / "party", ".xml"),
                          ("geniusweb", FIXTURES / "geniusweb" / "jobs", ".json")])
def test_mutated_values_import_or_fail_cleanly(tmp_path: Path, fmt: str, folder: Path,
                                               suffix: str) -> None:
    """One attribute (XML) or scalar (JSON) replaced by a hostile value: still a clean
    import or a FormatError naming the file."""
    import html
    import json
    import re

    files = sorted(folder.glob(f"*{suffix}"))
    pattern = re.compile(r'="[^"]*"') if suffix == ".xml" else re.compile(
        r'(?<=: )(-?[0-9.]+|"[^"]*")')

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(which=st.integers(0, len(files) - 1), slot=st.integers(0, 200), value=_VALUES)
    def check(which: int, slot: int, value: str) -> None:
        case = tmp_path / "case"
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(folder, case)
        target = case / files[which].name
        text = target.read_text(encoding="utf-8")
        spots = list(pattern.finditer(text))
        m = spots[slot % len(spots)]
        if suffix == ".xml":
            new = '="' + html.escape(value, quote=True) + '"'
        else:  # a number literal goes in as a number, anything else as a string
            try:
                is_number = isinstance(json.loads(value), (int, float))
            except ValueError:
                is_number = False
            new = value if is_number else json.dumps(value)
        target.write_text(text[:m.start()] + new + text[m.end():], encoding="utf-8")
        try:
            get_format(fmt).read(str(case))
        except FormatError as exc:
            assert exc.source and exc.element and exc.problem
            return
        try:
            resolve_scenario(f"{fmt}:{case}")
        except ScenarioError as exc:
            assert exc.key

    check()


class _TinyNumberImporter(_TinyImporter):
    """The tiny format, with a utility no scenario file may hold (below 1e-15)."""

    name = "tinynumber"

    def read(self, path: str) -> Imported:
        imported = super().read(path)
        imported.data["parties"]["a"]["utility"]["values"]["x"]["mid"] = 1e-300
        return imported


def test_import_checks_the_file_it_writes_as_accord_will_read_it(tmp_path: Path) -> None:
    """`accord import` checked the imported data, not the YAML it writes; the YAML loader's
    number budget then refused the written file (and `accord run FORMAT:PATH`). It now
    reads the text it is about to write and writes nothing when that cannot load."""
    src = tmp_path / "values.txt"
    src.write_text("low mid high", encoding="utf-8")
    out = tmp_path / "out"
    register_format(_TinyNumberImporter())
    try:
        res = CliRunner().invoke(app, ["import", "tinynumber", str(src), "--out", str(out)])
    finally:
        _REGISTERED.pop("tinynumber", None)
    assert res.exit_code == 2, res.output
    assert "too small" in res.output and "parties.a.utility.values.x.mid" in res.output
    assert not out.exists()
