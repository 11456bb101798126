"""Issue 12's file classes as fixtures, run by ``test_fixtures.py`` in an rlimited child.

``python fileclasses.py --fixtures DIR`` writes every class for every loader of
:mod:`fuzzlib` under ``DIR`` and loads each, printing one JSON line per case.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from fuzzlib import LOADERS, Loader, Outcome, measure, prepare, warm

LAUGHS = "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
    for p, c in zip(["", *"abcdefgh"], "abcdefghi", strict=True))
FIXTURES: dict[str, Callable[[Loader], bytes | None]] = {
    "billion-laughs": lambda ld: LAUGHS.encode(),
    "deep-block": lambda ld: "".join("  " * i + "a:\n" for i in range(150)).encode(),
    "deep-flow": lambda ld: ("a: " + "[" * 5000 + "]" * 5000).encode(),
    "deep-json": lambda ld: ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}").encode(),
    "cyclic-alias": lambda ld: b"name: &a [*a]\nissues: &b {x: *b}\n",
    "latin-1": lambda ld: ld.seed_texts()[0].replace("a", "\u00e9", 3).encode("latin-1",
                                                                             "replace"),
    "utf-16": lambda ld: ld.seed_texts()[0].encode("utf-16"),
    "invalid-byte": lambda ld: b"\xff\xfe\x00garbage\x80\n",
    "huge-number": lambda ld: b'{"type": "normal", "payoffs": 1e400, "seeds": 1e400}',
    "huge-int": lambda ld: ('{"n": ' + "9" * 5000 + "}").encode(),
    "huge-string-number": lambda ld: b'{"payoffs": "1e999999999", "n": "1e400"}',
    "tiny-number": lambda ld: b'{"x": 1e-320, "ingredients": {"egg": 1e-320}}',
    "nan": lambda ld: b'{"x": NaN, "y": .nan, "z": Infinity}',
    "long-name": lambda ld: ("name: " + "n" * 5000 + "\n").encode(),
    "long-key": lambda ld: ("n" * 5000 + ": 1\n").encode(),
    "empty": lambda ld: b"",
    "blank": lambda ld: b"\n\n   \n",
    "bom": lambda ld: b"\xef\xbb\xbf" + min(ld.seed_texts(), key=len).encode(),
    "control-chars": lambda ld: b"a: \x00\x07\x1b[31m\n",
    "many-aliases": lambda ld: ("x: &x 1\ny: [" + ", ".join(["*x"] * 5000) + "]\n").encode(),
    "merge-chain": lambda ld: "".join(
        f"m{i}: &m{i} {{<<: *m{i - 1}, k{i}: {i}}}\n" if i else "m0: &m0 {k: 0}\n"
        for i in range(200)).encode(),
    "python-tag": lambda ld: b"!!python/object/apply:os.system ['true']\n",
    "two-documents": lambda ld: b"a: 1\n---\nb: 2\n",
    "long-line": lambda ld: b"x" * (2 * 1024 * 1024),
}
#: classes that are not file contents: the path itself is the hostile part
SPECIAL_PATHS = ("dev-zero", "fifo", "directory", "oversized", "long-path")


def special_path(kind: str, folder: Path) -> Path:
    """A path of one of the :data:`SPECIAL_PATHS` kinds (created under ``folder``)."""
    import os

    folder.mkdir(parents=True, exist_ok=True)
    if kind == "dev-zero":
        return Path("/dev/zero")
    if kind == "fifo":
        fifo = folder / "fifo.yaml"
        if not fifo.exists():
            os.mkfifo(fifo)
        return fifo
    if kind == "directory":
        return folder
    if kind == "oversized":  # sparse: its size is past the cap, nothing is written
        big = folder / "big.yaml"
        with big.open("wb") as fh:
            fh.truncate(17 * 1024 * 1024)
        return big
    return folder / ("n" * 5000 + ".yaml")


def fixture_cases(folder: Path) -> Iterator[tuple[str, str, Path]]:
    """``(loader, class, path)`` for every loader and every fixture class."""
    for name, loader in LOADERS.items():
        for kind, make in FIXTURES.items():
            data = make(loader)
            if data is None:
                continue
            yield name, kind, prepare(loader, folder / name / kind, data)
        for kind in SPECIAL_PATHS:
            yield name, kind, special_path(kind, folder / name / kind)
    te = LOADERS["task-exchange-scenario"]
    seed = te.seed_texts()[0]
    for kind in ("dev-zero", "fifo", "directory", "long-path", "oversized"):
        target = special_path(kind, folder / "tasks-ref" / kind)
        text = "\n".join(f"tasks: {target}" if ln.startswith("tasks:") else ln
                         for ln in seed.splitlines())
        yield te.name, f"tasks: {kind}", prepare(te, folder / "tasks-ref" / kind / "s",
                                                  text.encode())


def run_fixture(name: str, kind: str, path: Path, hang: float = 30.0) -> Outcome:
    """Load one fixture path with the loader's own call (no copy: the path matters)."""
    return measure(LOADERS[name], path, name, kind, hang)


def main() -> None:
    """``python fileclasses.py --fixtures DIR``: every fixture in this (rlimited) process,
    one JSON line per case (the test runs it in a subprocess, so a regression to
    gigabytes or minutes kills a child, not the test run)."""
    import os
    import resource
    import sys

    folder = Path(sys.argv[2])
    limit = int(os.environ.get("FUZZ_ADDRESS_SPACE", str(3 * 1024**3)))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for loader in LOADERS.values():  # import every loader first: no import in a case's time
        warm(loader, folder / "warm" / loader.name)
    for name, kind, path in fixture_cases(folder):
        print(json.dumps({"loader": name, "kind": kind, "start": True}), flush=True)
        out = run_fixture(name, kind, path)
        print(json.dumps(out.__dict__), flush=True)


if __name__ == "__main__":
    main()
