"""The ``accord`` command line (typer). :func:`main` is the console-script entry point."""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the ``accord`` script.

    ``accord --version`` is answered here, before typer and the commands are imported, so
    scripts that probe the version pay for nothing else.
    """
    if sys.argv[1:] in (["--version"], ["-V"]):
        from accord._version import __version__

        sys.stdout.write(f"accord {__version__}\n")
        return
    from accord.cli.main import main as run

    run()


__all__ = ["main"]
