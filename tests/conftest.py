"""Shared fixtures: small scenarios built in code and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from accord.domains.bargaining import parse_scenario

REPO = Path(__file__).resolve().parents[1]


def shared_data(*parts: str) -> Path:
    """Path under ``../shared/data`` (or ``$ACCORD_DATA``)."""
    base = Path(os.environ.get("ACCORD_DATA", REPO.parent / "shared" / "data"))
    return base.joinpath(*parts)


LAPTOP = {
    "name": "laptop-sale",
    "issues": {"price": [900, 1000, 1100, 1200], "warranty": [0, 1, 2]},
    "parties": {
        "buyer": {"batna": 0.3, "utility": {
            "type": "linear_additive", "weights": {"price": 0.7, "warranty": 0.3},
            "values": {"price": {900: 1.0, 1000: 0.7, 1100: 0.3, 1200: 0.0},
                       "warranty": {0: 0.0, 1: 0.6, 2: 1.0}}}},
        "seller": {"batna": 0.2, "utility": {
            "type": "table", "default": 0.0,
            "table": {"price=1200,warranty=0": 1.0, "price=1100,warranty=0": 0.8}}},
    },
}


@pytest.fixture
def laptop():
    """The issue's example scenario, parsed."""
    return parse_scenario(LAPTOP, "laptop.yaml")


@pytest.fixture
def laptop_dict():
    """The issue's example scenario as the mapping a YAML file holds."""
    import copy

    return copy.deepcopy(LAPTOP)
