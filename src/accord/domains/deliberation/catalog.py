"""The shipped instances (60 per setting) under ``data/instances/<setting>/NN.json``."""

from __future__ import annotations

import functools
from pathlib import Path

from accord.core.names import unknown_name
from accord.domains.deliberation.database import DATA_DIR
from accord.domains.deliberation.errors import InstanceError
from accord.domains.deliberation.load import SETTINGS, Instance, load_instance

INSTANCE_DIR = DATA_DIR / "instances"
"""Where the shipped instances live."""


def instance_paths(setting: str) -> list[Path]:
    """The shipped instance files of a setting, in index order."""
    if setting not in SETTINGS:
        raise KeyError(unknown_name("setting", setting, SETTINGS))
    return sorted((INSTANCE_DIR / setting).glob("*.json"))


def instance_count(setting: str) -> int:
    """How many instances ship for ``setting``."""
    return len(instance_paths(setting))


@functools.lru_cache(maxsize=256)
def shipped_instance(setting: str, index: int) -> Instance:
    """Shipped instance ``index`` of ``setting`` (``menu-numeric``, 7)."""
    paths = instance_paths(setting)
    if not 0 <= index < len(paths):
        raise InstanceError(str(INSTANCE_DIR / setting), "instance",
                            f"index {index} out of range 0..{len(paths) - 1}")
    inst = load_instance(paths[index])
    if inst.setting != setting:
        raise InstanceError(str(paths[index]), "setting",
                            f"file says {inst.setting!r}, expected {setting!r}")
    return inst
