"""``python -m accord.play.web STORE [--port N]``: the play app on 127.0.0.1 only.

For a shared server use ``accord serve --play`` (token and host checks live there).
"""

from __future__ import annotations

import argparse
import os


def main(argv: list[str] | None = None) -> None:
    """Serve the play app for one store on localhost."""
    import uvicorn

    from accord.play.web import PlaySettings, create_app

    ap = argparse.ArgumentParser(prog="python -m accord.play.web",
                                 description="Play against any agent in the browser.")
    ap.add_argument("store", help="SQLite store that finished games are written to")
    ap.add_argument("--port", type=int, default=8766)
    args = ap.parse_args(argv)
    app = create_app(args.store, PlaySettings(data=os.environ.get("ACCORD_DATA")))
    print(f"accord play: http://127.0.0.1:{args.port}/  (store {args.store})", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
