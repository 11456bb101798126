"""Writing imported scenarios as accord scenario YAML files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from accord.formats.base import Imported


class _Dumper(yaml.SafeDumper):
    """Safe YAML with multi-line texts (a game's instructions) as literal blocks."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def scenario_yaml(imported: Imported) -> str:
    """The scenario file text of an import (notes as comments at the top)."""
    head = "".join(f"# note: {n}\n" for n in imported.notes)
    body = yaml.dump(imported.data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=100)
    return head + body


def file_name(data: dict[str, Any]) -> str:
    """A safe file name for the scenario named in ``data``."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", str(data.get("name", "imported"))).strip("-.")
    return f"{stem or 'imported'}.yaml"


def write_scenario(imported: Imported, out_dir: Path) -> Path:
    """Write the import into ``out_dir`` (created if needed); the path written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / file_name(imported.data)
    path.write_text(scenario_yaml(imported), encoding="utf-8")
    return path
