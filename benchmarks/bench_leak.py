"""Issue 12 benchmark: the leak guard's precision, recall and speed on the labelled corpus.

Scores the rule detector (:mod:`accord.agents.guards.detector`) on
``tests/agents/data/leak_corpus.yaml`` and prints precision, recall and F1 overall, per
split and per class: for leaking classes (the notation of the disclosed value) the
recall, for non-leaking classes (the kind of hard negative) the false positives. Then
the time per message, both with a detector set up once per party and set up per call
(as the LLM negotiator does, since the packages on record change every turn).

The splits say how far to trust the figures: ``dev`` was written alongside the rules,
``holdout`` after them (first run before any fix: P 0.968, R 0.769), ``fresh`` after
the holdout fixes (first and only run: P 1.000, R 0.800). The fresh figure is the
honest estimate for paraphrases nobody has seen; the optional LLM judge is for those.

    python benchmarks/bench_leak.py [--errors] [--json] [--repeat 5] [--corpus PATH]
    python benchmarks/bench_leak.py --judge openai/gpt-4.1-mini   # rules, then the judge

``--judge MODEL`` asks the LLM leak judge about every message the rules pass (as
``guard_judge=MODEL`` does) and scores the combination; it calls that endpoint once per
such message.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _util import machine

from accord.agents.guards import Leak, load_corpus
from accord.agents.guards.corpus import Example, Profile, Score, predict, tally

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "agents" / "data" / "leak_corpus.yaml"


def _row(name: str, s: Score) -> dict[str, Any]:
    return {"class": name, "n": s.n, "tp": s.tp, "fp": s.fp, "fn": s.fn, "tn": s.tn,
            "precision": round(s.precision, 4), "recall": round(s.recall, 4),
            "f1": round(s.f1, 4)}


def _timing(profiles: dict[str, Profile], examples: list[Example], repeat: int
            ) -> dict[str, float]:
    detectors = {k: p.detector() for k, p in profiles.items()}
    reused, fresh = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for ex in examples:
            detectors[ex.profile].find(ex.text)
        reused.append((time.perf_counter() - t0) / len(examples))
        t0 = time.perf_counter()
        for ex in examples:
            profiles[ex.profile].detector().find(ex.text)
        fresh.append((time.perf_counter() - t0) / len(examples))
    return {"us_per_message": statistics.median(reused) * 1e6,
            "us_per_message_setup_per_call": statistics.median(fresh) * 1e6}


def _judge_classifier(model: str) -> Any:
    from accord.agents.guards.judge import LeakJudge
    from accord.agents.llm_support import runtime_for

    judge = LeakJudge(runtime_for({}).client(model))
    loop = asyncio.new_event_loop()

    def classify(profile: Profile, text: str) -> list[Leak]:
        found = profile.detector().find(text)
        if found:
            return found
        verdict = loop.run_until_complete(judge.check(
            text, role=profile.role, batna=profile.batna, private=profile.private,
            public=profile.public))
        return [Leak("judge", text, reason=verdict.reason)] if verdict.leak else []

    return classify


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--errors", action="store_true", help="list the misclassified messages")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--judge", default=None, help="also ask this LLM judge (provider/model)")
    args = ap.parse_args(argv)

    profiles, examples = load_corpus(args.corpus)
    classify = _judge_classifier(args.judge) if args.judge else None
    found = predict(profiles, examples, classify)
    total, per_class = tally(examples, found)
    splits = {}
    for split in sorted({e.split for e in examples}):
        rows = [(e, f) for e, f in zip(examples, found, strict=True) if e.split == split]
        splits[split] = tally([e for e, _ in rows], [f for _, f in rows])[0]
    timing = _timing(profiles, examples, args.repeat)
    leaking = sorted(c for c, s in per_class.items() if s.tp + s.fn)
    clean = sorted(c for c in per_class if c not in leaking)
    out = {"corpus": args.corpus, "messages": len(examples),
           "leaking": sum(e.leak for e in examples), "judge": args.judge,
           "overall": _row("all", total),
           "splits": [_row(k, s) for k, s in splits.items()],
           "leaking_classes": [_row(c, per_class[c]) for c in leaking],
           "clean_classes": [_row(c, per_class[c]) for c in clean],
           "timing": {k: round(v, 2) for k, v in timing.items()}, "machine": machine(),
           "errors": [{"text": e.text, "leak": e.leak, "class": e.cls, "split": e.split,
                       "found": [lk.reason for lk in lks]} for e, lks in total.errors]}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"leak guard on {len(examples)} messages ({out['leaking']} leaking), "
          f"{'rules + judge ' + args.judge if args.judge else 'rules only'}; {machine()}")
    print(f"overall   P {total.precision:.3f}  R {total.recall:.3f}  F1 {total.f1:.3f}  "
          f"(tp {total.tp}, fp {total.fp}, fn {total.fn}, tn {total.tn})")
    for k, s in splits.items():
        print(f"  split {k:8s} n={s.n:3d}  P {s.precision:.3f}  R {s.recall:.3f}  "
              f"F1 {s.f1:.3f}")
    print("leaking classes (by notation): recall")
    for c in leaking:
        s = per_class[c]
        print(f"  {c:20s} n={s.n:3d}  R {s.recall:.3f}  (missed {s.fn})")
    print("non-leaking classes: false positives")
    for c in clean:
        s = per_class[c]
        print(f"  {c:20s} n={s.n:3d}  FP {s.fp}  (specificity {s.tn / s.n:.3f})")
    print(f"time per message: {timing['us_per_message']:.1f} us with a detector per party, "
          f"{timing['us_per_message_setup_per_call']:.1f} us set up per call")
    if args.errors:
        for e in out["errors"]:
            print(f"  {'FN' if e['leak'] else 'FP'} [{e['split']}/{e['class']}] {e['text']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
