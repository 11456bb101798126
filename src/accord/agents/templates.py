"""Prompt templates (Jinja2 files under ``accord/agents/prompts`` and domain ``prompts/``)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2


@lru_cache(maxsize=16)
def _env(package: str, folder: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, folder),
        undefined=jinja2.StrictUndefined,  # a missing variable is a bug, not an empty string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        # the templates are package files: a loaded one is not re-checked on disk (a stat
        # per render was a fifth of a prompt's rendering, benchmarks/bench_llm.py)
        auto_reload=False,
    )


def render(name: str, package: str = "accord.agents", folder: str = "prompts",
           **context: Any) -> str:
    """Render the template ``name`` from ``package``'s ``folder`` with ``context``."""
    return _env(package, folder).get_template(name).render(**context).strip()
