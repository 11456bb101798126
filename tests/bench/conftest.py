"""Fixtures for the experiment runner tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

import accord.testing.sleep_domain  # noqa: F401  (registers the testing-sleep domain)
from accord.testing.marked import Marked, write_marked


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    """Write a bench config (a dict or YAML text) into tmp_path and return its path."""

    def write(data: dict | str, name: str = "cfg.yaml") -> Path:
        path = tmp_path / name
        text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
        path.write_text(text, encoding="utf-8")
        return path

    return write


def sleep_config(n: int = 4, delay: float = 0.0, **params: object) -> dict:
    """A testing-sleep config with ``n`` seeds (list-valued params are fixed values)."""
    fixed = {k: [v] if isinstance(v, list) else v for k, v in params.items()}
    return {
        "name": "nap",
        "plugins": ["accord.testing.sleep_domain"],
        "domain": "testing-sleep",
        "scenarios": ["nap"],
        "agents": [["sleeper", "sleeper"]],
        "params": {"delay": delay, **fixed},
        "seeds": n,
    }


@pytest.fixture
def nap_config() -> Callable[..., dict]:
    """Factory for testing-sleep configs."""
    return sleep_config


@pytest.fixture
def marked(tmp_path: Path) -> Marked:
    """The "marked" scenario (distinctive private numbers on each side) written to
    ``tmp_path / "marked.yaml"``: see :mod:`accord.testing.marked`."""
    return write_marked(tmp_path)
