"""Hostile command lines for every ``accord`` command (issue 24, item 5).

Shared by ``tests/fuzz/test_cli_fuzz.py`` (small counts) and ``benchmarks/fuzz.py --cli``
(large counts). :func:`cases` draws, from a seeded ``random.Random``, command lines of
four classes:

- **files**: a command that reads a file (scenario, game, instance, bench config, DoND data,
  a task universe) given a mutated shipped file (a value replaced by a wrong type, the text
  cut, spliced or made binary);
- **stores**: every command that reads a results store or an LLM cache given a damaged or
  foreign file (garbage, a foreign SQLite database, a truncated copy, a copy with a page
  overwritten, an empty file, a folder, a missing path);
- **out**: every command that writes a file given a special output path (``/dev/full``, a
  name too long for the OS, a folder, a missing parent);
- **options**: option values of the wrong kind (negative counts, unknown names, ``human``
  in a bench spec).

:func:`run_case` runs one in-process through the root group (the error boundary included)
and classifies it: ``ok`` when the exit code is allowed (0 or 2, plus 1 for commands whose
1 means "found a problem"), no ``Traceback`` is on stderr and, under ``--json``, stdout
is exactly one JSON document; else ``crash``.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fuzzlib
import yaml

REPO = fuzzlib.REPO
SRC = fuzzlib.SRC
#: exit codes every command may end with on hostile input
ALLOWED = frozenset({0, 2})
#: also 1 for commands whose 1 is a verdict ("the check found problems", "nothing to
#: tabulate"), never a crash: the boundary's internal errors say "internal error"
VERDICT = frozenset({0, 1, 2})


@dataclass(frozen=True)
class CliCase:
    """One command line: ``argv`` (``{d}`` is the case's folder), the files to write there
    first (name -> bytes), how it was made and the exit codes it may end with."""

    argv: tuple[str, ...]
    files: tuple[tuple[str, bytes], ...] = ()
    how: str = ""
    allowed: frozenset[int] = ALLOWED
    stores: tuple[tuple[str, str], ...] = ()  # name -> store variant (made in the folder)


@dataclass
class CliOutcome:
    """What one case did."""

    how: str
    status: str  # ok | crash
    code: int
    detail: str = ""
    argv: tuple[str, ...] = field(default_factory=tuple)


# -- file inputs -----------------------------------------------------------------------

def _seed_texts(loader: str) -> list[str]:
    return fuzzlib.LOADERS[loader].seed_texts()


def _paths(data: Any) -> list[tuple[Any, ...]]:
    return fuzzlib._paths(data)


def mutate_data(rng: random.Random, text: str, fmt: str) -> tuple[bytes, str]:
    """``text`` parsed, one value replaced by a hostile one, serialised again."""
    data = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    paths = _paths(data)
    if not paths:
        return text.encode(), "unchanged"
    path = rng.choice(paths)
    value = rng.choice(HOSTILE)
    data = copy.deepcopy(data)
    if path:
        parent = fuzzlib._get(data, path[:-1])
        parent[path[-1]] = copy.deepcopy(value)
    else:
        data = copy.deepcopy(value)
    out = (json.dumps(data, default=str) if fmt == "json"
           else yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return out.encode("utf-8", "surrogatepass"), f"{'/'.join(map(str, path))}={_short(value)}"


def mutate_text(rng: random.Random, text: str) -> tuple[bytes, str]:
    """``text`` cut, spliced with a snippet, or turned into bytes that are not text."""
    raw = text.encode("utf-8")
    how = rng.randrange(5)
    if how == 0:
        cut = rng.randrange(len(raw) + 1)
        return raw[:cut], f"cut at {cut}"
    if how == 1:
        at = rng.randrange(len(text) + 1)
        snip = rng.choice(fuzzlib.SNIPPETS)
        return (text[:at] + snip + text[at:]).encode("utf-8", "surrogatepass"), \
            f"snippet {snip[:20]!r} at {at}"
    if how == 2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))), "binary"
    if how == 3:
        return b"", "empty"
    return raw[:64] + b"\xff\xfe\x80" + raw[64:], "invalid utf-8"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


#: hostile replacement values: the wrong type where a mapping, list or number is read
HOSTILE: tuple[Any, ...] = (
    [1, 2], 3.5, -1, 0, "x", None, {}, {"a": 1}, True, 10**30, "", [[]], [{}], "human",
    "human,human", {"k": [1, {"x": None}]}, list(range(40)), -1e308, "1e400",
    *fuzzlib.NASTY[:12],
)

#: commands that read a file: (argv with ``{f}`` for the file, loader of the seed, format,
#: suffix, allowed exit codes)
FILE_COMMANDS: tuple[tuple[tuple[str, ...], str, str, str, frozenset[int]], ...] = (
    (("analyze", "{f}", "--json"), "bargaining", "yaml", ".yaml", ALLOWED),
    (("run", "{f}", "--agents", "boulware,conceder", "--json", "--max-rounds", "3"),
     "bargaining", "yaml", ".yaml", VERDICT),
    (("games", "solve", "{f}", "--json"), "games-yaml", "yaml", ".yaml", ALLOWED),
    (("run", "games/{f}", "--agents", "rational,rational", "--json"), "games-yaml", "yaml",
     ".yaml", VERDICT),
    (("task-exchange", "prompt", "{f}", "--state"), "task-exchange-scenario", "yaml",
     ".yaml", ALLOWED),
    (("task-exchange", "run", "{f}", "--json"), "task-exchange-scenario", "yaml", ".yaml",
     VERDICT),
    (("task-exchange", "generate", "--tasks", "{f}", "--model", "mock/none", "--out",
      "{d}/gen.yaml", "--json"), "task-exchange-tasks", "yaml", ".yaml", VERDICT),
    (("deliberation", "solve", "{f}", "--json"), "deliberation", "json", ".json", ALLOWED),
    (("deliberation", "check", "{f}"), "deliberation", "json", ".json", VERDICT),
    (("deliberation", "run", "menu-numeric", "-i", "{f}", "--json", "--max-rounds", "2"),
     "deliberation", "json", ".json", VERDICT),
    (("bench", "{f}", "--dry-run", "--json", "--out", "{d}/b.db"), "bench", "yaml", ".yaml",
     ALLOWED),
    (("dond", "stats", "--data", "{f}", "--json"), "dond", "text", ".txt", ALLOWED),
    (("dond", "meta", "--data", "{f}", "--limit", "1", "--json"), "dond", "text", ".txt",
     VERDICT),
)


def file_case(rng: random.Random) -> CliCase:
    """A file-reading command on a mutated shipped file."""
    argv, loader, fmt, suffix, allowed = rng.choice(FILE_COMMANDS)
    text = rng.choice(_seed_texts(loader))
    if fmt != "text" and rng.random() < 0.7:
        data, how = mutate_data(rng, text, fmt)
    else:
        data, how = mutate_text(rng, text)
    name = f"input{suffix}"
    args = tuple(a.replace("{f}", "{d}/" + name) for a in argv)
    return CliCase(args, ((name, data),), f"{argv[0]} {argv[1]} {loader}: {how}", allowed)


# -- stores ------------------------------------------------------------------------------

#: store variants :func:`make_store` can build
STORE_VARIANTS = ("garbage", "foreign", "truncated", "page", "empty", "folder", "missing",
                  "meta-only", "bad-version", "zdicts-damaged")

#: commands that read a store: argv with ``{s}`` for the store, allowed exit codes
STORE_COMMANDS: tuple[tuple[tuple[str, ...], frozenset[int]], ...] = (
    (("results", "{s}", "--json"), VERDICT),
    (("results", "{s}", "--layout", "task-exchange"), VERDICT),
    (("results", "{s}", "--layout", "deliberation", "--format", "json"), VERDICT),
    (("results", "{s}", "--per-episode", "--json"), VERDICT),
    (("show", "{s}", "a", "--json"), ALLOWED),
    (("approve", "{s}", "a", "--json"), ALLOWED),
    (("report", "{s}", "--out", "{d}/r.html"), ALLOWED),
    (("task-exchange", "tables", "{s}", "--json"), VERDICT),
    (("games", "plot", "{s}", "--out", "{d}/plots", "--json"), VERDICT),
    (("store", "check", "{s}", "--json"), VERDICT),
    (("store", "check", "{s}", "--repair", "{d}/fixed.db"), VERDICT),
    (("cache", "stats", "{s}", "--json"), ALLOWED),
    (("bench", "demo", "--out", "{s}", "--dry-run", "--json"), ALLOWED),
)


def make_store(variant: str, folder: Path, template: Path, rng: random.Random) -> Path:
    """A damaged or foreign store named ``store.db`` in ``folder``, copied from the
    healthy ``template`` where the variant needs one."""
    path = folder / "store.db"
    if variant == "garbage":
        path.write_bytes(bytes(rng.randrange(256) for _ in range(3000)))
    elif variant == "foreign":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE episodes (x)")
        conn.close()
    elif variant == "truncated":
        raw = template.read_bytes()
        path.write_bytes(raw[:rng.randrange(100, len(raw))])
    elif variant in ("page", "zdicts-damaged"):
        raw = bytearray(template.read_bytes())
        pages = len(raw) // 4096
        page = rng.randrange(1, pages) if variant == "page" else _zdict_page(template)
        raw[page * 4096:(page + 1) * 4096] = bytes([rng.randrange(256)]) * 4096
        path.write_bytes(bytes(raw))
    elif variant == "empty":
        path.write_bytes(b"")
    elif variant == "folder":
        path.mkdir()
    elif variant in ("meta-only", "bad-version"):
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            conn.execute("INSERT INTO meta VALUES ('schema', ?)",
                         ("2" if variant == "meta-only" else "99",))
        conn.close()
    return path


def _zdict_page(template: Path) -> int:
    """A page of the template's dictionary (0-based page index)."""
    with sqlite3.connect(f"file:{template}?mode=ro", uri=True) as conn:
        try:
            row = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='zdicts'"
                               ).fetchone()
        except sqlite3.DatabaseError:
            row = None
    conn.close()
    return max(1, (row[0] if row else 2))  # root page n is index n-1; its overflow after


def store_case(rng: random.Random) -> CliCase:
    """A store-reading command on a damaged or foreign store."""
    argv, allowed = rng.choice(STORE_COMMANDS)
    variant = rng.choice(STORE_VARIANTS)
    args = tuple(a.replace("{s}", "{d}/store.db") for a in argv)
    return CliCase(args, (), f"{argv[0]} {argv[1]} on a {variant} store", allowed,
                   (("store.db", variant),))


# -- output paths ------------------------------------------------------------------------

#: special output paths: label -> path (``{d}`` is the case's folder)
OUT_PATHS = {
    "/dev/full": "/dev/full",
    "too long": "{d}/" + "n" * 300 + ".out",
    "too long (deep)": "{d}/" + "/".join(["d" * 250] * 20) + "/x.out",
    "a folder": "{d}",
    "missing parent": "{d}/no/such/folder/x.out",
    "under a file": "{d}/afile/x.out",
}

#: commands that write a file: argv with ``{o}`` for the output path
OUT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("run", "bargaining/split", "--agents", "boulware,conceder", "--out", "{o}", "--json"),
    ("run", "bargaining/split", "--agents", "boulware,conceder", "--save", "{o}"),
    ("results", "{d}/good.db", "--out", "{o}"),
    ("results", "{d}/good.db", "--format", "csv", "--out", "{o}"),
    ("report", "{d}/good.db", "--out", "{o}"),
    ("games", "plot", "{d}/good.db", "--out", "{o}", "--json"),
    ("deliberation", "generate", "menu-numeric", "--out", "{o}", "--candidates", "2"),
    ("task-exchange", "plot", "cooperative", "--out", "{o}", "--runs", "1"),
    ("configs", "copy", "demo", "{o}"),
    ("bench", "demo", "--out", "{o}", "--json", "--limit", "1"),
    ("store", "check", "{d}/good.db", "--repair", "{o}"),
    ("cache", "stats", "{o}", "--json"),
)


def out_case(rng: random.Random) -> CliCase:
    """A writing command aimed at a special output path."""
    argv = rng.choice(OUT_COMMANDS)
    label = rng.choice(sorted(OUT_PATHS))
    target = OUT_PATHS[label]
    args = tuple(a.replace("{o}", target) for a in argv)
    return CliCase(args, (("afile", b"x"),), f"{argv[0]} {argv[1]} --out {label}", VERDICT
                   if argv[0] in ("results",) else ALLOWED, (("good.db", "good"),))


# -- option values -----------------------------------------------------------------------

OPTION_CASES: tuple[tuple[str, ...], ...] = (
    ("bench", "{d}/human.yaml", "--dry-run", "--json"),
    ("bench", "{d}/human.yaml", "--json", "--out", "{d}/h.db"),
    ("run", "bargaining/split", "--agents", "human,human,human", "--json"),
    ("run", "bargaining/split", "--agents", "nosuchkind,linear", "--json"),
    ("run", "bargaining/split", "--agents", "boulware,conceder", "--param", "x=[", "--json"),
    ("run", "bargaining/split", "--agents", "boulware,conceder", "--wall-clock", "nan"),
    ("run", "nosuchdomain/x", "--agents", "a,b", "--json"),
    ("run", "deliberation/menu-numeric", "--agents", "share,share", "--instance", "-5",
     "--json"),
    ("games", "play", "prisoners-dilemma", "--agents", "rational", "--json"),
    ("games", "solve", "no-such-game", "--json"),
    ("deliberation", "run", "menu-numeric", "-i", "99999", "--json"),
    ("deliberation", "run", "nosuch", "--json"),
    ("deliberation", "generate", "menu-numeric", "--candidates", "-3", "--out",
     "{d}/g.json"),
    ("task-exchange", "prompt", "competitive", "--role", "Nobody", "--state"),
    ("task-exchange", "run", "competitive", "--strategy", "nosuch", "--json"),
    ("dond", "stats", "--data", "{d}/missing.txt", "--json"),
    ("dond", "meta", "--data", "{d}", "--json"),
    ("results", "{d}/good.db", "--group-by", "no.such.field", "--json"),
    ("results", "{d}/good.db", "--format", "xml"),
    ("results", "{d}/good.db", "--layout", "nosuch"),
    ("show", "{d}/good.db", "", "--json"),
    ("approve", "{d}/good.db", "0", "--reject", "--json"),
    ("cache", "stats", "{d}/human.yaml", "--json"),
    ("configs", "show", "nosuch"),
    ("run", "bargaining/split", "--agents", "boulware,conceder", "--cache-mode", "replay",
     "--json"),
)

HUMAN_CONFIG = (b"name: h\ndomain: bargaining\nscenarios: [split]\n"
                b"agents: [[human, boulware]]\nseeds: 1\n")


def option_case(rng: random.Random) -> CliCase:
    """A command given option values of the wrong kind."""
    argv = rng.choice(OPTION_CASES)
    return CliCase(argv, (("human.yaml", HUMAN_CONFIG),), "options: " + " ".join(argv[:3]),
                   ALLOWED, (("good.db", "good"),))


GENERATORS = {"files": file_case, "stores": store_case, "out": out_case,
              "options": option_case}


def cases(n: int, seed: int = 0, kinds: tuple[str, ...] = tuple(GENERATORS)) -> list[CliCase]:
    """``n`` cases drawn in turn from the generators ``kinds``."""
    rng = random.Random(seed)
    return [GENERATORS[kinds[i % len(kinds)]](rng) for i in range(n)]


# -- running -----------------------------------------------------------------------------

def build_template(folder: Path) -> Path:
    """A small healthy store (the demo bench), copied by the store variants."""
    from typer.testing import CliRunner

    from accord.cli.main import app

    path = folder / "template.db"
    if not path.exists():
        res = CliRunner().invoke(app, ["bench", "demo", "--out", str(path), "--json",
                                       "--quiet"])
        assert res.exit_code == 0, res.output
    return path


def _prepare(case: CliCase, folder: Path, template: Path, rng: random.Random) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, data in case.files:
        (folder / name).write_bytes(data)
    for name, variant in case.stores:
        if variant == "good":
            shutil.copy(template, folder / name)
        else:
            make_store(variant, folder, template, rng)


def run_case(case: CliCase, folder: Path, template: Path, seed: int = 0) -> CliOutcome:
    """Run one case in-process (through the root group and its error boundary)."""
    from typer.testing import CliRunner

    from accord.cli.main import app

    _prepare(case, folder, template, random.Random(seed))
    argv = [a.replace("{d}", str(folder)) for a in case.argv]
    res = CliRunner().invoke(app, argv, env={"ACCORD_DEBUG": "", "COLUMNS": "100"})
    code = res.exit_code
    stderr = res.stderr
    problems = []
    if code not in case.allowed:
        problems.append(f"exit {code}")
    if "Traceback" in stderr or "Traceback" in res.stdout:
        problems.append("traceback")
    if "internal error" in stderr:
        problems.append("internal error")
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        problems.append(f"escaped {type(res.exception).__name__}: {res.exception}")
    if "--json" in argv:
        try:
            json.loads(res.stdout)
        except ValueError:
            problems.append(f"stdout is not one JSON document: {res.stdout[:200]!r}")
    detail = "; ".join(problems)
    if problems:
        detail += f" | stderr: {stderr.strip()[-400:]}"
    return CliOutcome(case.how, "crash" if problems else "ok", code, detail, tuple(argv))


__all__ = ["GENERATORS", "CliCase", "CliOutcome", "build_template", "cases", "run_case"]
