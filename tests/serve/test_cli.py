"""``accord serve``, ``accord approve``, ``accord report`` and ``accord run --save`` from
the command line, as a person or a script runs them (subprocesses)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from accord.testing.live import announced_url

XSS = "<script>alert(1)</script> <img src=x onerror=alert(2)>"


def accord(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "accord", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, message", [
    (["--host", "0.0.0.0"], "--host 0.0.0.0 makes the server reachable from other machines"),
    (["--host", "192.168.1.5"], "give --token TOKEN"),
    (["--host", "0.0.0.0", "--token", "short"], "--token must be at least 8 characters"),
    (["--require-approval"], "--require-approval gates games played in the browser"),
    (["missing.db"], "no results store at missing.db"),
])
def test_serve_refuses_bad_settings_with_exit_2(tmp_path, gated_store, args, message):
    store = [] if "missing.db" in args else [str(gated_store)]
    proc = accord("serve", *store, *args, cwd=tmp_path)
    assert proc.returncode == 2 and message in " ".join(proc.stderr.split())
    assert proc.stdout == ""


def test_serve_with_its_port_taken_says_so_before_announcing(tmp_path, gated_store):
    """A taken port is refused with exit 2 and a hint, and nothing claims to be serving
    (it used to print "accord serve: ... on http://..." and then die of Errno 98)."""
    import socket

    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        proc = accord("serve", str(gated_store), "--port", str(port), cwd=tmp_path)
    text = " ".join(proc.stderr.split())
    assert proc.returncode == 2, proc.stderr
    assert f"port {port} is in use; try --port N" in text and "--port 0" in text
    assert "accord serve:" not in text and "Errno" not in text
    assert proc.stdout == ""


def test_serve_without_stores_and_no_runs_folder(tmp_path):
    proc = accord("serve", cwd=tmp_path)
    assert proc.returncode == 2 and "no stores given and none in ./runs" in proc.stderr


def test_serve_answers_on_its_port_and_reads_runs_folder(tmp_path, gated_store):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "gated.db").write_bytes(gated_store.read_bytes())
    env = {**os.environ, "ACCORD_SERVE_TOKEN": "env-token-12345"}
    # --port 0: the system picks the port as it binds, and the server says which
    proc = subprocess.Popen([sys.executable, "-m", "accord", "serve", "--port", "0"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    said = ""
    try:
        base, said = announced_url(proc)
        port = int(base.rsplit(":", 1)[1])
        url = f"{base}/api/stores"
        deadline = time.monotonic() + 60
        while True:
            try:
                req = urllib.request.Request(url, headers={"X-Accord-Token": "env-token-12345"})
                with urllib.request.urlopen(req, timeout=5) as resp:
                    doc = json.load(resp)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        assert doc["stores"][0]["name"] == "gated.db"
        assert doc["stores"][0]["runs"][0]["episodes"] == 8
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url, timeout=5)
        assert err.value.code == 401
    finally:
        proc.terminate()
        _, rest = proc.communicate(timeout=30)
    err_text = said + rest
    assert f"on http://127.0.0.1:{port}/ (needs the token" in err_text
    assert "env-token-12345" not in err_text  # a secret: never printed


def test_run_store_require_approval_then_approve(tmp_path):
    proc = accord("run", "bargaining/buyer-seller", "--agents", "conceder,conceder", "--save",
                  "deals.db", "--require-approval", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["stored"]["run"] == "accord-run" and doc["stored"]["approval"] == "pending"
    eid = doc["stored"]["id"]
    assert "awaits approval: accord approve deals.db" in " ".join(proc.stderr.split())
    shown = accord("show", "deals.db", eid[:6], cwd=tmp_path)
    assert "approval: pending" in shown.stdout
    bad = accord("approve", "deals.db", eid[:6], "--reject", cwd=tmp_path)
    assert bad.returncode == 2 and "a rejection needs a comment" in bad.stderr
    ok = accord("approve", "deals.db", eid[:6], cwd=tmp_path)
    assert ok.returncode == 0 and f"{eid} (run accord-run): approved" in ok.stdout
    again = accord("approve", "deals.db", eid[:6], cwd=tmp_path)
    assert again.returncode == 2 and "already approved" in again.stderr
    shown = accord("show", "deals.db", eid[:6], cwd=tmp_path)
    assert re.search(r"approval: approved \d{4}-\d\d-\d\d .* \(cli\)", shown.stdout)
    # running it again keeps the decision (same id, same record)
    accord("run", "bargaining/buyer-seller", "--agents", "conceder,conceder", "--save",
           "deals.db", "--require-approval", "--json", cwd=tmp_path)
    shown = json.loads(accord("show", "deals.db", eid, "--json", cwd=tmp_path).stdout)
    assert shown["approval"]["state"] == "approved"


def test_a_played_game_is_not_an_agreement_to_approve(tmp_path):
    proc = accord("run", "games/stag-hunt", "--agents", "rational,rational", "--save",
                  "deals.db", "--require-approval", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["status"] == "completed" and doc["stored"]["approval"] is None
    assert "nothing to approve: the episode ended completed" in " ".join(proc.stderr.split())


def test_run_require_approval_needs_store(tmp_path):
    proc = accord("run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                  "--require-approval", cwd=tmp_path)
    assert proc.returncode == 2 and "--require-approval needs --save STORE" in proc.stderr


def test_approve_an_episode_that_was_not_gated(tmp_path, gated_store):
    proc = accord("run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                  "--save", "plain.db", "--json", cwd=tmp_path)
    eid = json.loads(proc.stdout)["stored"]["id"]
    bad = accord("approve", "plain.db", eid, cwd=tmp_path)
    assert bad.returncode == 2 and "has no agreement awaiting approval" in bad.stderr


def test_report_is_self_contained_and_escaped(tmp_path, xss_store, gated_store, browser):
    out = tmp_path / "report.html"
    proc = accord("report", str(xss_store), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    refs = re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', html, flags=re.I)
    assert refs and all(r.startswith("#") for r in refs), refs  # in-page anchors only
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html
    gated = tmp_path / "gated.html"
    assert accord("report", str(gated_store), "--run", "gated", "-o", str(gated),
                  cwd=tmp_path).returncode == 0
    text = gated.read_text()
    assert text.count('<article class="episode"') == 8
    assert text.count('<svg xmlns="http://www.w3.org/2000/svg" class="plane"') == 8
    assert text.count('<table class="aggregate">') == 1 and "8 awaiting approval" in text
    missing = accord("report", str(gated_store), "--run", "nope", "-o", str(gated),
                     cwd=tmp_path)
    assert missing.returncode == 2 and "no run 'nope'" in missing.stderr
    # opened as the colleague would: from a file, in a browser, offline
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    browser.get(out.as_uri())
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "td.msg")]
    assert XSS in cells and browser.find_elements(By.CSS_SELECTOR, "img") == []


def test_serve_connections_send_without_nagle_delay():
    """The connections ``accord serve`` accepts have TCP_NODELAY, as uvicorn gives its own
    binds. It used to bind a protocol-0 socket, which asyncio leaves with Nagle's algorithm
    on: a response's body waited for the client's delayed ACK of its headers (~40 ms on
    every small page over a keep-alive connection, in curl and Chromium alike)."""
    import asyncio
    import socket

    from accord.cli.serve import _bind

    async def nodelay_of_accepted() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        listener = _bind("127.0.0.1", 0)
        # what uvicorn.Server.run(sockets=[sock]) does with it
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        async with server:
            port = listener.getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            value = await asyncio.wait_for(seen, 30)
            writer.close()
        return value

    assert asyncio.run(nodelay_of_accepted()) != 0
