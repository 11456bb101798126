"""LLM-Deliberation / ScorableGames game folders (Abdelnabi et al., NeurIPS 2024; also
TextArena's ScorableGames): a multi-party, multi-issue game scored by points.

A game folder holds (as in the public repository ``S-Abdelnabi/LLM-Deliberation``,
``games_descriptions/<game>/``):

- ``config.txt``: one line per party, ``name, file, role, incentive, model``; ``role`` is
  ``p1`` (proposes first and last, holds a veto), ``p2`` (holds a veto), ``target`` (the
  party a ``targeted_adv`` party works against) or ``player``;
- ``scores_files/<file>.txt``: one line of comma-separated option scores per issue (issue
  A first, options A1, A2, ...), the last line the party's minimum threshold;
- ``individual_instructions/<incentive>/<file>.txt``: the party's confidential briefing,
  with ``#A1_NUM`` / ``#A_MAX_NUM`` placeholders for its scores;
- ``global_instructions.txt``: the briefing every party reads;
- ``initial_deal.txt``: p1's opening deal, e.g. ``A1,B1,C4,D1,E5``.

The import is an accord bargaining scenario with the game's own rules: issues ``A``, ``B``,
... with options ``A1``, ``A2``, ...; each party's utility is the sum of its option scores
and its threshold is its BATNA; a deal passes with ``n - 1`` of ``n`` yes votes including
p1 and p2 (``acceptance: {k: n-1, required: [p1, p2]}``), a yes counts only if the deal
meets the voter's threshold (``thresholds: true``), a passed deal binds every party
(``binding: all``, "your score will be this final deal's score"), p1 gains 10 points when
every party agrees (``unanimity_bonus``), p1 opens with the initial deal and makes the
last proposal, and the round cap is the repository's ``4 x n`` rounds
plus p1's opening and closing ones (no stagnation rule: the game runs its rounds). The
instruction texts become the scenario's public
``instructions`` and each party's private ``instructions`` (placeholders filled as the
repository's ``initial_prompts.py`` fills them), and the incentive its ``persona``.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

from accord.agents.personas import PERSONAS
from accord.core.loadlimits import MIN_NUMBER, number_problem
from accord.formats.base import FormatError, Imported, read_file_text, tidy

#: the roles of ``config.txt``
ROLES = ("p1", "p2", "target", "player")
#: a game has at most this many issues (letters A..Z) and options per issue
MAX_ISSUES = 26
MAX_OPTIONS = 9  # options are written A1..A9 in deals (the repository's regex [1-9])
_OPTION = re.compile(r"^([A-Z])([1-9])$")


def _lines(path: Path) -> list[tuple[int, str]]:
    """(line number, stripped text) of the non-blank lines of ``path``."""
    if not path.is_file():
        raise FormatError(str(path), "<file>", "missing file")
    return [(i, line.strip()) for i, line in
            enumerate(read_file_text(path).splitlines(), start=1) if line.strip()]


def _number(path: Path, where: str, text: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(str(path), where, f"{text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise FormatError(str(path), where, f"{text!r} is not a finite number")
    value = tidy(value, MIN_NUMBER)  # below 1e-15 is 0 to accord
    problem = number_problem(value)  # what an accord scenario file may hold
    if problem is not None:
        raise FormatError(str(path), where, problem)
    return int(value) if value.is_integer() else value


def read_config(path: Path) -> list[dict[str, str]]:
    """The parties of ``config.txt`` in file order (name, file, role, incentive, model)."""
    rows: list[dict[str, str]] = []
    names: set[str] = set()
    for no, line in _lines(path):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 5 or not all(fields[:4]):
            raise FormatError(str(path), f"line {no}", f"expected 5 comma-separated fields "
                              f"(name, file, role, incentive, model), got {len(fields)}: "
                              f"{line[:120]!r}")
        name, file, role, incentive, model = fields
        if role not in ROLES:
            raise FormatError(str(path), f"line {no} role", f"unknown role {role!r}; roles "
                              f"are {', '.join(ROLES)}")
        if incentive not in PERSONAS:
            raise FormatError(str(path), f"line {no} incentive", f"unknown incentive "
                              f"{incentive!r}; accord's personas are {', '.join(PERSONAS)}")
        if name in names:
            raise FormatError(str(path), f"line {no} name", f"two parties are named {name!r}")
        if "/" in file or "\\" in file or file in ("", ".", ".."):
            raise FormatError(str(path), f"line {no} file", f"{file!r} is not a file name")
        names.add(name)
        rows.append({"name": name, "file": file, "role": role, "incentive": incentive,
                     "model": model, "line": str(no)})
    if len(rows) < 2:
        raise FormatError(str(path), "<file>", f"a game needs at least two parties, found "
                          f"{len(rows)}")
    for role in ("p1", "p2", "target"):
        holders = [r for r in rows if r["role"] == role]
        if len(holders) > 1:
            raise FormatError(str(path), f"line {holders[1]['line']} role", f"a second "
                              f"{role} ({holders[1]['name']!r}); only one party has role {role}")
        if not holders and role != "target":
            what = "opens and closes the negotiation" if role == "p1" else "holds a veto"
            raise FormatError(str(path), f"role {role}", f"no party has role {role} (the "
                              f"party who {what})")
    if any(r["incentive"] == "targeted_adv" for r in rows) and not any(
            r["role"] == "target" for r in rows):
        raise FormatError(str(path), "role target", "a targeted_adv party needs a party "
                          "with role target")
    return rows


def read_scores(path: Path) -> tuple[list[list[float | int]], float | int]:
    """(option scores per issue, minimum threshold) of one scores file."""
    lines = _lines(path)
    if len(lines) < 2:
        raise FormatError(str(path), "<file>", "expected one line of option scores per "
                          "issue and a last line with the minimum threshold")
    if len(lines) - 1 > MAX_ISSUES:
        raise FormatError(str(path), f"line {lines[MAX_ISSUES + 1][0]}", f"more than "
                          f"{MAX_ISSUES} issues")
    issues: list[list[float | int]] = []
    for no, line in lines[:-1]:
        parts = [p.strip() for p in line.split(",")]
        parts = parts[:-1] if parts and parts[-1] == "" else parts  # a trailing comma
        if len(parts) > MAX_OPTIONS:
            raise FormatError(str(path), f"line {no}", f"{len(parts)} options; at most "
                              f"{MAX_OPTIONS} per issue")
        issues.append([_number(path, f"line {no} option {k}", p)
                       for k, p in enumerate(parts, start=1)])
    no, last = lines[-1]
    if "," in last:
        raise FormatError(str(path), f"line {no}", "the last line is the minimum "
                          f"threshold, one number; got {last[:60]!r}")
    return issues, _number(path, f"line {no} (minimum threshold)", last)


def read_deal(path: Path, options: list[int]) -> dict[str, str]:
    """``initial_deal.txt``: one option per issue, in issue order."""
    lines = _lines(path)
    if not lines:
        raise FormatError(str(path), "<file>", "empty; expected a deal such as A1,B1,C4")
    no, line = lines[0]
    tokens = [t.strip() for t in line.split(",") if t.strip()]
    letters = string.ascii_uppercase
    if len(tokens) != len(options):
        raise FormatError(str(path), f"line {no}", f"{len(tokens)} options for "
                          f"{len(options)} issues")
    deal: dict[str, str] = {}
    for k, token in enumerate(tokens):
        m = _OPTION.match(token)
        if m is None or m.group(1) != letters[k] or int(m.group(2)) > options[k]:
            raise FormatError(str(path), f"line {no} option {token!r}", f"expected an "
                              f"option of issue {letters[k]} ({letters[k]}1 to "
                              f"{letters[k]}{options[k]})")
        deal[letters[k]] = token
    return deal


def fill_scores(text: str, scores: list[list[float | int]]) -> str:
    """The repository's placeholders filled: ``#A1_NUM`` -> A1's score, ``#A_MAX_NUM``
    -> issue A's largest score (as its ``initial_prompts.py`` does)."""
    for k, issue in enumerate(scores):
        letter = string.ascii_uppercase[k]
        for i, score in enumerate(issue, start=1):
            text = text.replace(f"#{letter}{i}_NUM", str(score))
        text = text.replace(f"#{letter}_MAX_NUM", str(max(issue)))
    return text


class LLMDeliberationImporter:
    """An LLM-Deliberation game folder (``config.txt``, ``scores_files/``, ...)."""

    description = ("LLM-Deliberation / ScorableGames game folder (config.txt, scores_files/, "
                   "individual_instructions/, global_instructions.txt, initial_deal.txt)")

    def __init__(self, name: str = "llm-deliberation") -> None:
        self.name = name

    def read(self, path: str) -> Imported:
        folder = Path(path)
        if not folder.is_dir():
            raise FormatError(path, "<folder>", "expected a game folder holding config.txt, "
                              "scores_files/, individual_instructions/, "
                              "global_instructions.txt and initial_deal.txt")
        config = read_config(folder / "config.txt")
        scores: dict[str, list[list[float | int]]] = {}
        minimums: dict[str, float | int] = {}
        first: tuple[Path, list[int]] | None = None
        for row in config:
            spath = folder / "scores_files" / f"{row['file']}.txt"
            issues, minimum = read_scores(spath)
            counts = [len(i) for i in issues]
            if first is None:
                first = (spath, counts)
            elif counts != first[1]:
                k = next((k for k in range(min(len(counts), len(first[1])))
                          if counts[k] != first[1][k]), min(len(counts), len(first[1])))
                line = _lines(spath)[min(k, len(issues) - 1)][0]
                raise FormatError(str(spath), f"line {line}", f"{len(counts)} issues with "
                                  f"{counts} options; {first[0].name} has {len(first[1])} "
                                  f"issues with {first[1]} options (every party scores the "
                                  "same options)")
            scores[row["name"]], minimums[row["name"]] = issues, minimum
        assert first is not None
        options = first[1]
        letters = string.ascii_uppercase
        issues_out = {letters[k]: [f"{letters[k]}{i}" for i in range(1, n + 1)]
                      for k, n in enumerate(options)}
        deal = read_deal(folder / "initial_deal.txt", options)
        public = _text(folder / "global_instructions.txt")
        by_role = {r["role"]: r["name"] for r in config if r["role"] != "player"}
        parties: dict[str, Any] = {}
        for row in config:
            name = row["name"]
            ipath = folder / "individual_instructions" / row["incentive"] / f"{row['file']}.txt"
            private = fill_scores(_text(ipath), scores[name])
            persona: Any = row["incentive"]
            if persona == "targeted_adv":
                persona = {"name": persona, "target": by_role["target"]}
            parties[name] = {
                "batna": minimums[name],
                "instructions": private,
                "persona": persona,
                "utility": {"type": "linear_additive",
                            "weights": dict.fromkeys(issues_out, 1),
                            "values": {letters[k]: dict(zip(issues_out[letters[k]], s,
                                                            strict=True))
                                       for k, s in enumerate(scores[name])}},
            }
        n = len(config)
        p1, p2 = by_role["p1"], by_role["p2"]
        rules = {"acceptance": {"k": n - 1, "required": [p1, p2]}, "thresholds": True,
                 "binding": "all", "opener": p1, "opening_offer": deal,
                 "unanimity_bonus": {p1: 10}, "max_rounds": 4 * n + 2,
                 "stagnation_rounds": 0}
        models = ", ".join(f"{r['name']} {r['model']}" for r in config if r["model"])
        desc = (f"LLM-Deliberation game {folder.name!r} (Abdelnabi et al., NeurIPS 2024): "
                f"{n} parties, {len(options)} issues; {p1} (p1) opens and closes, {p1} and "
                f"{p2} (p2) hold vetoes; a deal needs {n - 1} of {n} parties, each at or "
                "above its minimum score."
                + (f" Models in config.txt: {models}." if models else ""))
        notes: list[str] = []
        if models:
            notes.append("config.txt assigns models per party; accord seats the agents you "
                         "give with --agents (the models are kept in the description).")
        data = {"name": folder.name or "llm-deliberation", "description": desc,
                "instructions": public, "rules": rules, "issues": issues_out,
                "parties": parties}
        return Imported(data, tuple(notes))


def _text(path: Path) -> str:
    """An instruction file's text, each line's trailing blanks dropped (so it is written
    as a readable YAML block; a model reads the same words), runs of blank lines made one
    and a paragraph's stray leading blanks dropped (the repository's adversarial texts
    have both: a model is given clean paragraphs)."""
    raw = read_file_text(_existing(path))
    text = "\n".join(line.rstrip() for line in raw.splitlines()).strip("\n")
    text = re.sub(r"\n{3,}", "\n\n", text)
    return re.sub(r"\n\n[ \t]+", "\n\n", text) + "\n"


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise FormatError(str(path), "<file>", "missing file")
    return path


__all__ = [
    "ROLES",
    "LLMDeliberationImporter",
    "fill_scores",
    "read_config",
    "read_deal",
    "read_scores",
]
