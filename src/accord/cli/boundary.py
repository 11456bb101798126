"""The one error boundary of the ``accord`` command: no traceback reaches a user.

Every command (accord's own and the domains' command groups) runs inside
:func:`run_guarded`, called from the root group's ``main``. What escapes a command is
sorted into three kinds:

- **bad input** (exit 2, the message): the project's own error types (``ScenarioError``,
  ``AgentSpecError``, ``ParamError`` ... are ``ValueError`` subclasses, ``StoreError``,
  ``ConfigurationError``), a file that is not valid text, YAML or JSON, an ``OSError`` on a
  path the user gave (missing, unwritable, a full disk, a name too long), a damaged SQLite
  file (a store or a cache);
- **interrupted** (exit 130);
- **internal errors** (exit 1, a one-line reason and where to look).

The traceback is printed only with ``--debug`` (anywhere before ``--``) or
``ACCORD_DEBUG=1``. A command run with ``--json`` that fails without having printed its
document prints exactly one JSON error document on stdout instead:
``{"error": {"type": "usage" | "input" | "internal" | "interrupted", "message": ...,
"exit": N}}`` (plus ``"exception"``, the error class, when one was raised), so a script
always gets one parseable document. This module imports only the standard library and
typer at load time.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any

import typer

from accord.cli import common as c

#: click's base of usage errors, as typer ships it (typer bundles its own click, whose
#: classes are not the ``click`` package's): found through a public subclass
ClickException: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException")

#: environment variable that turns tracebacks on (as ``--debug`` does)
DEBUG_ENV = "ACCORD_DEBUG"
#: the option that turns tracebacks on
DEBUG_OPTION = "--debug"
#: longest path shown in a message (a name too long for the OS is cut, not echoed whole)
PATH_SHOWN = 200
#: the project's own errors that are not ``ValueError``s but mean bad input or setup
#: (matched by class name so this module imports none of their packages)
INPUT_ERRORS = frozenset({"StoreError", "ConfigurationError", "CacheError", "YAMLError",
                          "GenerationError", "ApprovalError"})


def debug_requested(args: Sequence[str]) -> bool:
    """Whether ``--debug`` is among ``args`` (before ``--``) or ``ACCORD_DEBUG`` is set."""
    if os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    return DEBUG_OPTION in _options(args)


def _options(args: Sequence[str]) -> list[str]:
    """``args`` up to a ``--`` separator (after it everything is an argument)."""
    out = []
    for a in args:
        if a == "--":
            break
        out.append(a)
    return out


def strip_debug(args: Sequence[str]) -> list[str]:
    """``args`` without ``--debug`` (accepted anywhere before ``--``, so
    ``accord run ... --debug`` works as well as ``accord --debug run ...``)."""
    head = _options(args)
    rest = list(args[len(head):])
    return [a for a in head if a != DEBUG_OPTION] + rest


def json_requested(args: Sequence[str]) -> bool:
    """Whether the command line asks for ``--json`` output."""
    return "--json" in _options(args)


def _short_path(name: object) -> str:
    text = os.fsdecode(name) if isinstance(name, (str, bytes)) else str(name)
    return text if len(text) <= PATH_SHOWN else text[:PATH_SHOWN] + "..."


def os_message(exc: OSError) -> str:
    """An ``OSError`` as one sentence: the path (cut when too long) and the reason."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno == errno.ENOSPC:
        reason += " (the disk is full)"
    if exc.filename is not None:
        where = _short_path(exc.filename)
        if exc.filename2 is not None:
            where += f" -> {_short_path(exc.filename2)}"
        return f"{where}: {reason}"
    return f"cannot read or write a file: {reason}"


def classify(exc: BaseException) -> tuple[str, int, str]:
    """``(kind, exit code, message)`` of an exception that escaped a command."""
    import sqlite3

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", c.EXIT_INTERRUPTED, "interrupted"
    if isinstance(exc, RecursionError):
        return ("internal", c.EXIT_FAILED, "internal error: the input is nested too deeply "
                "to process (RecursionError)")
    if isinstance(exc, MemoryError):
        text = str(exc).strip()
        return "input", c.EXIT_USAGE, text or "out of memory: the input is too large"
    if isinstance(exc, UnicodeError):
        return "input", c.EXIT_USAGE, f"a file is not valid text ({exc})"
    if isinstance(exc, OSError):
        return "input", c.EXIT_USAGE, os_message(exc)
    if isinstance(exc, sqlite3.DatabaseError):
        return ("input", c.EXIT_USAGE, f"a results store or cache file is damaged or not an "
                f"accord file ({exc}); check a store with `accord store check PATH`")
    if isinstance(exc, ValueError) or _is_input_error(exc):
        text = str(exc).strip() or type(exc).__name__
        return "input", c.EXIT_USAGE, text
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    reason = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return ("internal", c.EXIT_FAILED, f"internal error ({reason}); rerun with --debug "
            "for the traceback and please report it")


def _is_input_error(exc: BaseException) -> bool:
    """The project's own non-``ValueError`` errors that mean bad input or setup."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & INPUT_ERRORS)


def _emit_error(kind: str, code: int, message: str, exception: str | None) -> None:
    doc: dict[str, Any] = {"type": kind, "message": message, "exit": code}
    if exception is not None:
        doc["exception"] = exception
    with suppress(OSError, ValueError):  # stdout itself is gone: nothing more to say
        c.emit_json({"error": doc})


def _say(message: str) -> None:
    with suppress(OSError, ValueError):  # stderr closed
        c.console(stderr=True).print(f"[bold red]error:[/] {c.plain(message)}")


def run_guarded(main: Callable[..., Any], args: Sequence[str] | None,
                standalone_mode: bool = True, **kwargs: Any) -> Any:
    """Run click's ``main`` (the root group's) with ``args`` inside the boundary.

    In standalone mode (the console script, ``CliRunner``) this ends with ``sys.exit``;
    otherwise it returns the exit code.
    """
    raw = list(sys.argv[1:] if args is None else args)
    debug = debug_requested(raw)
    as_json = json_requested(raw)
    argv = strip_debug(raw)
    c.reset_run_state()
    code: int
    exception: str | None = None
    kind = "usage"
    message: str | None = None
    try:
        rv = main(args=argv, standalone_mode=False, **kwargs)
        code = rv if isinstance(rv, int) and not isinstance(rv, bool) else c.EXIT_OK
    except typer.Exit as exc:
        code = exc.exit_code
    except ClickException as exc:
        exc.show()  # type: ignore[attr-defined]
        code = exc.exit_code  # type: ignore[attr-defined]
        message = exc.format_message()  # type: ignore[attr-defined]
    except typer.Abort:
        _say("aborted")
        code, kind, message = c.EXIT_INTERRUPTED, "interrupted", "aborted"
    except (Exception, KeyboardInterrupt) as exc:  # the boundary itself
        kind, code, message = classify(exc)
        exception = type(exc).__name__
        if debug:
            traceback.print_exc(file=sys.stderr)
        _say(message)
    if code != c.EXIT_OK and as_json and not c.json_emitted():
        if message is None:
            message = c.last_error() or f"the command failed (exit {code})"
            kind = "usage" if code == c.EXIT_USAGE else (
                "interrupted" if code == c.EXIT_INTERRUPTED else "failed")
        _emit_error(kind, code, message, exception)
    if standalone_mode:
        sys.exit(code)
    return code


__all__ = ["DEBUG_ENV", "DEBUG_OPTION", "classify", "debug_requested", "json_requested",
           "os_message", "run_guarded", "strip_debug"]
