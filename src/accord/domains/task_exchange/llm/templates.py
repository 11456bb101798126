"""Template loading for the task-exchange prompts and feedback (files under ``prompts/``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from accord.core.safeload import load_yaml

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
"""Directory holding the Jinja prompt templates and ``feedback.yaml``."""


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared Jinja environment: strict undefined names, block tags trimmed, no escaping."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPT_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    """Render the template file ``prompts/<name>`` with ``context``."""
    return environment().get_template(name).render(**context).strip() + "\n"


@lru_cache(maxsize=1)
def _feedback_templates() -> dict[str, jinja2.Template]:
    path = PROMPT_DIR / "feedback.yaml"
    data = load_yaml(path).data
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of reason -> template")
    env = environment()
    out = {}
    for key, text in data.items():
        if not isinstance(text, str):
            raise ValueError(f"{path}: {key}: template must be a string")
        out[str(key)] = env.from_string(text)
    return out


def render_feedback(reason: str, **context: Any) -> str:
    """The targeted feedback block for ``reason`` (``feedback.yaml``), without trailing space."""
    try:
        template = _feedback_templates()[reason]
    except KeyError:
        raise KeyError(f"no feedback template for reason {reason!r} in feedback.yaml") from None
    return template.render(**context).rstrip()


def feedback_reasons() -> list[str]:
    """Reasons that have a feedback template."""
    return list(_feedback_templates())


__all__ = ["PROMPT_DIR", "environment", "feedback_reasons", "render", "render_feedback"]
