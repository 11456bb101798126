"""The built-in scenarios' YAML, parsed once ahead of time into ``data/builtin.json``.

``accord run bargaining/<built-in>`` would otherwise import PyYAML and run its pure-Python
safe loader (with accord's budgets) on every start, for a file that ships with the package
and never changes: about 0.04 s of CPU, a tenth of the command. The JSON twin holds, per
scenario, the SHA-256 of the YAML text it was made from and the parsed data; a scenario is
read from the twin only when the YAML file's digest matches, so an edited file is parsed
from its YAML again (never a stale twin). YAML mappings with keys JSON cannot carry (the
integer levels of ``values: {price: {800: 1.0}}``) are written as ``{"(pairs)": [[key,
value], ...]}``; a scenario whose data does not come back exactly (types, values and key
order) is left out of the twin.

Regenerate after editing a built-in scenario:
``ACCORD_UPDATE_GOLDEN=1 pytest tests/domains/bargaining/test_twin.py`` (the test fails,
naming the scenario, while the twin is out of date).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from accord.core.safeload import parse_yaml
from accord.domains.bargaining.listing import data_dir

#: the twin's file name in the scenarios' data folder
TWIN_FILE = "builtin.json"
#: bump when the twin's layout changes
TWIN_VERSION = 1


def digest(text: str) -> str:
    """The SHA-256 of a scenario file's text (UTF-8), as the twin records it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: the one key of a JSON object that stands for a mapping with non-string keys
PAIRS = "(pairs)"


def encode(data: Any) -> Any:
    """``data`` (parsed YAML) in JSON's types: a mapping with a key that is not a string
    becomes ``{PAIRS: [[key, value], ...]}``, in its order."""
    if isinstance(data, dict):
        if all(isinstance(k, str) for k in data):
            return {k: encode(v) for k, v in data.items()}
        return {PAIRS: [[k, encode(v)] for k, v in data.items()]}
    if isinstance(data, list):
        return [encode(v) for v in data]
    return data


def _decode_object(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and PAIRS in obj:
        return {k: v for k, v in obj[PAIRS]}
    return obj


def decode(text: str) -> Any:
    """JSON text written from :func:`encode` back to the parsed YAML data."""
    return json.loads(text, object_hook=_decode_object)


def same(a: Any, b: Any) -> bool:
    """Equal with equal types and mapping key order (``1``, ``1.0`` and ``True`` differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (list(map(type, a)) == list(map(type, b)) and list(a) == list(b)
                and all(same(a[k], b[k]) for k in a))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (a != a and b != b)  # NaN is NaN


def build_twin(texts: Mapping[str, str]) -> dict[str, Any]:
    """The twin of ``{name: YAML text}``: each scenario's digest and parsed data (as
    :func:`encode` writes it), leaving out any whose data does not come back exactly."""
    scenarios: dict[str, Any] = {}
    for name in sorted(texts):
        data = parse_yaml(texts[name], f"bargaining/{name}").data
        encoded = encode(data)
        try:
            back = decode(json.dumps(encoded, allow_nan=False))
        except (TypeError, ValueError):  # a date, bytes, ...: not JSON at all
            continue
        if same(back, data):
            scenarios[name] = {"sha256": digest(texts[name]), "data": encoded}
    return {"about": "generated from the YAML files in this folder (accord.domains."
                     "bargaining.twin); edit those, not this file",
            "version": TWIN_VERSION, "scenarios": scenarios}


def render_twin(twin: Mapping[str, Any]) -> str:
    """The twin as the text of ``data/builtin.json`` (stable, one key per line)."""
    return json.dumps(twin, indent=1, ensure_ascii=False) + "\n"


@lru_cache(maxsize=1)
def _twin() -> dict[str, Any]:
    try:
        twin = decode((data_dir() / TWIN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no twin (or a broken one): every scenario is read from its YAML
    if not isinstance(twin, dict) or twin.get("version") != TWIN_VERSION:
        return {}
    scenarios = twin.get("scenarios")
    return scenarios if isinstance(scenarios, dict) else {}


def builtin_data(name: str, text: str) -> Any:
    """The parsed data of built-in scenario ``name`` whose YAML text is ``text``: from the
    twin when it was made from this very text, else parsed from the YAML."""
    entry = _twin().get(name)
    if isinstance(entry, dict) and entry.get("sha256") == digest(text):
        return entry["data"]
    return parse_yaml(text, f"bargaining/{name}").data


__all__ = ["PAIRS", "TWIN_FILE", "TWIN_VERSION", "build_twin", "builtin_data", "decode",
           "digest", "encode", "render_twin", "same"]
