"""LLM-Deliberation / ScorableGames importer: the real base game (copied from the public
repository under its MIT licence) round-trips to accord files, runs with its own rules
(code agents and six mock LLM parties), analyzes, and malformed folders fail naming the
file and the line."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import string
from pathlib import Path

import pytest
from formatslib import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from accord.agents.negotiator_prompts import system_text
from accord.agents.utility_render import utility_payload
from accord.cli.main import app
from accord.domains.bargaining import analyze, resolve_scenario, run_negotiation
from accord.domains.bargaining.load import ScenarioError, load_scenario
from accord.domains.bargaining.runner import check_params, with_rules
from accord.formats import FormatError, get_format, import_path, write_scenario
from accord.formats.llm_deliberation import LLMDeliberationImporter
from accord.protocols.alternating import AlternatingOffers

BASE = FIXTURES / "llm_deliberation" / "base"
EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))
runner = CliRunner()
NAMES = ("Mayor", "Other cities", "Local Labour Union", "SportCo", "Department of Tourism",
         "Environmental League")


def _scores(file: str) -> tuple[list[list[int]], int]:
    """The repository's own reading of a scores file (initial_prompts.load_scores)."""
    lines = (BASE / "scores_files" / f"{file}.txt").read_text(encoding="utf-8").splitlines()
    return [[int(x.strip()) for x in ln.split(",")] for ln in lines[:-1]], int(lines[-1])


def _copy(tmp_path: Path) -> Path:
    case = tmp_path / "game"
    shutil.copytree(BASE, case)
    return case


def test_import_reads_the_base_game() -> None:
    imp = import_path("llm-deliberation", str(BASE))
    data = imp.data
    assert data["name"] == "base" and tuple(data["parties"]) == NAMES
    assert data["issues"] == {"A": ["A1", "A2", "A3"], "B": ["B1", "B2", "B3"],
                              "C": ["C1", "C2", "C3", "C4"], "D": ["D1", "D2", "D3", "D4"],
                              "E": ["E1", "E2", "E3", "E4", "E5"]}
    sport = data["parties"]["SportCo"]
    scores, minimum = _scores("SportCo")
    assert sport["batna"] == minimum == 55  # the threshold is the BATNA
    assert sport["utility"]["values"]["D"] == dict(zip(["D1", "D2", "D3", "D4"], scores[3],
                                                       strict=True))
    assert sport["persona"] == "greedy" and data["parties"]["Mayor"]["persona"] == "cooperative"
    # placeholders filled as the repository fills them
    assert "#" not in sport["instructions"] and "D1 (35)" in sport["instructions"]
    assert data["instructions"].startswith('"SportCo" is a company')
    assert data["rules"] == {
        "acceptance": {"k": 5, "required": ["SportCo", "Department of Tourism"]},
        "thresholds": True, "binding": "all", "opener": "SportCo",
        "opening_offer": {"A": "A1", "B": "B1", "C": "C4", "D": "D1", "E": "E5"},
        "unanimity_bonus": {"SportCo": 10}, "max_rounds": 26, "stagnation_rounds": 0}
    assert any("--agents" in n for n in imp.notes)


def test_pyproject_declares_the_format_and_its_alias() -> None:
    import tomllib

    meta = tomllib.loads((FIXTURES.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    group = meta["project"]["entry-points"]["accord.formats"]
    assert group["llm-deliberation"] == group["scorable-games"] == \
        "accord.formats.llm_deliberation:LLMDeliberationImporter"


def test_alias_scorable_games_reads_the_same() -> None:
    assert isinstance(get_format("scorable-games"), LLMDeliberationImporter)
    assert import_path("scorable-games", str(BASE)).data == \
        import_path("llm-deliberation", str(BASE)).data


def test_round_trip_through_accord_files(tmp_path: Path) -> None:
    written = write_scenario(import_path("llm-deliberation", str(BASE)), tmp_path)
    from_file = load_scenario(written)
    direct = resolve_scenario(f"llm-deliberation:{BASE}")
    assert from_file.party_names == direct.party_names == NAMES
    assert (from_file.utility_matrix == direct.utility_matrix).all()
    assert from_file.rules == direct.rules and from_file.instructions == direct.instructions
    assert [p.brief for p in from_file.parties] == [p.brief for p in direct.parties]
    assert list(from_file.batnas) == [30, 31, 50, 55, 65, 55]
    # each party's utility is the sum of its option scores (checked without accord's code)
    files = {"Mayor": "mayor", "Other cities": "other_cities", "Local Labour Union": "union",
             "SportCo": "SportCo", "Department of Tourism": "DoT",
             "Environmental League": "enviroment"}
    for i, name in enumerate(NAMES):
        scores, _ = _scores(files[name])
        for k in range(0, from_file.space.size, 37):
            pkg = from_file.space.package(k)
            want = sum(scores[j][int(pkg[string.ascii_uppercase[j]][1:]) - 1]
                       for j in range(5))
            assert from_file.utility_matrix[k, i] == want


def _check_rules(scenario, record) -> None:
    """The record of an agreement under the game's rules: 5 of 6 valid yes votes
    including SportCo and the Department of Tourism, each at or above its minimum."""
    pkg = record["agreement"]
    yes = {record["proposer"], *record["accepted_by"]} - set(record.get("void_acceptances", []))
    assert len(yes) >= 5 and {"SportCo", "Department of Tourism"} <= yes
    for p in yes:
        assert scenario.party(p).utility(pkg) >= scenario.party(p).batna
    assert record["bound"] == list(record["parties"]) and record["binding"] == "all"


def test_base_game_runs_with_code_agents() -> None:
    scenario = resolve_scenario(f"llm-deliberation:{BASE}")
    result = asyncio.run(run_negotiation(
        scenario, ["boulware", "boulware", "conceder", "linear", "conceder", "boulware"],
        seed=0))
    assert result.status == "agreement", result.record
    _check_rules(scenario, result.record)
    # the opener's opening deal was on the table in round 1, and it closed in round 26
    first = result.trajectory.of_kind("move")[0]
    assert first.party != "SportCo" and first.move["kind"] in ("accept", "reject")
    assert result.record["parties"][0] == "SportCo"


def test_base_game_runs_with_six_mock_llm_parties() -> None:
    res = runner.invoke(app, ["run", f"llm-deliberation:{BASE}", "--agents",
                              ",".join(["llm:mock/negotiator"] * 6), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] in ("agreement", "no_deal") and out["reason"] != "error"
    assert out["rounds"] <= 26 and set(out["utilities"]) == set(NAMES)
    if out["status"] == "agreement":
        assert out["flags"]["sycophancy"] is False
        assert out["vote"]["binding"] == "all"
    # the game has no stagnation rule: the scenario turns it off for LLM parties too
    assert out["stagnation"] == {"rounds": 0, "rule": "scenario",
                                 "why": "set by the scenario's rules"}


def test_run_json_says_who_voted_and_who_is_bound() -> None:
    res = runner.invoke(app, ["run", f"llm-deliberation:{BASE}", "--agents",
                              "boulware,boulware,conceder,linear,conceder,boulware", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "agreement"
    vote = out["vote"]
    assert vote["proposer"] == "SportCo" and vote["binding"] == "all"
    assert vote["rejected_by"] == ["Environmental League"]
    assert sorted(vote["accepted_by"]) == sorted(
        ["Department of Tourism", "Mayor", "Other cities", "Local Labour Union"])
    assert vote["bound"] == ["SportCo", "Department of Tourism", "Environmental League",
                             "Mayor", "Other cities", "Local Labour Union"]
    assert out["utilities"]["Environmental League"] == 47  # outvoted and bound
    assert out["flags"]["outvoted_below_batna"] == ["Environmental League"]


def test_a_party_prompt_carries_the_game_its_briefing_and_persona() -> None:
    scenario = resolve_scenario(f"llm-deliberation:{BASE}")
    p = check_params(with_rules(scenario, {}))
    proto = AlternatingOffers(scenario, p.protocol_config(3, {q.name: q.batna
                                                              for q in scenario.parties}))
    state = proto.initial_state()
    texts = {}
    for role in ("Environmental League", "SportCo"):
        obs = proto.observe(state, role)
        texts[role] = system_text(role, [q for q in obs.parties if q != role],
                                  obs.issue_values(),
                                  utility_payload(obs.utility, obs.space, obs.batna),
                                  obs.batna, obs.max_rounds, game=obs.game)
    env, sport = texts["Environmental League"], texts["SportCo"]
    assert "at least 5 of the 6 parties" in env and "SportCo and Department of Tourism" in env
    assert "yours is 55" in env and "binds every party" in env
    assert '"Environmental League" (represented by you)' in env
    assert "YOUR STANCE\nYour stance is greedy" in env
    assert "You make the first and the last proposal" in sport
    assert "you gain a bonus of 10 points" in sport and "bonus" not in env
    # a party's confidential instructions reach only that party
    assert "Issue B (max score 55)" in env and "Issue B (max score 55)" not in sport
    assert "D1 (35)" in sport and "D1 (35)" not in env


@pytest.mark.parametrize(("edit", "file", "element", "problem"), [
    (lambda d: (d / "scores_files" / "union.txt").unlink(), "union.txt", "<file>",
     "missing file"),
    (lambda d: _replace(d / "scores_files" / "DoT.txt", "0, 2, 4, 9", "0, 2, 4, 9, 1"),
     "DoT.txt", "line 3", "5, 4, 5] options"),
    (lambda d: _replace(d / "scores_files" / "mayor.txt", "14, 8, 0", "14, x, 0"),
     "mayor.txt", "line 1 option 2", "'x' is not a number"),
    # a number no accord scenario file can hold (the file was written, then unreadable)
    (lambda d: _replace(d / "scores_files" / "mayor.txt", "\n30", "\n1e20"),
     "mayor.txt", "line 6 (minimum threshold)", "out of range"),
    (lambda d: _replace(d / "config.txt", "Other cities,other_cities,player",
                        "Other cities,other_cities,p3"), "config.txt", "line 2 role",
     "unknown role 'p3'"),
    (lambda d: _replace(d / "config.txt", "SportCo,SportCo,p1", "SportCo,SportCo,player"),
     "config.txt", "role p1", "no party has role p1"),
    (lambda d: _replace(d / "config.txt", "Mayor,mayor,player,cooperative,gpt-4-low",
                        "Mayor,mayor,player,cooperative"), "config.txt", "line 1",
     "expected 5 comma-separated fields"),
    (lambda d: _replace(d / "config.txt", "Mayor,mayor,player,cooperative",
                        "Mayor,mayor,player,sneaky"), "config.txt", "line 1 incentive",
     "unknown incentive 'sneaky'"),
    (lambda d: _replace(d / "initial_deal.txt", "C4", "C7"), "initial_deal.txt",
     "line 1 option 'C7'", "C1 to C4"),
    (lambda d: _replace(d / "scores_files" / "SportCo.txt", "\n55", "\n55, 3"),
     "SportCo.txt", "line 6", "minimum threshold, one number"),
    (lambda d: (d / "individual_instructions" / "greedy" / "DoT.txt").unlink(), "DoT.txt",
     "<file>", "missing file"),
    (lambda d: _replace(d / "config.txt", "union,player,cooperative",
                        "union,player,targeted_adv"), "config.txt", "role target",
     "needs a party with role target"),
])
def test_malformed_folders_name_the_file_and_line(tmp_path: Path, edit, file: str,
                                                  element: str, problem: str) -> None:
    case = _copy(tmp_path)
    edit(case)
    with pytest.raises(FormatError) as info:
        import_path("llm-deliberation", str(case))
    err = info.value
    assert Path(err.source).name == file and err.element == element
    assert problem in err.problem, err.problem


def test_a_file_instead_of_a_folder_is_refused() -> None:
    with pytest.raises(FormatError, match="expected a game folder"):
        import_path("llm-deliberation", str(BASE / "config.txt"))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_targeted_adversary_gets_its_target(tmp_path: Path) -> None:
    case = _copy(tmp_path)
    _replace(case / "config.txt", "Environmental League,enviroment,player,greedy",
             "Environmental League,enviroment,player,targeted_adv")
    _replace(case / "config.txt", "Local Labour Union,union,player",
             "Local Labour Union,union,target")
    scenario = resolve_scenario(f"llm-deliberation:{case}")
    brief = scenario.party("Environmental League").brief
    assert brief is not None and (brief.persona, brief.target) == ("targeted_adv",
                                                                   "Local Labour Union")
    assert "sabotage" in brief.instructions  # the targeted_adv folder's own text


def test_cli_import_and_analyze(tmp_path: Path) -> None:
    res = runner.invoke(app, ["import", "scorable-games", str(BASE), "--out", str(tmp_path),
                              "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["outcomes"] == 720 and out["parties"] == list(NAMES)
    text = Path(out["written"]).read_text(encoding="utf-8")
    assert "instructions: |" in text  # the briefing is a readable block
    res = runner.invoke(app, ["analyze", f"llm-deliberation:{BASE}", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["outcomes"] == 720 and data["nash"] is not None
    # deals that pass the game's vote, counted by brute force over the raw score files
    files = ["mayor", "other_cities", "union", "SportCo", "DoT", "enviroment"]
    sheets = [_scores(f) for f in files]
    passing = 0
    for combo in itertools.product(*(range(n) for n in (3, 3, 4, 4, 5))):
        vals = [sum(sc[j][o] for j, o in enumerate(combo)) for sc, _ in sheets]
        yes = [v >= floor for v, (_, floor) in zip(vals, sheets, strict=True)]
        # SportCo's bonus of 10 when everyone else agrees (the repository's check_agreement)
        if not yes[3] and sum(yes) == 5 and vals[3] + 10 >= sheets[3][1]:
            yes[3] = True
        passing += sum(yes) >= 5 and yes[3] and yes[4]
    assert data["passing_under_rules"] == {
        "outcomes": passing, "k": 5, "required": ["SportCo", "Department of Tourism"]}
    assert passing == 77
    direct = analyze(resolve_scenario(f"llm-deliberation:{BASE}"))
    assert len(direct["pareto"]) > 1 and direct["passing_under_rules"]["outcomes"] == 77
    human = runner.invoke(app, ["analyze", f"llm-deliberation:{BASE}"])
    assert "77 outcomes pass" in " ".join(human.output.split())


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(["config.txt", "initial_deal.txt", "scores_files/mayor.txt",
                              "scores_files/SportCo.txt"]),
       at=st.integers(0, 10_000), cut=st.integers(0, 30),
       insert=st.sampled_from(["", ",", "\n", "x", "-", "1e999", "nan", "p1", "9", ", 3",
                               "\x00", "A9", "\u00e9"]))
def test_mutated_games_import_or_fail_cleanly(tmp_path_factory: pytest.TempPathFactory,
                                              which: str, at: int, cut: int,
                                              insert: str) -> None:
    case = tmp_path_factory.mktemp("fuzz") / "game"
    shutil.copytree(BASE, case)
    target = case / which
    text = target.read_text(encoding="utf-8")
    at %= len(text) + 1
    target.write_text(text[:at] + insert + text[at + cut:], encoding="utf-8")
    try:
        imported = import_path("llm-deliberation", str(case))
    except FormatError as exc:
        assert exc.source and exc.element and exc.problem
        return
    try:
        resolve_scenario(f"llm-deliberation:{case}")
    except ScenarioError as exc:  # imported but not a usable scenario: still clean
        assert exc.key
    else:
        assert imported.data["parties"]


def test_a_person_seated_in_the_game_sees_the_rules_and_only_its_own_briefing() -> None:
    from accord.agents.human.bargaining import BargainingView

    scenario = resolve_scenario(f"llm-deliberation:{BASE}")
    p = check_params(with_rules(scenario, {}))
    proto = AlternatingOffers(scenario, p.protocol_config(3, {q.name: q.batna
                                                              for q in scenario.parties}))
    state = proto.initial_state()
    mayor = BargainingView().view(proto.observe(state, "Mayor"))["briefing"]
    assert "at least 5 of the 6 parties" in mayor["rules"] and "yours is 30" in mayor["rules"]
    assert mayor["instructions"].startswith('"SportCo" is a company')
    assert mayor["private"] == scenario.party("Mayor").brief.instructions
    assert "D1 (35)" not in mayor["private"]  # SportCo's scores stay SportCo's
    assert mayor["persona"].startswith("Your stance is cooperative")
    plain = resolve_scenario("buyer-seller")
    view = BargainingView().view(AlternatingOffers(plain).observe(
        AlternatingOffers(plain).initial_state(), "buyer"))
    assert "briefing" not in view


def _real_games() -> list[Path]:
    """Every game folder of a checkout of the LLM-Deliberation repository named by
    ``ACCORD_LLM_DELIBERATION`` (its root or its ``games_descriptions``)."""
    root = os.environ.get("ACCORD_LLM_DELIBERATION")
    if not root:
        return []
    base = Path(root)
    base = base / "games_descriptions" if (base / "games_descriptions").is_dir() else base
    return sorted(p.parent for p in base.glob("*/config.txt"))


@pytest.mark.skipif(not _real_games(), reason="set ACCORD_LLM_DELIBERATION to a checkout of "
                    "github.com/S-Abdelnabi/LLM-Deliberation to import all its games")
@pytest.mark.parametrize("game", _real_games() or [BASE], ids=lambda p: p.name)
def test_every_game_of_the_repository_imports_runs_and_analyzes(game: Path,
                                                                 tmp_path: Path) -> None:
    scenario = resolve_scenario(f"llm-deliberation:{game}")
    again = load_scenario(write_scenario(import_path("llm-deliberation", str(game)), tmp_path))
    assert (again.utility_matrix == scenario.utility_matrix).all()
    n = len(scenario.parties)
    result = asyncio.run(run_negotiation(scenario, (["conceder", "linear"] * n)[:n], seed=0))
    assert result.status in ("agreement", "no_deal")
    if result.status == "agreement":
        rec = result.record
        yes = {rec["proposer"], *rec["accepted_by"]} - set(rec.get("void_acceptances", []))
        assert len(yes) >= n - 1
    assert analyze(scenario)["passing_under_rules"]["k"] == n - 1


GOLDEN = Path(__file__).parent / "golden"


def test_six_parties_over_the_stub_server_and_the_prompt_a_model_gets(stub_env) -> None:
    """Six LLM parties through real HTTP (the stub server's rule-based negotiator); the
    Environmental League's setup and first turn are pinned exactly (regenerate with
    ACCORD_UPDATE_GOLDEN=1 after a deliberate prompt change)."""
    from accord.testing.golden import assert_no_stub_blocks, check_golden, render_chat
    from accord.testing.stub import StubServer

    scenario = resolve_scenario(f"llm-deliberation:{BASE}")
    models = [f"party-{i}" for i in range(6)]
    with StubServer(policies=dict.fromkeys(models, "negotiator")) as stub:
        stub_env(stub)
        result = asyncio.run(run_negotiation(
            scenario, [f"llm:openai-api/stub/{m}" for m in models],
            params={"max_rounds": 8}, seed=0))
        reqs = stub.completion_requests
    assert result.status in ("agreement", "no_deal") and result.reason != "error"
    assert {r.model for r in reqs} == set(models)  # every party was asked
    assert_no_stub_blocks(reqs)
    env = [r for r in reqs if r.model == "party-5"]  # the Environmental League
    check_golden(GOLDEN / "environmental_league_first_turn.txt",
                 render_chat(env[0].messages))
    system = env[0].messages[0]["content"]
    assert "Issue B (max score 55)" in system and "D1 (35)" not in system


def test_a_score_below_what_a_scenario_file_holds_is_read_as_zero(tmp_path: Path) -> None:
    """1e-300 was imported as is, and the written file (and `accord run
    llm-deliberation:...`) was then refused as 'too small to mean anything'."""
    case = _copy(tmp_path)
    _replace(case / "scores_files" / "mayor.txt", "14, 8, 0", "14, 1e-300, 0")
    data = import_path("llm-deliberation", str(case)).data
    assert data["parties"]["Mayor"]["utility"]["values"]["A"] == {"A1": 14, "A2": 0, "A3": 0}
    res = runner.invoke(app, ["analyze", f"llm-deliberation:{case}", "--json"])
    assert res.exit_code == 0, res.output
