"""``--llm-timeout`` and ``ACCORD_LLM_TIMEOUT`` reach the LLM agents of every command that
runs them, and without either each endpoint gets its own default (a server on this machine
600 s, a hosted API 60 s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import accord.agents.llm_base as llm_base
from accord.cli.main import app
from accord.llm import LLMRuntime
from accord.llm.providers import resolve_model
from accord.llm.timeouts import HOSTED_TIMEOUT, LOCAL_TIMEOUT

runner = CliRunner()
DOND = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dealornodeal"


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The ``timeout`` of the LLM settings each LLM agent of a command was built with
    (``None``: a check that builds the line-up once before the run, with no settings)."""
    out: list[Any] = []
    real = llm_base.runtime_for

    def spy(settings: Any) -> LLMRuntime:
        out.append((settings or {}).get("timeout"))
        return real(settings)

    monkeypatch.setattr(llm_base, "runtime_for", spy)
    monkeypatch.delenv("ACCORD_LLM_TIMEOUT", raising=False)
    yield out


COMMANDS = [
    ["run", "bargaining/buyer-seller", "--agents", "llm:mock/negotiator,boulware",
     "--max-rounds", "1"],
    ["games", "play", "prisoners-dilemma", "--agents", "llm:mock/echo,random"],
    ["task-exchange", "run", "cooperative", "--agents", "llm:mock/echo,scripted"],
    ["deliberation", "run", "menu-numeric", "--agents", "llm:mock/echo,naive",
     "--max-rounds", "1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_the_flag_reaches_the_llm_agents(seen: list[Any], command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--llm-timeout", "7.5"])
    assert res.exit_code in (0, 1), res.output
    assert set(seen) - {None} == {7.5}


@pytest.mark.parametrize("command", COMMANDS[1:], ids=lambda c: " ".join(c[:2]))
def test_the_environment_variable_reaches_the_llm_agents(
        seen: list[Any], command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_LLM_TIMEOUT", "8")
    res = runner.invoke(app, command)
    assert res.exit_code in (0, 1), res.output
    assert set(seen) - {None} == {8.0}


def test_dond_play_takes_the_flag(seen: list[Any], tmp_path: Path) -> None:
    if not (DOND / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found at {DOND}")
    res = runner.invoke(app, ["dond", "play", "--agents", "llm:mock/echo,greedy", "--data",
                              str(DOND), "--limit", "1", "--rounds", "2",
                              "--out", str(tmp_path / "d.db"), "--llm-timeout", "9"])
    assert res.exit_code in (0, 1), res.output
    assert set(seen) - {None} == {9.0}


def test_serve_play_hands_its_llm_settings_to_the_play_app(tmp_path: Path) -> None:
    from accord.serve.app import load_play_app

    play = load_play_app(tmp_path / "play.db", llm={"timeout": 11.0})
    assert play.state.play.games.settings.llm == {"timeout": 11.0}


@pytest.mark.parametrize(("model", "env", "default"), [
    ("llamacpp/x.gguf", {}, LOCAL_TIMEOUT),
    ("openai-api/box/m", {"BOX_BASE_URL": "http://127.0.0.1:8080/v1"}, LOCAL_TIMEOUT),
    ("openai-api/box/m", {"BOX_BASE_URL": "http://localhost:8080/v1"}, LOCAL_TIMEOUT),
    ("ollama/qwen3", {}, LOCAL_TIMEOUT),
    ("openai-api/box/m", {"BOX_BASE_URL": "https://gpu.example.org/v1"}, HOSTED_TIMEOUT),
    ("openai/gpt-4.1-mini", {"OPENAI_API_KEY": "sk-x"}, HOSTED_TIMEOUT),
    ("anthropic/claude-x", {"ANTHROPIC_API_KEY": "sk-x"}, HOSTED_TIMEOUT),
])
def test_default_timeout_per_kind_of_endpoint(model: str, env: dict[str, str],
                                              default: float) -> None:
    if model.startswith("llamacpp/"):
        from accord.llm.providers import Endpoint

        endpoint = Endpoint("llamacpp", "x.gguf", "openai", "http://127.0.0.1:1/v1", None,
                            False, model)
    else:
        endpoint = resolve_model(model, env)
    assert LLMRuntime().timeout_for(endpoint) == default
    assert LLMRuntime(timeout=5.0).timeout_for(endpoint) == 5.0  # a given timeout wins
