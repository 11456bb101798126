"""The CLI's one vocabulary: shared options, consoles, errors and the LLM-cache check.

Every command spells the same idea the same way (``--json``, ``--out/-o``,
``--quiet/-q``, ``--seed``, ``--data``, ``--repeat/-n``, ``--cache``, ``--cache-mode``);
old spellings stay for one release as hidden aliases that print a deprecation note on
stderr. This module imports only typer and the standard library at load time so that
``accord --help`` stays fast; rich is imported when something is printed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from accord.core.display import inert, inert_markup

if TYPE_CHECKING:
    from rich.console import Console

T = TypeVar("T")

#: LLM cache modes accepted by ``--cache-mode``
CACHE_MODES = ("off", "rw", "replay")
#: exit codes shared by every command
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: command groups of ``accord``, loaded only when used: name -> (module with ``app``, help)
#: accord's own command groups: name -> (module, one-line help). Domains add theirs through
#: the ``accord.commands`` entry point group (see :func:`command_groups`).
GROUPS: dict[str, tuple[str, str]] = {
    "scenarios": ("accord.cli.scenarios", "List the built-in scenarios of every domain; "
                  "write one as a file to edit."),
    "configs": ("accord.cli.configs", "Experiment specs shipped with accord: list, show, copy."),
    "cache": ("accord.cli.cache", "Inspect or clear an LLM completion cache (SQLite)."),
    "store": ("accord.cli.store", "Check a results store; recover a damaged one's episodes."),
}
#: entry point group of command groups: ``NAME = "module:app"`` (a typer app)
COMMANDS_GROUP = "accord.commands"


def command_groups() -> dict[str, str]:
    """Every command group: name -> ``module:app`` (accord's own, then the installed
    packages' ``accord.commands`` entry points: the domains' CLI extras)."""
    from importlib.metadata import entry_points

    groups = {name: f"{module}:app" for name, (module, _) in GROUPS.items()}
    for ep in entry_points(group=COMMANDS_GROUP):
        groups.setdefault(ep.name, ep.value)
    return groups


def group_app(name: str, help: str | None = None) -> typer.Typer:
    """The typer app of the command group ``name`` (``help``, else the one of
    :data:`GROUPS`), styled like the root: plain help, ``-h``, no completion options of its
    own."""
    return typer.Typer(name=name, help=help or GROUPS[name][1], no_args_is_help=True,
                       add_completion=False, pretty_exceptions_enable=False,
                       rich_markup_mode=None,
                       context_settings={"help_option_names": ["-h", "--help"]})


DATA_HELP = ("Deal-or-No-Deal data file or folder (else ACCORD_DATA, else the per-user "
             "data folder; fetch it with `accord dond download`)")


# -- options ---------------------------------------------------------------------------

def json_option() -> Any:
    """``--json``: exactly one JSON document on stdout and nothing else."""
    return typer.Option(False, "--json", help="Print exactly one JSON document on stdout "
                        "(nothing else; messages go to stderr).")


def out_option(help: str, *, required: bool = False, default: Path | None = None) -> Any:
    """``--out/-o PATH``: where the command writes its output (file or folder, per ``help``)."""
    return typer.Option(... if required else default, "--out", "-o", help=help, metavar="PATH")


#: ``--quiet``'s help where the command prints nothing else (``accord bench``)
QUIET_HELP = "No progress bar or summary: only errors, on stderr (--json is unaffected)."


def quiet_option(help: str = QUIET_HELP) -> Any:
    """``--quiet/-q``: less output; ``help`` says what each command still prints."""
    return typer.Option(False, "--quiet", "-q", help=help)


def seed_option(default: int | None = 0, help: str = "Random seed.") -> Any:
    """``--seed N``."""
    return typer.Option(default, "--seed", help=help, metavar="N")


def data_option() -> Any:
    """``--data PATH``: where Deal-or-No-Deal data is read from."""
    return typer.Option(None, "--data", help=DATA_HELP, metavar="PATH")


def repeat_option(default: int = 1, help: str = "Episodes to run (seeds SEED, SEED+1, ...).",
                  ) -> Any:
    """``--repeat/-n N``: how many episodes of the same setting."""
    return typer.Option(default, "--repeat", "-n", min=1, help=help, metavar="N")


def cache_option() -> Any:
    """``--cache PATH``: the LLM completion cache."""
    return typer.Option(None, "--cache", help="LLM completion cache (SQLite file).",
                        metavar="PATH")


def cache_mode_option(default: str | None = "rw") -> Any:
    """``--cache-mode off|rw|replay``."""
    return typer.Option(default, "--cache-mode", help="LLM cache: off | rw | replay (replay "
                        "makes no request and needs --cache).", metavar="MODE")


def llm_option_option() -> Any:
    """``--llm-option KEY=VALUE`` (repeatable): a generation setting for every LLM agent."""
    return typer.Option([], "--llm-option", metavar="KEY=VALUE", help="A generation "
                        "setting for every LLM agent of the run (repeatable; an agent spec's "
                        "own option wins): temperature, top_p, max_tokens, "
                        "max_completion_tokens, seed, stop, reasoning_effort, thinking "
                        "(off|on|BUDGET), extra_body.PATH (any body field), and the session "
                        "options history=all|N and retry=clean|keep; VALUE read as YAML.")


def log_prompts_option() -> Any:
    """``--log-prompts``: the exact messages of every LLM call in the trajectory."""
    return typer.Option(False, "--log-prompts", help="Record the exact messages each LLM "
                        "call sent in its llm_call note (keys masked), so a real run can be "
                        "audited afterwards.")


def llm_timeout_option() -> Any:
    """``--llm-timeout SECONDS``: the deadline of each LLM call."""
    return typer.Option(None, "--llm-timeout", min=0.001, metavar="SECONDS",
                        help="Seconds each LLM call attempt may take (default: "
                        "$ACCORD_LLM_TIMEOUT, else 600 for a server on this machine - "
                        "llamacpp/ models and localhost base URLs, CPU inference is slow - "
                        "and 60 for hosted APIs).")


def parse_llm_options(items: list[str]) -> dict[str, Any]:
    """``--llm-option KEY=VALUE`` pairs, checked as generation options (exit 2 if not)."""
    if not items:  # nothing to check: the LLM layer is not a start-up cost of every run
        return {}
    from accord.core.safeload import LoadError, parse_yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise fail(f"--llm-option wants KEY=VALUE, got {item!r}")
        try:
            out[key] = parse_yaml(text, f"--llm-option {key[:100]}").data if text.strip() else ""
        except LoadError as exc:
            raise fail(str(exc)) from None
    from accord.agents.llm_base import check_run_options

    try:
        check_run_options(out)
    except ValueError as exc:
        raise fail(f"--llm-option: {exc}") from None
    return out


#: the environment variable of the LLM call deadline (``--llm-timeout`` wins)
TIMEOUT_ENV = "ACCORD_LLM_TIMEOUT"
#: the environment variable that turns ``--verbose`` on
VERBOSE_ENV = "ACCORD_VERBOSE"
#: seconds between two slow-call notices of one command (all its calls together)
NOTICE_GAP = 10.0


def install_wait_notices(verbose: bool = False) -> None:
    """Have slow LLM calls print ``waiting for MODEL (32 s, attempt 1 of 4)`` on stderr
    (:mod:`accord.llm.progress`): only when stderr is a terminal, or with ``verbose``
    (``--verbose`` or ``ACCORD_VERBOSE=1``), at most one line per :data:`NOTICE_GAP`
    seconds; never on stdout, so ``--json`` output stays one document. Cheap: nothing of
    the LLM layer is imported until a call is made."""
    import threading
    import time

    verbose = verbose or os.environ.get(VERBOSE_ENV, "").strip() not in ("", "0")
    last = [float("-inf")]
    lock = threading.Lock()

    def report(notice: Any) -> None:
        if not (verbose or is_terminal(sys.stderr)):
            return
        now = time.monotonic()
        with lock:
            if now - last[0] < NOTICE_GAP:
                return
            last[0] = now
        sys.stderr.write(f"{notice.text()}\n")
        sys.stderr.flush()

    from accord import _notices

    _notices.set_reporter(report)


def alias_option(*names: str) -> Any:
    """A hidden old spelling of an option, kept for one release."""
    return typer.Option(None, *names, hidden=True)


def pick(new: T | None, old: T | None, old_name: str, new_name: str) -> T | None:
    """The value of an option given by its new or its old (hidden) spelling.

    Using the old one prints a deprecation note on stderr; giving both is a usage error.
    """
    if old is None:
        return new
    if new is not None and new != old:
        raise fail(f"{old_name} is the old spelling of {new_name}; give only {new_name}")
    warn(f"{old_name} is deprecated and will be removed in the next release; "
         f"use {new_name}")
    return old


def example(*lines: str) -> str:
    """A help epilog with example command lines, kept verbatim by click (``\\b``)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


# -- output ----------------------------------------------------------------------------

def is_terminal(stream: Any = None) -> bool:
    """Whether ``stream`` (default stdout) is an interactive terminal."""
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: width used when output is piped and ``COLUMNS`` is unset: rules and tables fit it,
#: longer sentences wrap at word boundaries (no 10,000-column rules in ``> file``)
PIPE_WIDTH = 100
#: width of a table written to a file with ``--out``: as wide as its content needs
FILE_WIDTH = 10_000


def pipe_width() -> int:
    """The width for piped output: ``COLUMNS`` when it is a positive number, else
    :data:`PIPE_WIDTH`."""
    raw = os.environ.get("COLUMNS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else PIPE_WIDTH


def console(stderr: bool = False) -> Console:
    """A rich console for people: the terminal's width on a terminal; without colour and
    at :func:`pipe_width` columns when piped (``COLUMNS`` wins when set), so rules and
    tables stay that wide and sentences wrap between words. Piped stderr carries one-line
    messages (``error: ...``, ``note: ...``) that a script may grep: they are not
    wrapped."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if is_terminal(stream):
        return Console(stderr=stderr, highlight=False)
    return Console(stderr=stderr, width=pipe_width(), highlight=False, no_color=True,
                   soft_wrap=stderr)


def plain(text: object) -> str:
    """``text`` made inert for the terminal: credentials masked, control sequences shown
    literally and rich markup escaped, so text from a model, a person or a file is never
    rendered as markup, colour or a hyperlink."""
    from accord.core.redact import redact_text

    return inert_markup(redact_text(str(text)))


def write_trajectory(log: Any, path: Path) -> None:
    """Write an episode's trajectory as JSONL with credentials masked."""
    from accord.core.redact import redactor

    path.write_text(redactor().text(log.to_jsonl()), encoding="utf-8")


def warn(message: str) -> None:
    """A note on stderr (never on stdout, which may carry JSON)."""
    console(stderr=True).print(f"[yellow]note:[/] {plain(message)}")


#: what the error boundary (:mod:`accord.cli.boundary`) needs to know about the command
#: running now: whether its JSON document is out, and the last error it reported
_RUN_STATE: dict[str, Any] = {"json": False, "error": None}


def reset_run_state() -> None:
    """Forget the previous command's state (one process may run several: tests)."""
    _RUN_STATE.update(json=False, error=None)


def json_emitted() -> bool:
    """Whether the running command has printed its JSON document."""
    return bool(_RUN_STATE["json"])


def last_error() -> str | None:
    """The last message the running command reported through :func:`fail`."""
    error = _RUN_STATE["error"]
    return None if error is None else str(error)


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print a clear error on stderr and return the exit to raise.

    Under ``--json`` the error boundary turns the message into the command's one JSON
    error document when the command printed none.
    """
    _RUN_STATE["error"] = message
    console(stderr=True).print(f"[bold red]error:[/] {plain(message)}")
    return typer.Exit(code)


def emit_json(obj: Any) -> None:
    """Write ``obj`` as the one JSON document of the command (strict: no NaN)."""
    import json

    from accord.core.redact import redactor

    obj = redactor().clean(obj)
    text = json.dumps(obj, default=str, allow_nan=False) + "\n"
    _RUN_STATE["json"] = True
    sys.stdout.write(text)
    sys.stdout.flush()


# -- LLM settings ----------------------------------------------------------------------

def llm_settings(cache: Path | str | None, cache_mode: str | None,
                 config_llm: dict[str, Any] | None = None, *,
                 options: dict[str, Any] | None = None,
                 timeout: float | None = None, log_prompts: bool = False) -> dict[str, Any]:
    """LLM settings from ``--cache``/``--cache-mode``, ``--llm-option`` and
    ``--llm-timeout`` (over a config's ``llm:`` block; the timeout over
    ``$ACCORD_LLM_TIMEOUT`` over the config's).

    The one check every command shares: a bad mode, or replay with no cache to replay
    from (which would silently make paid calls), or a timeout that is not a positive
    number, is a usage error (exit 2).
    """
    if cache_mode is not None and cache_mode not in CACHE_MODES:
        raise fail(f"--cache-mode must be one of {', '.join(CACHE_MODES)}, got {cache_mode!r}")
    out: dict[str, Any] = dict(config_llm or {})
    if cache is not None:
        out["cache"] = str(cache)
    if cache_mode is not None:
        out["cache_mode"] = cache_mode
    if options:
        out["options"] = {**(out.get("options") or {}), **options}
    env_timeout = os.environ.get(TIMEOUT_ENV, "").strip()
    if timeout is None and env_timeout:
        try:
            timeout = float(env_timeout)
        except ValueError:
            raise fail(f"{TIMEOUT_ENV}={env_timeout[:40]!r} is not a number of seconds") from None
        if not 0 < timeout < float("inf"):
            raise fail(f"{TIMEOUT_ENV} must be a positive number of seconds, got {env_timeout!r}")
    if timeout is not None:
        out["timeout"] = timeout
    if log_prompts:
        out["log_prompts"] = True
    mode = out.get("cache_mode", "rw")
    if mode == "replay":
        if not out.get("cache"):
            raise fail("--cache-mode replay needs --cache PATH, the recorded cache to replay "
                       "(in a bench config: llm.cache)")
        if not Path(out["cache"]).exists():
            raise fail(f"--cache-mode replay: no cache at {out['cache']}; record it first "
                       "with --cache-mode rw")
    if not out.get("cache"):
        out.pop("cache_mode", None)
    return out


def check_out_path(path: Path | None, what: str = "--out") -> None:
    """Fail before running (and before any paid call) when an output file cannot be written."""
    if path is None:
        return
    if path.is_dir():
        raise fail(f"{what} {path} is a directory; give a file path")
    if not path.parent.exists():
        raise fail(f"{what} {path}: folder {path.parent} does not exist")


__all__ = [
    "CACHE_MODES",
    "COMMANDS_GROUP",
    "DATA_HELP",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "GROUPS",
    "alias_option",
    "cache_mode_option",
    "cache_option",
    "check_out_path",
    "command_groups",
    "console",
    "data_option",
    "emit_json",
    "example",
    "fail",
    "group_app",
    "inert",
    "is_terminal",
    "json_emitted",
    "json_option",
    "last_error",
    "llm_settings",
    "out_option",
    "pick",
    "plain",
    "quiet_option",
    "repeat_option",
    "reset_run_state",
    "seed_option",
    "warn",
    "write_trajectory",
]
