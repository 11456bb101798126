"""The ``accord`` command line (typer). :func:`main` is the console-script entry point."""

from __future__ import annotations

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


def main() -> None:
    """Entry point of the ``accord`` script.

    ``accord --version`` is answered here, before typer and the commands are imported, so
    scripts that probe the version pay for nothing else. Every other command asks OpenBLAS
    for one thread first (:func:`one_blas_thread`).
    """
    if sys.argv[1:] in (["--version"], ["-V"]):
        from accord._version import __version__

        sys.stdout.write(f"accord {__version__}\n")
        return
    one_blas_thread()
    from accord.cli.main import main as run

    run()


__all__ = ["BLAS_THREAD_VARS", "main", "one_blas_thread"]
