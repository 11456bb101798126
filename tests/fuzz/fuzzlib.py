"""The fuzz harness shared by ``tests/fuzz`` and ``benchmarks/fuzz.py``.

Every loader of a user file is listed in :data:`LOADERS` with the one error class it may
raise and seed files (the real shipped data). :func:`mutated` is a hypothesis strategy
that turns a seed into a hostile variant (data-level and text-level mutations, plus the
pathological snippets of issue 12); :func:`run_case` writes the bytes to a file, calls the
loader under a time guard and ``tracemalloc``, and classifies the outcome: ``ok``,
``refused`` (the loader's own error) or ``crash`` (anything else: a traceback).
"""

from __future__ import annotations

import copy
import json
import signal
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "accord"

#: a case slower than this is reported as a hang (a guard, not a performance assertion)
HANG_SECONDS = 60.0
#: a case whose traced peak exceeds this is reported as a memory blow-up
MEMORY_BUDGET = 256 * 1024 * 1024


# -- loaders ---------------------------------------------------------------------------

def _bench(path: Path) -> Any:
    from accord.bench import expand, load_config

    cfg = load_config(path)
    if cfg.plugins:  # never import modules named by fuzzed text
        return cfg
    return expand(cfg, validate=False)


def _bargaining(path: Path) -> Any:
    from accord.domains.bargaining import load_scenario

    scenario = load_scenario(path)
    return scenario.utility_matrix  # what a loaded scenario is for: bounded by the cap


def _games(path: Path) -> Any:
    from accord.domains.games import load_game

    return load_game(path)


def _te_scenario(path: Path) -> Any:
    from accord.domains.task_exchange.load import _load_universe_cached, load_scenario

    _load_universe_cached.cache_clear()
    return load_scenario(path)


def _te_tasks(path: Path) -> Any:
    from accord.domains.task_exchange.load import load_universe

    return load_universe(path)


def _deliberation(path: Path) -> Any:
    from accord.domains.deliberation import load_instance, optimum

    inst = load_instance(path)
    return optimum(inst)  # the exact ILP must accept whatever the loader accepted


def _dond(path: Path) -> Any:
    from accord.domains.deal_or_no_deal.load import load_split

    return load_split(path)


def _prices(path: Path) -> Any:
    from accord.llm.prices import load_prices

    return load_prices(path)


def _errors(name: str) -> tuple[type[BaseException], ...]:
    if name == "bench":
        from accord.bench import ConfigError

        return (ConfigError,)
    if name == "bargaining":
        from accord.domains.bargaining import ScenarioError

        return (ScenarioError,)
    if name.startswith("games"):
        from accord.domains.games import GameFileError

        return (GameFileError,)
    if name.startswith("task-exchange"):
        from accord.domains.task_exchange.scenario import ScenarioError as TEError

        return (TEError,)
    if name == "deliberation":
        from accord.domains.deliberation import DataError

        return (DataError,)
    if name == "dond":
        from accord.domains.deal_or_no_deal.load import DataFormatError

        return (DataFormatError,)
    from accord.llm.prices import PriceTableError

    return (PriceTableError,)


@dataclass(frozen=True)
class Loader:
    """One loader under test: its name, file suffix, call and seed files."""

    name: str
    suffix: str
    call: Callable[[Path], Any]
    seeds: tuple[Path, ...]
    fmt: str = "yaml"  # how seeds are parsed and mutated: yaml, json or text

    @property
    def errors(self) -> tuple[type[BaseException], ...]:
        """The loader's own error class(es)."""
        return _errors(self.name)

    def seed_texts(self) -> list[str]:
        """The seed files' text (DoND: synthetic lines, the data set is not copied)."""
        if self.fmt == "text":
            return list(DOND_LINES)
        texts = [p.read_text(encoding="utf-8") for p in self.seeds]
        if self.fmt == "json":  # YAML seeds (the games) written as JSON
            texts = [t if p.suffix == ".json" else json.dumps(yaml.safe_load(t), indent=1)
                     for p, t in zip(self.seeds, texts, strict=True)]
        return texts


def _files(pattern: str) -> tuple[Path, ...]:
    return tuple(sorted(SRC.glob(pattern)))


#: synthetic Deal-or-No-Deal lines in the data set's format (made up, not copied)
DOND_LINES = (
    "<input> 1 4 2 1 1 2 </input> <dialogue> YOU: i want the book <eos> THEM: deal <eos> "
    "YOU: <selection> </dialogue> <output> item0=1 item1=0 item2=0 item0=0 item1=2 item2=1 "
    "</output> <partner_input> 1 0 2 2 1 4 </partner_input>\n"
    "<input> 1 0 2 2 1 4 </input> <dialogue> THEM: i want the book <eos> YOU: deal <eos> "
    "THEM: <selection> </dialogue> <output> item0=0 item1=2 item2=1 item0=1 item1=0 "
    "item2=0 </output> <partner_input> 1 4 2 1 1 2 </partner_input>\n",
    "<input> 3 1 1 2 1 5 </input> <dialogue> YOU: no deal <eos> THEM: <selection> "
    "</dialogue> <output> <disagree> <disagree> <disagree> <disagree> <disagree> "
    "<disagree> </output> <partner_input> 3 2 1 0 1 4 </partner_input>\n",
)

LOADERS: dict[str, Loader] = {ld.name: ld for ld in (
    Loader("bench", ".yaml", _bench, _files("configs/*.yaml")),
    Loader("bargaining", ".yaml", _bargaining, _files("domains/bargaining/data/*.yaml")),
    Loader("games-yaml", ".yaml", _games, _files("domains/games/data/games/*.yaml")),
    Loader("games-json", ".json", _games, _files("domains/games/data/games/*.yaml"), "json"),
    Loader("task-exchange-scenario", ".yaml", _te_scenario,
           _files("domains/task_exchange/data/scenarios/*.yaml")),
    Loader("task-exchange-tasks", ".yaml", _te_tasks,
           _files("domains/task_exchange/data/tasks.yaml")),
    Loader("deliberation", ".json", _deliberation,
           tuple(p for p in _files("domains/deliberation/data/instances/*/*.json")
                 if p.stem in ("00", "01", "07")), "json"),
    Loader("dond", ".txt", _dond, (), "text"),
    Loader("prices", ".yaml", _prices, _files("llm/data/prices.yaml")),
)}


# -- mutations ---------------------------------------------------------------------------

def _deep(depth: int) -> Any:
    out: Any = 0
    for _ in range(depth):
        out = [out]
    return out


#: values that broke loaders in issue 12, or sit on a budget's edge
NASTY: tuple[Any, ...] = (
    None, True, False, "", " ", "x" * 5000, "é\u0000\u202e", -1, 0, 1, 2**63, 10**30,
    1e308, -1e308, 1e-320, 1e-300, 1e-7, 0.1, float("nan"), float("inf"), [], {}, [[]],
    {"type": {}}, "1e400", "-1e400", "1e-400", "1/0", "7/2", "1e99999999", "9" * 5000,
    "NaN", "../../../../../../dev/zero", "/dev/zero", "a" * 300 + ".yaml", _deep(120),
    {"k": _deep(60)}, list(range(200)), {str(i): i for i in range(50)},
)

#: text snippets spliced into the serialised file
SNIPPETS: tuple[str, ...] = (
    "&a [*a]", "*undefined", "&x [1,2]\n", "<<: *x\n", "? [a, b]\n: c\n",
    "!!python/object:os.system",
    "!!binary aGVsbG8=", "!!set {a, b}", "2001-12-14t21:59:43.10-05:00", "[" * 300, "{" * 300,
    "- " * 300, ".nan", ".inf", "1e400", "-.inf", "0x7fffffffffffffffffff", "1_000_000",
    "1:2:3:4:5:6:7:8:9:10", '"\\ud800"', "\t", "\x00", "\ufeff", "%YAML 1.1\n---\n",
    "--- \n...\n--- \n", "'", '"', "#", "null", "~", "NaN", "Infinity", "\u2028",
)


@dataclass
class Case:
    """One fuzz input: the loader, the bytes and how they were made."""

    loader: str
    data: bytes
    how: str = ""


def _paths(data: Any, limit: int = 400) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [()]
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack and len(out) < limit:
        path, node = stack.pop()
        items = (node.items() if isinstance(node, dict)
                 else enumerate(node) if isinstance(node, list) else ())
        for k, v in items:
            out.append((*path, k))
            stack.append(((*path, k), v))
    return out


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        data = data[k]
    return data


def _mutate_data(draw: Any, data: Any) -> tuple[Any, str]:
    data = copy.deepcopy(data)
    steps = []
    for _ in range(draw(st.sampled_from((1, 1, 1, 2, 3)))):
        paths = _paths(data)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(("replace", "delete", "typo", "add", "wrap", "alias")))
        if not path:
            if op == "replace":
                data = draw(st.sampled_from(NASTY))
            steps.append(f"{op} <root>")
            continue
        parent, key = _get(data, path[:-1]), path[-1]
        if op == "replace":
            parent[key] = copy.deepcopy(draw(st.sampled_from(NASTY)))
        elif op == "delete":
            del parent[key]
        elif op == "typo" and isinstance(parent, dict) and isinstance(key, str) and key:
            i = draw(st.integers(0, len(key) - 1))
            parent[key[:i] + key[i + 1:] + key[i]] = parent.pop(key)
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(("extra", "wieghts", "seed", "x-note", "type", "")))
                   ] = draw(st.sampled_from(NASTY[:20]))
        elif op == "wrap":
            parent[key] = draw(st.sampled_from(([parent[key]], {"v": parent[key]})))
        elif op == "alias":  # shared subtree: YAML dumps it as an anchor and aliases
            other = _get(data, draw(st.sampled_from(paths))[:-1] or ())
            parent[key] = [other] * draw(st.integers(1, 9))
        steps.append(f"{op} {'.'.join(map(str, path))[:60]}")
    return data, "; ".join(steps)


def _dump(data: Any, fmt: str) -> str:
    if fmt == "yaml":
        try:  # shared or cyclic subtrees become anchors and aliases
            return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
        except (yaml.YAMLError, RecursionError, ValueError):
            pass
    try:
        return json.dumps(data, default=str)
    except (ValueError, RecursionError):  # a cycle: JSON cannot say it
        return "null"


def _mutate_text(draw: Any, text: str) -> tuple[bytes, str]:
    raw = text.encode("utf-8")
    steps = []
    for _ in range(draw(st.sampled_from((1, 1, 2, 3)))):
        op = draw(st.sampled_from(("splice", "splice", "delete", "dup", "bytes", "cut")))
        pos = draw(st.integers(0, len(raw)))
        if op == "splice":
            snip = draw(st.sampled_from(SNIPPETS)).encode("utf-8", "surrogatepass")
            raw = raw[:pos] + snip + raw[pos:]
        elif op == "delete":
            raw = raw[:pos] + raw[pos + draw(st.integers(1, 40)):]
        elif op == "dup":
            raw = raw[:pos] + raw[pos:pos + 200] * draw(st.integers(2, 50)) + raw[pos:]
        elif op == "bytes":
            raw = raw[:pos] + draw(st.binary(min_size=1, max_size=4)) + raw[pos:]
        else:
            raw = raw[:pos]
        steps.append(f"{op}@{pos}")
    return raw, "text " + ", ".join(steps)


@st.composite
def mutated(draw: Any, loader: Loader) -> Case:
    """A hostile variant of one of ``loader``'s seeds."""
    text = draw(st.sampled_from(loader.seed_texts()))
    kind = draw(st.sampled_from(("data", "data", "text", "both")))
    if loader.fmt == "text":
        raw, how = _mutate_text(draw, text)
        return Case(loader.name, raw, how)
    if kind in ("data", "both"):
        data = yaml.safe_load(text)
        data, how = _mutate_data(draw, data)
        text = _dump(data, loader.fmt)
        if kind == "data":
            return Case(loader.name, text.encode("utf-8", "surrogatepass"), how)
        raw, how2 = _mutate_text(draw, text)
        return Case(loader.name, raw, f"{how}; {how2}")
    raw, how = _mutate_text(draw, text)
    return Case(loader.name, raw, how)


# -- running -----------------------------------------------------------------------------

@dataclass
class Outcome:
    """How one case ended."""

    loader: str
    status: str  # ok | refused | crash | hang | memory
    seconds: float
    peak: int
    detail: str = ""
    how: str = ""


class _Hang(BaseException):
    """Raised by the alarm when a case runs past :data:`HANG_SECONDS`."""


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise _Hang()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def prepare(loader: Loader, folder: Path, data: bytes) -> Path:
    """Write ``data`` where ``loader`` expects it (task-exchange scenarios next to tasks)."""
    folder.mkdir(parents=True, exist_ok=True)
    if loader.name == "task-exchange-scenario":
        tasks = SRC / "domains/task_exchange/data/tasks.yaml"
        (folder / "tasks.yaml").write_bytes(tasks.read_bytes())
        folder = folder / "scenarios"
        folder.mkdir(exist_ok=True)
    path = folder / f"case{loader.suffix}"
    path.write_bytes(data)
    return path


_WARM: set[str] = set()


def warm(loader: Loader, folder: Path) -> None:
    """Load the smallest seed once, untraced: imports are not part of any case's figures."""
    if loader.name in _WARM:
        return
    _WARM.add(loader.name)
    text = min(loader.seed_texts(), key=len)
    with suppress(Exception):  # the seed tests report a seed that does not load
        loader.call(prepare(loader, folder / "warm", text.encode()))


def measure(loader: Loader, path: Path, name: str, how: str, hang: float = HANG_SECONDS,
            trace: bool = True) -> Outcome:
    """Load ``path`` with ``loader``'s own call and classify what happened (never raises):
    ``ok``, ``refused`` (the loader's error class), ``hang``, ``memory`` or ``crash``."""
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    status, detail = "ok", ""
    try:
        with _alarm(hang):
            loader.call(path)
    except _Hang:
        status, detail = "hang", f"still running after {hang:.0f} s"
    except loader.errors as exc:
        status, detail = "refused", str(exc)[:600]
        if len(str(exc)) > 2000:
            status, detail = "crash", f"error message of {len(str(exc))} characters"
    except MemoryError:
        status, detail = "memory", "MemoryError"
    except BaseException as exc:  # the point: anything else is a traceback for a user
        if isinstance(exc, KeyboardInterrupt):
            raise
        status, detail = "crash", f"{type(exc).__name__}: {str(exc)[:300]}"
    seconds = time.perf_counter() - t0
    peak = 0
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if status in ("ok", "refused") and peak > MEMORY_BUDGET:
        status, detail = "memory", f"traced peak {peak / 2**20:.0f} MiB"
    return Outcome(name, status, seconds, peak, detail, how)


def run_case(case: Case, folder: Path, hang: float = HANG_SECONDS,
             trace: bool = True) -> Outcome:
    """Load one case; never raises (the outcome says what happened)."""
    loader = LOADERS[case.loader]
    warm(loader, folder)
    path = prepare(loader, folder, case.data)
    return measure(loader, path, case.loader, case.how, hang, trace)


@dataclass
class Tally:
    """Running figures over many cases (what ``benchmarks/fuzz.py`` prints)."""

    cases: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    slowest: Outcome | None = None
    biggest: Outcome | None = None
    failures: list[Outcome] = field(default_factory=list)

    def add(self, out: Outcome) -> None:
        """Count one outcome."""
        self.cases += 1
        self.by_status[out.status] = self.by_status.get(out.status, 0) + 1
        if self.slowest is None or out.seconds > self.slowest.seconds:
            self.slowest = out
        if self.biggest is None or out.peak > self.biggest.peak:
            self.biggest = out
        if out.status not in ("ok", "refused"):
            self.failures.append(out)

    def merge(self, other: Tally) -> None:
        """Fold another tally into this one."""
        self.cases += other.cases
        for k, v in other.by_status.items():
            self.by_status[k] = self.by_status.get(k, 0) + v
        for out in (other.slowest,):
            if out is not None and (self.slowest is None or out.seconds > self.slowest.seconds):
                self.slowest = out
        for out in (other.biggest,):
            if out is not None and (self.biggest is None or out.peak > self.biggest.peak):
                self.biggest = out
        self.failures.extend(other.failures)
