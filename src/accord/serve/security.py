"""Access token and CSRF protection for ``accord serve`` and every app mounted in it.

:class:`Guard` is plain ASGI middleware wrapped around the whole application, so the
checks cover mounted apps (``/play``) without their cooperation:

* **Token** (``--token``): every request must carry it, as ``Authorization: Bearer T``,
  an ``X-Accord-Token`` header or the ``accord_token`` cookie. Opening any page once with
  ``?token=T`` sets the cookie (HttpOnly, SameSite=Strict) and redirects to the same URL
  without the token, so it does not linger in the address bar or in links.
* **CSRF**: each browser gets an ``accord_csrf`` cookie (HttpOnly, SameSite=Strict) that
  this server issued: a random nonce and its HMAC under a secret drawn when the guard is
  made (:meth:`Guard.issue`). A cookie the server did not sign (planted by another page
  or another service on the same host) is replaced by a fresh one, so it never counts.
  Every state-changing request (POST, PUT, PATCH, DELETE) must repeat the cookie's
  value, in an ``X-CSRF-Token`` header or a ``csrf`` form field; otherwise it is refused
  with 403 before the app sees it. A state-changing request whose ``Origin`` names
  another site, or is ``null`` (sandboxed frames, ``file:`` and ``data:`` pages,
  cross-site redirects), is refused too. Bodies of such requests are capped at
  :data:`MAX_BODY` bytes (413).

This is the one CSRF/token scheme of accord's web apps. An app that also runs on its own
(``python -m accord.play.web``) wraps itself in a :class:`Guard` too: a guard nested in
another one (the play app mounted at ``/play`` by ``accord serve``) sees that the outer
guard already checked the request and passes it through, so both ways the same cookie,
the same form field and the same checks apply. In such an app, put
``csrf_field(request)`` inside every ``<form method="post">`` (or send
``csrf_token(request)`` as the ``X-CSRF-Token`` header from scripts); the guard checks
it, and :func:`check_csrf` is there for code that wants to check again explicitly.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from markupsafe import Markup, escape

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_COOKIE, CSRF_COOKIE = "accord_token", "accord_csrf"
CSRF_FIELD, CSRF_HEADER = "csrf", "x-csrf-token"
#: scope key holding the request's CSRF token
SCOPE_KEY = "accord.csrf"
#: largest body of a state-changing request (bytes)
MAX_BODY = 2 * 1024 * 1024
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _cookies(scope: Scope) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header is just no cookie
                continue
    return {k: m.value for k, m in jar.items()}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def cross_site(scope: Scope) -> bool:
    """Whether the request's ``Origin`` header names a site other than its ``Host``, or
    is the opaque ``null`` (browsers send ``Origin`` on every POST; ``null`` comes from
    sandboxed frames, ``file:``/``data:`` pages and cross-site redirects, never from
    this app's own pages). No header at all is not taken as cross-site (scripts, curl):
    the CSRF token still has to match."""
    origin = _header(scope, b"origin")
    if origin is None or origin == "":
        return False
    if origin.strip().lower() == "null":
        return True
    return urlsplit(origin).netloc.lower() != (_header(scope, b"host") or "").lower()


def same_secret(a: str | None, b: str | None) -> bool:
    """Whether two secrets are both given and equal (compared in constant time)."""
    return a is not None and b is not None and hmac.compare_digest(a.encode(), b.encode())


def csrf_token(request: Any) -> str:
    """The CSRF token of this request's browser (what a form or script must send back)."""
    return str(request.scope.get(SCOPE_KEY, ""))


def csrf_field(request: Any) -> Markup:
    """A hidden ``<input>`` with the CSRF token, for inside a ``<form method="post">``."""
    return Markup('<input type="hidden" name="{}" value="{}">').format(
        CSRF_FIELD, escape(csrf_token(request)))


async def check_csrf(request: Any) -> None:
    """Raise ``HTTPException(403)`` unless the request repeats the browser's CSRF token
    (header or ``csrf`` form field). :class:`Guard` already does this for every unsafe
    request; call it to be explicit in a handler."""
    from starlette.exceptions import HTTPException

    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.method in UNSAFE:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    if not same_secret(sent, csrf_token(request)):
        raise HTTPException(403, "missing or wrong CSRF token; reload the page")


async def _text(send: Send, status: int, text: str,
                headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: token check, CSRF cookie, CSRF check of unsafe requests."""

    def __init__(self, app: ASGIApp, token: str | None = None,
                 secret: bytes | None = None) -> None:
        self.app = app
        self.token = token or None
        # signs the CSRF cookies this guard issues; a new one per server unless given
        # (e.g. shared by several worker processes behind one address)
        self._secret = secret or secrets.token_bytes(32)
        #: the wrapped app's ``state`` (Starlette), for code that reaches it through us
        self.state: Any = getattr(app, "state", None)

    def _mac(self, nonce: str) -> str:
        digest = hmac.new(self._secret, nonce.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def issue(self) -> str:
        """A new CSRF token: ``NONCE.MAC``, the MAC under this guard's secret."""
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._mac(nonce)}"

    def issued(self, token: str | None) -> bool:
        """Whether ``token`` is one this guard issued (its MAC checks out)."""
        if not token or len(token) > 200:
            return False
        nonce, dot, mac = token.rpartition(".")
        return bool(dot and nonce) and same_secret(mac, self._mac(nonce))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or SCOPE_KEY in scope:
            # not a request, or an outer guard (``accord serve``) already checked it
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        extra: list[tuple[bytes, bytes]] = []
        if self.token is not None:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if same_secret(query.get("token"), self.token):
                rest = urlencode([(k, v) for k, v in parse_qsl(
                    scope.get("query_string", b"").decode("latin-1")) if k != "token"])
                where = scope.get("root_path", "") + scope["path"] + (f"?{rest}" if rest
                                                                      else "")
                await _text(send, 303, "token accepted", [
                    (b"location", where.encode("latin-1", "replace")),
                    (b"set-cookie", f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; "
                     "SameSite=Strict".encode())])
                return
            auth = _header(scope, b"authorization") or ""
            sent = (auth[7:] if auth.lower().startswith("bearer ") else None) \
                or _header(scope, b"x-accord-token") or cookies.get(TOKEN_COOKIE)
            if not same_secret(sent, self.token):
                await _text(send, 401, "accord serve: this server needs its access token; "
                            "open the URL printed by accord serve (it ends in ?token=...)")
                return
        csrf = cookies.get(CSRF_COOKIE) or ""
        if not self.issued(csrf):  # none yet, or not ours (planted): a fresh one
            csrf = self.issue()
            extra.append((b"set-cookie", f"{CSRF_COOKIE}={csrf}; Path=/; HttpOnly; "
                          "SameSite=Strict".encode()))
        scope[SCOPE_KEY] = csrf
        if scope["type"] == "http" and scope["method"] in UNSAFE:
            if cross_site(scope):
                await _text(send, 403, "accord: cross-site request refused (the Origin "
                            "header names another site or is null)")
                return
            receive = await self._checked(scope, receive, send, csrf)  # type: ignore[assignment]
            if receive is None:
                return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and extra:
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    async def _checked(self, scope: Scope, receive: Receive, send: Send, csrf: str
                       ) -> Receive | None:
        """Read the body (capped), check the token, and return a receive that replays it;
        ``None`` when the request was refused (the response is sent)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await _text(send, 413, f"request body over {MAX_BODY} bytes")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = _header(scope, CSRF_HEADER.encode())
        if sent is None:
            sent = await _form_field(scope, body)
        if not same_secret(sent, csrf):
            await _text(send, 403, "accord: missing or wrong CSRF token; reload the "
                        "page and try again")
            return None
        done = False

        async def replay() -> Message:
            nonlocal done
            if done:
                return await receive()
            done = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay


async def _form_field(scope: Scope, body: bytes) -> str | None:
    """The ``csrf`` field of a urlencoded or multipart form body."""
    ctype = (_header(scope, b"content-type") or "").lower()
    if ctype.startswith("application/x-www-form-urlencoded"):
        for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
            if key == CSRF_FIELD:
                return value
        return None
    if ctype.startswith("multipart/form-data"):
        from starlette.requests import Request

        sent = False

        async def once() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        from accord.serve.bodies import MAX_FIELDS, MAX_PART

        try:  # only the token is read here: each handler applies its own file limits
            form = await Request(dict(scope), once).form(
                max_fields=MAX_FIELDS, max_files=MAX_FIELDS, max_part_size=MAX_PART)
        except Exception:  # a malformed (or oversized) form has no token
            return None
        field = form.get(CSRF_FIELD)
        await form.close()
        return field if isinstance(field, str) else None
    return None


__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "CSRF_HEADER", "MAX_BODY", "TOKEN_COOKIE", "Guard",
           "check_csrf", "cross_site", "csrf_field", "csrf_token", "same_secret"]
