"""``accord serve``, ``accord approve`` and ``accord report``: results for people.

Registered on the root app as plain commands (like ``bench``/``results``/``show``);
the web stack (starlette, uvicorn, jinja2) is imported only when a command runs.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from pathlib import Path

import typer

from accord.cli import common as c

SERVE_EXAMPLES = c.example(
    "accord serve                                # every runs/*.db, on 127.0.0.1:8765",
    "accord serve runs/demo.db runs/deals.db --port 9000",
    "ACCORD_SERVE_TOKEN=a-long-shared-secret accord serve runs/demo.db --host 0.0.0.0")
APPROVE_EXAMPLES = c.example(
    "accord approve runs/deals.db 3fa9",
    "accord approve runs/deals.db 3fa9 --reject --comment \"price above budget\"",
    "accord approve runs/deals.db 3fa9 --json")
REPORT_EXAMPLES = c.example("accord report runs/demo.db -o demo.html",
                            "accord report runs/demo.db --run demo -o demo.html",
                            "accord report runs/big.db --transcripts none -o big.html")

#: host names that only this machine can reach
LOCAL_HOSTS = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _stores(paths: list[Path] | None, play: bool = False) -> list[Path]:
    """The stores to serve: the given files (each checked), else ``runs/*.db``; with
    ``play`` none is fine (the play store is served)."""
    from accord.bench.store import Store, StoreError

    if not paths:
        paths = sorted(Path("runs").glob("*.db"))
        if not paths and not play:
            raise c.fail("no stores given and none in ./runs; e.g. accord serve runs/demo.db "
                         "(accord bench demo writes one)")
    for p in paths:
        try:
            Store.open_readonly(p).conn.close()
        except StoreError as exc:
            raise c.fail(str(exc)) from None
    return list(paths)


def serve_command(
    stores: list[Path] | None = typer.Argument(None, metavar="[STORE ...]",
        help="Results stores to browse (default: runs/*.db)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; anything but "
                             "a loopback address needs --token."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port to bind."),
    token: str | None = typer.Option(None, "--token", envvar="ACCORD_SERVE_TOKEN",
                                     help="Access token every request must carry (open "
                                     "a page once as URL?token=TOKEN, which sets a "
                                     "cookie; prefer the env ACCORD_SERVE_TOKEN)."),
    play: bool = typer.Option(False, "--play", help="Also serve /play, where a person "
                              "plays a scenario in the browser against an agent "
                              "of their choice (finished games go to --play-store)."),
    play_store: Path = typer.Option(Path("runs/play.db"), "--play-store", metavar="PATH",
                                    help="With --play: the store finished games go to "
                                    "(served too)."),
    require_approval: bool = typer.Option(False, "--require-approval", help="With --play: "
                                          "agreements reached in the browser await a "
                                          "person's approval (approve them on their "
                                          "transcript page or with accord approve)."),
    llm_timeout: float | None = c.llm_timeout_option(),
) -> None:
    """Browse results stores in a local web app: runs, episodes, transcripts, approvals.

    Stores are opened read-only (a running accord bench is never blocked); approve and
    reject decisions go to the store's own approvals table. Exit status 2 on bad input
    (no store, a non-loopback --host without --token).
    """
    if not is_loopback(host) and not token:
        raise c.fail(f"--host {host} makes the server reachable from other machines; give "
                     "--token TOKEN (or ACCORD_SERVE_TOKEN) so only people with the token "
                     "can open it, or bind 127.0.0.1")
    if token is not None and len(token) < 8:
        raise c.fail("--token must be at least 8 characters")
    if require_approval and not play:
        raise c.fail("--require-approval gates games played in the browser; it needs --play")
    paths = _stores(stores, play)
    llm = c.llm_settings(None, None, timeout=llm_timeout)  # the LLM opponents of --play
    sock = _bind(host, port)  # before anything says it is serving: a taken port is bad input
    import uvicorn

    from accord.serve.app import create_app

    try:
        # a public bind is reached under any name; a local one only under local names
        app = create_app(paths, token=token, play=play, play_store=play_store,
                         play_require_approval=require_approval, play_llm=llm,
                         allowed_hosts=None if is_loopback(host) else ["*"])
    except RuntimeError as exc:
        sock.close()
        raise c.fail(str(exc)) from None
    port = sock.getsockname()[1]  # the one the system chose for --port 0
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    # the token is a secret: never printed (open the URL once with ?token=...)
    c.console(stderr=True).print(f"accord serve: {len(app.state.stores)} store(s) on "
                                 f"{c.plain(url)}"
                                 + (" (needs the token: open it once as URL?token=TOKEN)"
                                    if token else "") + " (Ctrl-C stops)")
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    with sock:
        uvicorn.Server(config).run(sockets=[sock])


def _bind(host: str, port: int) -> socket.socket:
    """The listening address, bound now (as uvicorn would bind it), so a port that is taken
    fails with a hint before anything is announced, and nothing can take it in between."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: the connections it accepts inherit the protocol number, and asyncio
    # sets TCP_NODELAY only on sockets that say TCP; without it Nagle's algorithm holds a
    # response's body (written after its headers) until the browser's delayed ACK: +40 ms
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT, as uvicorn
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise c.fail(f"port {port} is in use; try --port N (another free port on "
                         f"{host}), or --port 0 to let the system choose one") from None
        raise c.fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def approve_command(
    store: Path = typer.Argument(..., metavar="STORE", help="Results store, e.g. "
                                 "runs/deals.db."),
    episode_id: str = typer.Argument(..., help="Episode id (a unique prefix is enough)."),
    reject: bool = typer.Option(False, "--reject", help="Reject the agreement (needs "
                                "--comment)."),
    comment: str | None = typer.Option(None, "--comment", metavar="TEXT",
                                       help="Why (required to reject)."),
    run: str | None = typer.Option(None, "--run", help="The run, when ids are ambiguous."),
    as_json: bool = c.json_option(),
) -> None:
    """Approve (or reject) an agreement awaiting approval (require_approval runs).

    The decision, its time and the comment are stored in the store's approvals table;
    the episode's own record is not changed. Exit status 2 when the episode has no
    pending agreement or a rejection has no comment.
    """
    from accord.bench import approvals
    from accord.bench.store import Store, StoreError

    state = approvals.REJECTED if reject else approvals.APPROVED
    try:
        with Store.open(store, create=False) as st:
            ep = st.find(episode_id, run)
            appr = approvals.decide(st.conn, ep.run, ep.id, state, comment, "cli")
    except (StoreError, approvals.ApprovalError) as exc:
        raise c.fail(str(exc)) from None
    if as_json:
        c.emit_json({"store": str(store), "run": ep.run, "id": ep.id,
                     "approval": appr.to_dict()})
        return
    c.console().print(f"{ep.id} (run {c.plain(ep.run)}): [bold]{appr.state}[/]"
                      + (f" — {c.plain(appr.comment)}" if appr.comment else ""))


def report_command(
    store: Path = typer.Argument(..., metavar="STORE", help="Results store, e.g. "
                                 "runs/demo.db."),
    run: str | None = typer.Option(None, "--run", help="One run of the store (default: "
                                   "all)."),
    out: Path = c.out_option("The HTML file to write.", required=True),
    transcripts: str = typer.Option("20", "--transcripts", metavar="none|failed|all|N",
                                    help="Which transcripts to include: none, the failed "
                                    "ones, all, or up to N per run (failed ones first)."),
) -> None:
    """Write one self-contained HTML file: per run the summary first (charts and the
    aggregate table per line-up), the leaderboard, an episode index, then transcripts.

    Transcripts: up to 20 per run by default (failed ones first), so a large run still
    gives a small file; --transcripts all|failed|none|N changes it. No script and no
    external reference: it opens anywhere, e.g. attached to a mail.
    """
    from accord.bench.store import StoreError
    from accord.serve.report import ReportError, build_report, parse_transcripts

    try:
        which = parse_transcripts(transcripts)
    except ReportError as exc:
        raise c.fail(str(exc)) from None
    c.check_out_path(out)
    try:
        html = build_report(store, run, which)
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    out.write_text(html, encoding="utf-8")
    c.console(stderr=True).print(f"report: {c.plain(out)} ({len(html) // 1024} KiB)")


__all__ = ["approve_command", "is_loopback", "report_command", "serve_command"]
