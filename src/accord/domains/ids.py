"""The one episode id: a hash of the resolved spec, the same from every command.

``accord run``, ``accord bench`` and every domain command (and a library call that gives
no id) compute an episode's id here. The id is part of the LLM cache key, so a cache
recorded by one command replays under another. It hashes:

* the domain and the scenario's *content* when the scenario is a file (so moving or
  renaming the file keeps the id, editing it changes it), else the scenario's name;
* the agent specs, the parameters and the seed, and the repetition number;
* credential-looking values masked (key- and shape-based only, never the environment,
  so the id does not depend on which keys are set).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from accord.core.redact import Redactor
from accord.domains.base import EpisodeSpec

#: bump when the canonical form changes (it re-keys every stored episode and cache entry)
ID_VERSION = 2
#: hex digits kept from the SHA-256 (64 bits: collisions are negligible below ~10^8 episodes)
ID_LENGTH = 16
_MASK = Redactor(env_values=[])


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, non-JSON values as strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


@lru_cache(maxsize=1024)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def scenario_ref(scenario: str) -> str:
    """``sha256:<digest>`` of a scenario given as an existing file, else the name itself.

    ``DOMAIN/PATH.yaml`` and bare paths both count; built-in names stay names, so ids are
    the same on every machine.
    """
    for candidate in (scenario, scenario.partition("/")[2]):
        if not candidate:
            continue
        p = Path(candidate)
        if p.suffix in (".yaml", ".yml", ".json", ".txt") and p.is_file():
            st = p.stat()
            return "sha256:" + _file_digest(str(p.resolve()), st.st_mtime_ns, st.st_size)
    return scenario


def episode_key(spec: EpisodeSpec, repeat: int = 0) -> dict[str, Any]:
    """The canonical, credential-free description of one episode (what the id hashes)."""
    data = _MASK.clean(spec.to_dict())
    data["scenario"] = scenario_ref(spec.scenario)
    return {"v": ID_VERSION, "spec": data, "repeat": repeat}


def episode_id(spec: EpisodeSpec, repeat: int = 0) -> str:
    """The deterministic id of an episode: a hash of :func:`episode_key`."""
    digest = hashlib.sha256(canonical_json(episode_key(spec, repeat)).encode("utf-8"))
    return digest.hexdigest()[:ID_LENGTH]


__all__ = ["ID_LENGTH", "ID_VERSION", "canonical_json", "episode_id", "episode_key",
           "scenario_ref"]
