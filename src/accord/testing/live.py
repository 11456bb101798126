"""Serve an ASGI app on a free local port in a background thread (browser tests).

``with LiveServer(app) as url:`` starts uvicorn on 127.0.0.1, waits until it answers and
yields its base URL (``http://127.0.0.1:PORT``); leaving the block stops it.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn in a daemon thread, for as long as the ``with`` block lasts."""

    def __init__(self, app: Any, port: int | None = None, timeout: float = 20.0) -> None:
        import uvicorn

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True,
                                       name=f"live-server-{self.port}")
        self.timeout = timeout

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + self.timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the live server on port {self.port} did not start")
            time.sleep(0.02)
        return self.url

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=self.timeout)


__all__ = ["LiveServer", "free_port"]
