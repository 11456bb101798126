"""Generation settings from agent specs, bench configs and the CLI, mapped per provider.

A study sets how a model samples with the options of an LLM agent spec
(``llm:vllm/Qwen/Qwen3-8B?thinking=off&temperature=0.3``), the agent mappings of a bench
config, ``accord run --llm-option KEY=VALUE`` and a bench config's ``llm.options``:

``temperature``, ``top_p``, ``max_tokens``, ``max_completion_tokens``, ``seed``, ``stop``
    the usual sampling fields, sent under the provider's own names;
``reasoning_effort``
    OpenAI's reasoning models (``minimal``, ``low``, ``medium``, ``high``, ...), also
    taken by OpenAI-compatible servers that serve such models (vLLM, llama.cpp);
``thinking``
    ``off``, ``on`` or a token budget: Anthropic's ``thinking`` block; on
    OpenAI-compatible servers (vLLM, SGLang, llama.cpp, Ollama)
    ``chat_template_kwargs.enable_thinking`` (how Qwen3-style models switch their
    internal thinking off, as seed 001 ran its models); OpenAI itself takes
    ``reasoning_effort`` instead;
``structured``
    ``off``, ``json_schema``, ``grammar`` or ``auto``: the LLM agent sends each turn's reply
    schema (:mod:`accord.agents.structured`);
``extra_body.PATH=VALUE``
    any other request-body field, dotted paths nesting (``extra_body.chat_template_kwargs.
    enable_thinking=false``), values read as YAML; an ``extra_body`` mapping in YAML too.

Everything here is part of :meth:`~accord.llm.types.GenerationConfig.key_data`, so the
cache keeps requests with other settings apart. A setting the provider cannot take is a
:class:`~accord.llm.errors.ConfigurationError` naming the provider
(:func:`check_for_endpoint`), raised when the agent is built, before any call.

The pure functions here hold no SDK import: backends call :func:`thinking_body` and
:func:`anthropic_thinking` to put the settings into their request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accord.llm.errors import ConfigurationError
from accord.llm.providers import Endpoint
from accord.llm.types import GenerationConfig

#: generation options an agent spec may set (besides ``extra_body.PATH`` keys)
GENERATION_OPTIONS = frozenset({"temperature", "max_tokens", "max_completion_tokens", "top_p",
                                 "seed", "stop", "reasoning_effort", "thinking", "extra_body",
                                 "structured"})
#: the values of ``structured`` (:mod:`accord.agents.structured` uses them)
STRUCTURED_MODES: tuple[str, ...] = ("off", "json_schema", "grammar", "auto")
#: the prefix of a pass-through body field given as one option
EXTRA_PREFIX = "extra_body."
#: ``thinking=on`` on Anthropic: the budget when none is given (the API's minimum)
ANTHROPIC_MIN_BUDGET = 1024
_EFFORT = re.compile(r"[a-z][a-z_-]{0,31}")


def is_generation_option(key: str) -> bool:
    """Whether ``key`` is a generation option (a named one or ``extra_body.PATH``)."""
    return key in GENERATION_OPTIONS or (key.startswith(EXTRA_PREFIX)
                                         and len(key) > len(EXTRA_PREFIX))


def _thinking(value: Any) -> bool | int:
    """``off``/``on`` (YAML reads them as booleans), or a positive token budget."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("off", "on", "false", "true"):
        return value.strip().lower() in ("on", "true")
    if isinstance(value, int) and value > 0:
        return value
    raise ValueError(f"thinking must be off, on or a positive token budget, got {value!r}")


def _set_path(out: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    if not all(parts):
        raise ValueError(f"extra_body path {path!r} has an empty part")
    node = out
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ValueError(f"extra_body path {path!r}: {part!r} is already a value")
        node = child
    node[parts[-1]] = value


def merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``top`` laid over it, mappings merged key by key (``top`` wins)."""
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def generation_config(options: Mapping[str, Any]) -> GenerationConfig:
    """A generation config from agent-spec options; an unknown key or a wrong value is a
    ``ValueError`` that names it and lists the options there are."""
    bad = sorted(k for k in options if not is_generation_option(str(k)))
    if bad:
        raise ValueError(f"unknown LLM option(s) {bad}; allowed: {sorted(GENERATION_OPTIONS)} "
                         f"and {EXTRA_PREFIX}PATH=VALUE for any other request-body field")
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in options.items():
        if key == "extra_body":
            if not isinstance(value, Mapping):
                raise ValueError(f"extra_body must be a mapping of body fields, got {value!r}")
            extra = merge(extra, value)
        elif key.startswith(EXTRA_PREFIX):
            _set_path(extra, key[len(EXTRA_PREFIX):], value)
        elif key == "thinking":
            fields["thinking"] = _thinking(value)
        elif key == "reasoning_effort":
            if not isinstance(value, str) or not _EFFORT.fullmatch(value):
                raise ValueError(f"reasoning_effort must be a word such as minimal, low, "
                                 f"medium or high, got {value!r}")
            fields["reasoning_effort"] = value
        elif key == "structured":
            if value is False:  # YAML reads a bare off as false
                value = "off"
            if value not in STRUCTURED_MODES:
                raise ValueError(f"structured must be one of {', '.join(STRUCTURED_MODES)}, "
                                 f"got {value!r}")
            fields["structured"] = value
        elif key == "stop":
            stops = [value] if isinstance(value, str) else value
            if not isinstance(stops, list | tuple) or not all(isinstance(s, str) and s
                                                              for s in stops):
                raise ValueError(f"stop must be a string or a list of strings, got {value!r}")
            fields["stop"] = tuple(stops)
        else:
            fields[key] = value
    if extra:
        fields["extra"] = extra
    return GenerationConfig(**fields)


def check_for_endpoint(endpoint: Endpoint, config: GenerationConfig) -> None:
    """Refuse the settings ``endpoint``'s provider cannot take, naming the provider."""
    name = endpoint.provider
    if endpoint.api == "anthropic":
        if config.reasoning_effort is not None:
            raise ConfigurationError(f"provider {name!r} (Anthropic) takes no reasoning_effort; "
                                     "use thinking=on|off|BUDGET")
        if config.seed is not None:
            raise ConfigurationError(f"provider {name!r} (Anthropic) takes no sampling seed")
        if isinstance(config.thinking, int) and not isinstance(config.thinking, bool) \
                and config.thinking < ANTHROPIC_MIN_BUDGET:
            raise ConfigurationError(f"provider {name!r} (Anthropic): a thinking budget must "
                                     f"be at least {ANTHROPIC_MIN_BUDGET} tokens, got "
                                     f"{config.thinking}")
    elif endpoint.api == "openai" and config.thinking is not None:
        if name == "openai":
            raise ConfigurationError("provider 'openai' takes no 'thinking' setting; its "
                                     "reasoning models take reasoning_effort (e.g. minimal or "
                                     "low)")
        if not isinstance(config.thinking, bool):
            raise ConfigurationError(f"provider {name!r} (OpenAI-compatible) switches thinking "
                                     "on or off (chat_template_kwargs.enable_thinking) but takes "
                                     "no token budget; use thinking=on or thinking=off")


def thinking_body(config: GenerationConfig) -> dict[str, Any]:
    """The body fields an OpenAI-compatible server gets for ``thinking`` (none if unset):
    ``chat_template_kwargs.enable_thinking``, under any such field of ``extra``."""
    if config.thinking is None:
        return {}
    return {"chat_template_kwargs": {"enable_thinking": bool(config.thinking)}}


def anthropic_thinking(config: GenerationConfig) -> dict[str, Any] | None:
    """Anthropic's ``thinking`` parameter for ``config`` (``None`` if unset)."""
    if config.thinking is None:
        return None
    if config.thinking is False:
        return {"type": "disabled"}
    budget = ANTHROPIC_MIN_BUDGET if config.thinking is True else int(config.thinking)
    return {"type": "enabled", "budget_tokens": budget}


__all__ = ["ANTHROPIC_MIN_BUDGET", "EXTRA_PREFIX", "GENERATION_OPTIONS", "STRUCTURED_MODES",
           "anthropic_thinking", "check_for_endpoint", "generation_config",
           "is_generation_option", "merge", "thinking_body"]
