"""Labelled leak corpora: load one and score a detector on it.

A corpus is a YAML file with ``profiles`` (a party's private values: ``batna``,
``weights`` ``{issue: w}``, ``scores`` ``{issue: {value: s}}``, ``packages`` (utilities
of packages on record), ``public`` issue values and ``others``, the other parties'
names; the profile's key is the party's role) and ``messages`` (``p`` the profile,
``text``, ``leak`` true or false, ``class`` the notation or the kind of hard negative,
optional ``target`` and ``split``: ``dev``, ``holdout`` or ``fresh``). accord's own
corpus is ``tests/agents/data/leak_corpus.yaml``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from accord.agents.guards.detector import Leak, LeakConfig, LeakDetector, PrivateValue


@dataclass(frozen=True)
class Profile:
    """One party's private values as the detector is given them."""

    role: str
    batna: float
    private: tuple[PrivateValue, ...]
    public: tuple[object, ...] = ()
    others: tuple[str, ...] = ()

    def detector(self, config: LeakConfig | None = None) -> LeakDetector:
        """A detector set up with these values."""
        return LeakDetector(self.batna, self.private, public=self.public, role=self.role,
                            others=self.others, config=config)


@dataclass(frozen=True)
class Example:
    """One labelled message."""

    profile: str
    text: str
    leak: bool
    cls: str
    target: str | None = None
    split: str = "dev"


def private_values(weights: Mapping[str, float], scores: Mapping[str, Mapping[str, float]],
                   packages: list[float] | tuple[float, ...] = ()) -> list[PrivateValue]:
    """Labelled private values from weights, per-issue scores and package utilities."""
    out = [PrivateValue(float(w), "weight", f"the weight of {k} ({w:g})")
           for k, w in weights.items()]
    for issue, table in scores.items():
        out.extend(PrivateValue(float(s), "score", f"the score of {issue}={v} ({s:g})")
                   for v, s in table.items())
    out.extend(PrivateValue(float(u), "package", f"the utility of a package on record ({u:g})")
               for u in packages)
    return out


def load_corpus(path: str | Path) -> tuple[dict[str, Profile], list[Example]]:
    """The profiles and the labelled messages of the corpus at ``path``."""
    data: dict[str, Any] = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    profiles = {}
    for role, p in data["profiles"].items():
        privs = private_values(p.get("weights") or {}, p.get("scores") or {},
                               list(p.get("packages") or ()))
        profiles[role] = Profile(role, float(p["batna"]), tuple(privs),
                                 tuple(p.get("public") or ()), tuple(p.get("others") or ()))
    examples = [Example(m["p"], m["text"], bool(m["leak"]), m["class"], m.get("target"),
                        m.get("split", "dev"))
                for m in data["messages"]]
    unknown = {e.profile for e in examples} - set(profiles)
    if unknown:
        raise ValueError(f"messages refer to unknown profiles {sorted(unknown)}")
    return profiles, examples


@dataclass
class Score:
    """Confusion counts with precision, recall and F1."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    errors: list[tuple[Example, list[Leak]]] = field(default_factory=list)

    def add(self, ex: Example, predicted: bool, leaks: list[Leak]) -> None:
        """Count one prediction (keeping the wrong ones)."""
        if predicted and ex.leak:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif ex.leak:
            self.fn += 1
        else:
            self.tn += 1
        if predicted != ex.leak:
            self.errors.append((ex, leaks))

    @property
    def precision(self) -> float:
        """Flagged messages that leak (1.0 when nothing was flagged)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """Leaking messages that were flagged (1.0 when none leak)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def n(self) -> int:
        """Messages scored."""
        return self.tp + self.fp + self.fn + self.tn


Classify = Callable[[Profile, str], list[Leak]]


def predict(profiles: Mapping[str, Profile], examples: list[Example],
            classify: Classify | None = None, config: LeakConfig | None = None
            ) -> list[list[Leak]]:
    """What ``classify`` (default: the rule detector) finds in each example."""
    detectors = {k: p.detector(config) for k, p in profiles.items()}

    def rules(profile: Profile, text: str) -> list[Leak]:
        return detectors[profile.role].find(text)

    run = classify or rules
    return [run(profiles[ex.profile], ex.text) for ex in examples]


def tally(examples: list[Example], found: list[list[Leak]]) -> tuple[Score, dict[str, Score]]:
    """Overall and per-class scores of the findings ``found`` (one list per example)."""
    total, per = Score(), defaultdict[str, Score](Score)
    for ex, leaks in zip(examples, found, strict=True):
        total.add(ex, bool(leaks), leaks)
        per[ex.cls].add(ex, bool(leaks), leaks)
    return total, dict(per)


def evaluate(profiles: Mapping[str, Profile], examples: list[Example],
             classify: Classify | None = None, config: LeakConfig | None = None
             ) -> tuple[Score, dict[str, Score]]:
    """Overall and per-class scores of ``classify`` (default: the rule detector)."""
    return tally(examples, predict(profiles, examples, classify, config))
