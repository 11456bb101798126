"""The seeds' published model line-ups are runnable named alternatives of the shipped
configs (``lineups:``, selected with ``accord bench SPEC --lineup NAME``), checked with
``--dry-run`` (no network, no key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord import configs
from accord.agents.llm_base import check_model_spec
from accord.bench import load_config
from accord.cli.main import app

runner = CliRunner()

#: config, line-up, episodes planned, models (display names) in the line-up
SEEDS = [
    ("task_exchange_table1", "seed000", 2 * 3 * 2 * 10, {"o4-mini", "GPT-4.1-mini",
                                                         "GPT-4.1-nano"}),
    ("task_exchange_table2", "seed000", 2 * 3 * 2 * 10, {"o4-mini", "GPT-4.1-mini",
                                                         "GPT-4.1-nano"}),
    ("deliberation_table2", "seed001", 7 * (2 * 2 * 60 + 2 * 60 + 3 * 2 * 60), None),
    ("deliberation_table3", "seed001", 7 * 3 * 2 * 60, None),
    ("games_tables5_8", "seed003", 10 * 9 * 2 * 10, None),
]
SEED001 = {"GPT-5.1", "DeepSeek-V3.2", "GLM-4.7", "GPT-4.1-mini", "Qwen3-Next-80B",
           "Qwen3-32B", "Qwen3-30B"}


@pytest.mark.parametrize(("config", "lineup", "planned", "models"), SEEDS,
                         ids=lambda v: v if isinstance(v, str) else "")
def test_seed_lineup_plans_without_a_network(config: str, lineup: str, planned: int,
                                             models: set[str] | None, tmp_path: Path) -> None:
    res = runner.invoke(app, ["bench", config, "--dry-run", "--lineup", lineup, "--json",
                              "--out", str(tmp_path / "x.db")])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["planned"] == planned
    assert out["run"].endswith(f"-{lineup}")
    cfg = load_config(configs.resolve(config), lineup=lineup)
    names = {lu.name for sweep in cfg.sweeps for lu in sweep.lineups}
    if models is not None:
        assert names == models
    for sweep in cfg.sweeps:
        for lu in sweep.lineups:
            for spec in lu.agents:
                if spec.kind.startswith("llm"):
                    check_model_spec(spec)  # every option is a known, well-formed setting


def test_seed001_runs_every_model_with_thinking_off() -> None:
    cfg = load_config(configs.resolve("deliberation_table2"), lineup="seed001")
    names = {(lu.name or "").removesuffix(" centralized") for s in cfg.sweeps
             for lu in s.lineups}
    assert names == SEED001
    for spec in (a for s in cfg.sweeps for lu in s.lineups for a in lu.agents):
        config = check_model_spec(spec)
        model = spec.arg or ""
        assert config.temperature == 0.3
        if model.startswith("vllm/"):  # chat_template_kwargs.enable_thinking: false
            assert config.thinking is False
        elif model.startswith("openai/gpt-5.1"):
            assert config.reasoning_effort == "none"
        else:  # not a reasoning model: nothing to switch off
            assert model == "openai/gpt-4.1-mini-2025-04-14"


@pytest.mark.parametrize(("config", "lineup", "model"), [
    ("task_exchange_table1", "seed000", "o4-mini"),
    ("games_tables5_8", "seed003", "o1"),
])
def test_o_series_models_state_their_reasoning_effort(config: str, lineup: str,
                                                      model: str) -> None:
    cfg = load_config(configs.resolve(config), lineup=lineup)
    o_series = [a for s in cfg.sweeps for lu in s.lineups for a in lu.agents
                if (a.arg or "").startswith(f"openai/{model}")]
    assert o_series
    for spec in o_series:
        config_ = check_model_spec(spec)
        assert config_.reasoning_effort == "medium" and config_.temperature is None


def test_unknown_lineup_names_the_ones_there_are(tmp_path: Path) -> None:
    res = runner.invoke(app, ["bench", "task_exchange_table1", "--dry-run", "--lineup",
                              "seed999"])
    assert res.exit_code == 2
    assert "no line-up named 'seed999' here (--lineup); named line-ups: seed000" in res.output


def test_without_lineup_the_code_agents_run(tmp_path: Path) -> None:
    res = runner.invoke(app, ["bench", "task_exchange_table1", "--dry-run", "--json"])
    out = json.loads(res.stdout)
    assert out["run"] == "task_exchange_table1" and out["planned"] == 2 * 2 * 2 * 10
