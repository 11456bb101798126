"""The ``accord`` command line (typer). :func:`main` is the console-script entry point."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import MutableMapping

#: the variables OpenBLAS reads for its thread count, in its own order of precedence
#: (OPENBLAS_NUM_THREADS, then GOTO_NUM_THREADS, then OMP_NUM_THREADS)
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread(environ: MutableMapping[str, str] | None = None,
                    modules: MutableMapping[str, object] | None = None) -> bool:
    """Ask OpenBLAS for one thread unless the user chose a count; True when it was set.

    numpy's wheels link OpenBLAS, which starts one worker thread per core when numpy is
    first imported, and each worker spins for a while before it sleeps: CPU time that a
    command of accord pays at every start and never uses (its matrices are small; the
    largest, a leaderboard's bootstrap, is no faster threaded on a loaded machine). Set
    before numpy's first import, and only by the command line: ``import accord`` as a
    library leaves the environment alone, and a count the user gave in any of
    :data:`BLAS_THREAD_VARS` wins. Child processes inherit the setting, as one process
    per core should. Nothing is set when numpy is already loaded (too late to matter).
    """
    env = os.environ if environ is None else environ
    loaded = sys.modules if modules is None else modules
    if "numpy" in loaded or any(env.get(name) for name in BLAS_THREAD_VARS):
        return False
    env["OPENBLAS_NUM_THREADS"] = "1"
    return True


#: whether :func:`main` paused the garbage collector for the start-up (see :func:`end_startup`)
_gc_paused = False


def _pause_gc() -> None:
    """Pause the cyclic garbage collector for the start-up, unless it is off already.

    Importing numpy, typer and accord allocates some 10^5 objects that all live until the
    process ends (modules, classes, functions, constants); the collector, running every 700
    allocations, traverses them again and again: ~20-40 ms of CPU in ``accord run`` (~60
    young-generation and several middle-generation passes) that free nothing.
    """
    global _gc_paused
    if gc.isenabled():
        gc.disable()
        _gc_paused = True


def end_startup() -> None:
    """End the start-up: move every object made so far into the collector's permanent
    generation (``gc.freeze``: they are the program, never garbage, and later collections
    need not traverse them) and turn the collector back on. Does nothing unless :func:`main`
    paused it (a library caller's, or a test runner's, collector is never touched) and
    nothing the second time.

    Called as a command starts its own work: by the root callback for every command but
    ``accord run``, which loads its domain, scenario and agents first and calls it just
    before the episode; and always when :func:`main` returns or raises.
    """
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        gc.freeze()
        gc.enable()


def main() -> None:
    """Entry point of the ``accord`` script.

    ``accord --version`` is answered here, before typer and the commands are imported, so
    scripts that probe the version pay for nothing else. Every other command asks OpenBLAS
    for one thread first (:func:`one_blas_thread`) and starts with the garbage collector
    paused until :func:`end_startup`.
    """
    if sys.argv[1:] in (["--version"], ["-V"]):
        from accord._version import __version__

        sys.stdout.write(f"accord {__version__}\n")
        return
    one_blas_thread()
    _pause_gc()
    try:
        from accord.cli.main import main as run

        run()
    finally:
        end_startup()


__all__ = ["BLAS_THREAD_VARS", "end_startup", "main", "one_blas_thread"]
