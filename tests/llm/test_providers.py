"""Model strings resolve to endpoints with clear errors."""

from __future__ import annotations

import pytest

from accord.llm import ConfigurationError, MissingAPIKeyError, UnknownProviderError
from accord.llm.providers import env_prefix, resolve_model, sanitize_url


def test_each_provider_resolves() -> None:
    env = {"OPENAI_API_KEY": "sk-aaaaaaaaaaaa", "ANTHROPIC_API_KEY": "sk-ant-bbbbbbbb",
           "VLLM_BASE_URL": "http://gpu:8000/v1/", "MY_GW_BASE_URL": "https://gw.example/v1",
           "MY_GW_API_KEY": "gw-key-123456"}
    openai = resolve_model("openai/gpt-4.1-mini", env)
    assert (openai.api, openai.base_url, openai.model) == ("openai", "https://api.openai.com/v1",
                                                           "gpt-4.1-mini")
    assert openai.api_key(env) == "sk-aaaaaaaaaaaa"
    assert resolve_model("anthropic/claude-sonnet-4-0", env).api == "anthropic"
    vllm = resolve_model("vllm/meta-llama/Llama-3.1-8B", env)
    assert vllm.base_url == "http://gpu:8000/v1" and vllm.model == "meta-llama/Llama-3.1-8B"
    assert vllm.api_key(env) is None  # optional
    ollama = resolve_model("ollama/qwen2.5:7b", {})
    assert ollama.base_url == "http://127.0.0.1:11434/v1" and ollama.model == "qwen2.5:7b"
    gw = resolve_model("openai-api/my-gw/org/model-x", env)
    assert (gw.provider, gw.model, gw.key_env) == ("openai-api/my-gw", "org/model-x",
                                                   "MY_GW_API_KEY")
    mock = resolve_model("mock/negotiator", {})
    assert mock.api == "mock" and mock.base_url is None and mock.limit_key == "mock://negotiator"
    assert resolve_model("openai/x", {"OPENAI_BASE_URL": "http://proxy/v1"}).base_url == \
        "http://proxy/v1"


def test_configuration_errors_are_specific() -> None:
    with pytest.raises(UnknownProviderError, match="known providers: anthropic, llamacpp, mock"):
        resolve_model("bedrock/claude", {})
    with pytest.raises(UnknownProviderError, match="'gpt-4'"):
        resolve_model("gpt-4", {})
    with pytest.raises(ConfigurationError, match="VLLM_BASE_URL"):
        resolve_model("vllm/x", {})
    with pytest.raises(ConfigurationError, match="openai-api/<name>/<model>"):
        resolve_model("openai-api/only-name", {})
    with pytest.raises(ConfigurationError, match="must start with http"):
        resolve_model("vllm/x", {"VLLM_BASE_URL": "gpu:8000"})
    with pytest.raises(ConfigurationError, match="names no model"):
        resolve_model("openai/", {})
    with pytest.raises(MissingAPIKeyError, match="MY_GW_API_KEY"):
        resolve_model("openai-api/my-gw/m", {"MY_GW_BASE_URL": "http://h/v1"}).api_key({})


def test_urls_are_sanitised_and_names_mapped() -> None:
    assert sanitize_url("https://user:pw@host:8443/v1/?key=abc#x") == "https://host:8443/v1"
    assert env_prefix("my-gw.2") == "MY_GW_2"
    with pytest.raises(ConfigurationError, match="carries credentials") as info:
        resolve_model("vllm/m", {"VLLM_BASE_URL": "http://u:secret@h:1/v1"})
    assert "secret" not in str(info.value)  # refused, and the password is not echoed
    ep = resolve_model("vllm/m", {"VLLM_BASE_URL": "http://h:1/v1?token=secret"})
    assert "secret" not in ep.public_url
