"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

Endpoints: ``POST /v1/chat/completions`` (OpenAI Chat Completions, no streaming),
``GET /v1/models``, and a minimal Anthropic-compatible ``POST /v1/messages`` so the
Anthropic client path is tested over HTTP too. Each request goes to a
:class:`~accord.testing.stub.policies.Policy`: the one configured for its ``model``,
else the registered policy of that name, else the server's default policy.

Why a thread-based server (``http.server.ThreadingHTTPServer``) rather than asyncio:
it runs on its own threads, so the same ``with StubServer() as stub:`` works in plain
sync tests and inside async tests without sharing (or blocking) the test's event
loop; each connection has its own thread, so delays and in-flight concurrency are
real; it needs only the standard library. Its throughput (a few thousand small
requests per second) is far above what the benchmarks ask of it.

Usage accounting follows :mod:`accord.testing.stub.tokens`:
``usage.prompt_tokens`` / ``completion_tokens`` / ``total_tokens`` and
``usage.prompt_tokens_details.cached_tokens`` (the prefix shared with the previous
request of the same conversation: the ``X-Accord-Session`` header when sent, else a
hash of the first message). ``max_tokens`` (or ``max_completion_tokens``) truncates
the reply and sets ``finish_reason`` to ``length``.

With ``api_key=...`` the server demands that key (``Authorization: Bearer`` or
``x-api-key``) and, like some careless gateways, echoes a wrong key verbatim in its
401 message, so tests can prove that clients redact keys from errors. The request
log never keeps ``Authorization`` or ``x-api-key`` headers.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from accord.testing.stub.policies import (
    HttpError,
    Policy,
    PolicyError,
    PolicyRequest,
    Reply,
    as_policy,
    make_policy,
)
from accord.testing.stub.tokens import PrefixTracker, count_tokens, message_tokens, truncate_tokens

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})
"""Headers never kept in the request log."""


@dataclass
class LoggedRequest:
    """One request as the stub saw it (for assertions in tests)."""

    method: str
    path: str
    headers: dict[str, str]
    model: str | None = None
    messages: list[dict[str, str]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    conversation: str = ""
    status: int | None = None
    reply: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    started: float = 0.0
    finished: float | None = None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # clients that time out hang up mid-answer; that is expected, not a failure
        import sys

        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError | TimeoutError):
            self.stub.errors.append(repr(exc))


class StubServer:
    """The stub server; a context manager (sync and async) that starts and stops it."""

    def __init__(self, policy: Policy | str = "echo", *,
                 policies: Mapping[str, Policy | str] | None = None,
                 api_key: str | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.default_policy = as_policy(policy)
        self.policies: dict[str, Policy] = {k: as_policy(v) for k, v in (policies or {}).items()}
        self.api_key = api_key
        self.host, self.port = host, port
        self.errors: list[str] = []
        self._log: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._in_flight = 0
        self._max_in_flight = 0
        self._index = 0
        self._prefix = PrefixTracker()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ---------------------------------------------------------------
    def start(self) -> StubServer:
        """Bind an ephemeral port on 127.0.0.1 and serve on a background thread."""
        httpd = _HTTPServer((self.host, self.port), _Handler)
        httpd.stub = self
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._stop.clear()
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"accord-stub-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending delays are cut short."""
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> StubServer:
        return self.start()

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.stop()

    # inspection ----------------------------------------------------------------
    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:<port>`` (Anthropic SDK base URL)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1`` (OpenAI SDK base URL)."""
        return self.root_url + "/v1"

    @property
    def requests(self) -> list[LoggedRequest]:
        """A snapshot of the request log, oldest first."""
        with self._lock:
            return list(self._log)

    @property
    def completion_requests(self) -> list[LoggedRequest]:
        """Logged chat or messages requests (the ones that reach a policy)."""
        return [r for r in self.requests if r.method == "POST"]

    @property
    def max_in_flight(self) -> int:
        """The largest number of requests handled at the same time so far."""
        return self._max_in_flight

    def reset(self) -> None:
        """Clear the log, the in-flight maximum and the prefix memory."""
        with self._lock:
            self._log.clear()
            self._max_in_flight = self._in_flight
        self._prefix.clear()

    def set_policy(self, model: str, policy: Policy | str) -> None:
        """Answer requests for ``model`` with ``policy`` from now on."""
        self.policies[model] = as_policy(policy)

    # request handling (called on handler threads) --------------------------------
    def policy_for(self, model: str) -> Policy:
        """The policy that answers requests for ``model``."""
        if model in self.policies:
            return self.policies[model]
        try:
            policy = make_policy(model)
        except (KeyError, PolicyError):
            return self.default_policy
        with self._lock:
            return self.policies.setdefault(model, policy)

    def begin(self, entry: LoggedRequest) -> int:
        """Log ``entry``, count it in flight; return its request index."""
        with self._lock:
            self._log.append(entry)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            index = self._index
            self._index += 1
        return index

    def end(self, entry: LoggedRequest, status: int) -> None:
        """Mark ``entry`` finished with ``status``."""
        with self._lock:
            self._in_flight -= 1
            entry.status = status
            entry.finished = time.monotonic()

    def answer(self, entry: LoggedRequest, index: int) -> tuple[int, dict[str, str], Any]:
        """Run the policy for a logged request: status, headers, and a Reply or error text."""
        request = PolicyRequest(tuple(entry.messages), entry.model or "", entry.params, index,
                                entry.conversation)
        try:
            outcome = self.policy_for(entry.model or "").respond(request)
        except PolicyError as exc:
            return 400, {}, HttpError(400, str(exc), error_type="invalid_request_error")
        if outcome.delay > 0:
            self._stop.wait(outcome.delay)
        if isinstance(outcome, HttpError):
            return outcome.status, dict(outcome.headers), outcome
        limit = entry.params.get("max_tokens") or entry.params.get("max_completion_tokens")
        text, cut = truncate_tokens(outcome.text, int(limit)) if limit else (outcome.text, False)
        prompt = message_tokens(entry.messages)
        entry.prompt_tokens = len(prompt)
        entry.cached_tokens = self._prefix.observe(entry.conversation, prompt)
        entry.completion_tokens = count_tokens(text)
        entry.reply = text
        return 200, {}, Reply(text, finish_reason="length" if cut else outcome.finish_reason,
                              drip=outcome.drip)


def _conversation(headers: Mapping[str, str], messages: list[dict[str, str]]) -> str:
    if headers.get("x-accord-session"):
        return headers["x-accord-session"]
    first = json.dumps(messages[:1], sort_keys=True).encode()
    return "h:" + hashlib.sha256(first).hexdigest()[:16]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    raise PolicyError(f"message content must be a string or a list of text parts, got "
                      f"{type(content).__name__}")


#: largest request body the stub reads (bytes); larger ones get HTTP 413
MAX_BODY = 32 * 1024 * 1024
#: header limits, as in the standard library (``http.client._MAXLINE``/``_MAXHEADERS``)
_MAX_LINE = 65536
_MAX_HEADERS = 100
#: [second, formatted Date header] shared by the handler threads (a race only recomputes)
_DATE_CACHE: list[Any] = [0, ""]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out as separate writes; with Nagle on, the body waits for
    # the client's delayed ACK (~40 ms on Linux) and latency figures would be wrong
    disable_nagle_algorithm = True
    server: _HTTPServer

    def parse_request(self) -> bool:
        """The request line and headers; a lean path for well-formed HTTP/1.x requests.

        The standard library parses headers with the ``email`` package (a FeedParser per
        request: a third of the stub's CPU per request in ``benchmarks/bench_llm.py``).
        Requests whose request line is ``METHOD /path HTTP/1.0|1.1`` get their header
        lines read here into the same :class:`http.client.HTTPMessage`; anything else (HTTP/0.9,
        other versions, malformed lines) goes to the standard parser and its errors.
        """
        raw: bytes = self.raw_requestline  # type: ignore[attr-defined]  # set by the caller
        words = str(raw, "iso-8859-1").rstrip("\r\n").split()
        if len(words) != 3 or words[2] not in ("HTTP/1.1", "HTTP/1.0"):
            return super().parse_request()
        self.requestline = " ".join(words)
        self.command, self.path, self.request_version = words
        self.close_connection = words[2] == "HTTP/1.0"
        if self.path.startswith("//"):
            self.path = "/" + self.path.lstrip("/")
        message = http.client.HTTPMessage()
        name = None
        for _ in range(_MAX_HEADERS + 1):
            line = self.rfile.readline(_MAX_LINE + 1)
            if len(line) > _MAX_LINE:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long")
                return False
            if line in (b"\r\n", b"\n", b""):
                break
            text = line.decode("iso-8859-1").rstrip("\r\n")
            if text[:1] in (" ", "\t") and name is not None:  # obsolete line folding
                value = message[name] + " " + text.strip()
                del message[name]
                message[name] = value
                continue
            name, sep, value = text.partition(":")
            if not sep or not name or name != name.strip():
                self.send_error(HTTPStatus.BAD_REQUEST, f"Bad header line {text[:80]!r}")
                return False
            message[name] = value.strip()
        else:
            self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers")
            return False
        self.headers = message
        conntype = message.get("Connection", "").lower()
        if conntype == "close":
            self.close_connection = True
        elif conntype == "keep-alive":
            self.close_connection = False
        if message.get("Expect", "").lower() == "100-continue" and words[2] == "HTTP/1.1":
            return self.handle_expect_100()
        return True

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The ``Date`` header, formatted once per second (it was 5% of a request's CPU)."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        now = int(time.time())
        cached = _DATE_CACHE
        if cached[0] != now:
            cached[:] = [now, super().date_time_string(now)]
        return str(cached[1])

    def log_message(self, format: str, *args: Any) -> None:
        return  # the request log replaces stderr chatter

    def _send(self, status: int, body: Any, headers: Mapping[str, str] | None = None,
              drip: float = 0.0) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if drip > 0:
            self._drip(data, drip)
        else:
            self.wfile.write(data)

    def _drip(self, data: bytes, interval: float) -> None:
        """``data`` one byte every ``interval`` seconds, until done, the client hangs up
        or the server stops (then the connection closes with the body unfinished)."""
        stop = self.server.stub._stop
        self.wfile.flush()
        for i in range(len(data)):
            try:
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
            except OSError:  # the client gave up (its deadline): nothing left to send to
                self.close_connection = True
                return
            if i + 1 < len(data) and stop.wait(interval):
                self.close_connection = True
                return

    def _error(self, status: int, message: str, kind: str, anthropic: bool,
               headers: Mapping[str, str] | None = None) -> None:
        if anthropic:
            body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        self._send(status, body, headers)

    def do_GET(self) -> None:
        stub = self.server.stub
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            from accord.testing.stub.policies import POLICIES

            names = sorted(set(POLICIES) | set(stub.policies))
            data = [{"id": n, "object": "model", "created": 0, "owned_by": "accord-stub"}
                    for n in names]
            self._send(200, {"object": "list", "data": data})
        else:
            self._error(404, f"no route GET {self.path}", "not_found", False)

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        anthropic = path.endswith("/messages") and not path.endswith("chat/completions")
        if path not in ("/v1/chat/completions", "/chat/completions", "/v1/messages"):
            self._error(404, f"no route POST {self.path}", "not_found", anthropic)
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            length = int(headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            # the body is not read: answer and close, so nothing of it is taken as a request
            self.close_connection = True
            self._error(413 if length > MAX_BODY else 400,
                        f"bad request: Content-Length must be 0..{MAX_BODY}, got "
                        f"{headers.get('content-length')!r}"[:300], "invalid_request_error",
                        anthropic, {"Connection": "close"})
            return
        raw = self.rfile.read(length) if length else b""
        if not self._authorised(headers, anthropic):
            return
        try:
            body = json.loads(raw or b"null")
            if not isinstance(body, dict):
                raise PolicyError("request body must be a JSON object")
            model, messages, params = _parse(body, anthropic)
        except (ValueError, RecursionError, PolicyError) as exc:
            # ValueError: not JSON or not UTF-8; RecursionError: nested too deeply
            self._error(400, f"bad request: {type(exc).__name__}: {exc}"[:300],
                        "invalid_request_error", anthropic)
            return
        stub = self.server.stub
        entry = LoggedRequest("POST", path,
                              {k: v for k, v in headers.items() if k not in SECRET_HEADERS},
                              model, messages, params, _conversation(headers, messages),
                              started=time.monotonic())
        index = stub.begin(entry)
        booked = False
        try:
            status, extra, outcome = stub.answer(entry, index)
            # booked as finished before the answer leaves: a client holding its answer never
            # sees its request still counted in flight (no race in max_in_flight)
            stub.end(entry, status)
            booked = True
            if isinstance(outcome, HttpError) and outcome.body is not None:
                self._send(status, dict(outcome.body), extra)
            elif isinstance(outcome, HttpError):
                kind = "rate_limit_error" if anthropic and status == 429 else outcome.error_type
                self._error(status, outcome.message, kind, anthropic, extra)
            elif anthropic:
                self._send(200, _anthropic_body(entry, outcome), drip=outcome.drip)
            else:
                self._send(200, _openai_body(entry, outcome, index), drip=outcome.drip)
        finally:
            if not booked:
                stub.end(entry, 500)

    def _authorised(self, headers: Mapping[str, str], anthropic: bool) -> bool:
        want = self.server.stub.api_key
        if want is None:
            return True
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix(
            "Bearer ").strip()
        if given == want:
            return True
        kind = "authentication_error" if anthropic else "invalid_api_key"
        self._error(401, f"Incorrect API key provided: {given}", kind, anthropic)
        return False


def _parse(body: Mapping[str, Any], anthropic: bool
           ) -> tuple[str, list[dict[str, str]], dict[str, Any]]:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise PolicyError("'model' must be a non-empty string")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise PolicyError("'messages' must be a non-empty list")
    if body.get("stream"):
        raise PolicyError("the stub does not stream; send stream=false")
    messages: list[dict[str, str]] = []
    if anthropic and body.get("system") is not None:
        messages.append({"role": "system", "content": _text(body["system"])})
    for m in raw:
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise PolicyError(f"each message needs 'role' and 'content', got {m!r}")
        messages.append({"role": str(m["role"]), "content": _text(m["content"])})
    params = {k: v for k, v in body.items() if k not in ("model", "messages", "system")}
    for key in ("max_tokens", "max_completion_tokens"):
        val = params.get(key)
        if val is not None and (isinstance(val, bool) or not isinstance(val, int) or val < 1):
            raise PolicyError(f"'{key}' must be a positive integer, got {val!r}"[:200])
    return model, messages, params


def _openai_body(entry: LoggedRequest, reply: Reply, index: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-stub-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": entry.model,
        "system_fingerprint": "accord-stub",
        "choices": [{"index": 0, "finish_reason": reply.finish_reason, "logprobs": None,
                     "message": {"role": "assistant", "content": reply.text}}],
        "usage": {"prompt_tokens": entry.prompt_tokens,
                  "completion_tokens": entry.completion_tokens,
                  "total_tokens": entry.prompt_tokens + entry.completion_tokens,
                  "prompt_tokens_details": {"cached_tokens": entry.cached_tokens}},
    }


def _anthropic_body(entry: LoggedRequest, reply: Reply) -> dict[str, Any]:
    stop = "max_tokens" if reply.finish_reason == "length" else "end_turn"
    return {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": entry.model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": entry.prompt_tokens - entry.cached_tokens,
                  "output_tokens": entry.completion_tokens,
                  "cache_read_input_tokens": entry.cached_tokens,
                  "cache_creation_input_tokens": 0},
    }
