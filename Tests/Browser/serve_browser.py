#!/usr/bin/python3
"""`cards serve` in a real headless Chromium, driven through the DevTools protocol.

Run by Tests/IntegrationTests/ServeBrowserTests.swift (and `./dev bench` with --bench). It makes a deck in
a temporary folder, starts `cards serve --port 0` and Chromium on 127.0.0.1 (`--remote-debugging-port=0`,
the port read from DevToolsActivePort in a temporary --user-data-dir), sends real touch and mouse input
(Input.dispatchTouchEvent / Input.dispatchMouseEvent) and prints one JSON object per check on stdout:
{"check": name, "ok": bool, "detail": ...}. Everything it starts, it stops by pid; it writes only in its
temporary folder (and the screenshots where --screenshots says).

`--page-dir Sources/DeckServer/Page` answers the page's own files from the working tree (DevTools Fetch
domain), to try a change to the page without rebuilding `cards`, or to measure an older page against the same
server (`--bench --only-bench`). `--seed N` repeats a run's random drags and colours.

Debian's python3-websocket (websocket-client) speaks the websocket; the rest is the standard library.
Why Python and not Swift: FoundationNetworking's URLSessionWebSocketTask depends on the libcurl it was
built with, and the project's Swift code links no Foundation; websocket-client is one Debian package.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import random
import urllib.error
import urllib.parse
import urllib.request

import websocket

RESULTS = []


def check(name, ok, detail=None):
    RESULTS.append({"check": name, "ok": bool(ok), "detail": detail})
    print(json.dumps({"check": name, "ok": bool(ok), "detail": detail}), flush=True)


class Chromium:
    """A headless Chromium of our own, and one page's DevTools session."""

    def __init__(self, root, width, height, extra_arguments=(), profile="chromium-profile"):
        self.profile = os.path.join(root, profile)
        os.makedirs(self.profile)
        binary = shutil.which("chromium") or "/usr/bin/chromium"
        arguments = [binary, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                     "--disable-extensions", "--disable-background-networking", "--disable-sync",
                     "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                     "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height)] + list(extra_arguments)
        arguments.append("about:blank")
        if os.geteuid() == 0:
            arguments.insert(1, "--no-sandbox")
        self.process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if self.process.poll() is not None or time.time() > deadline:
                raise RuntimeError("chromium did not start (exit %s)" % self.process.poll())
            time.sleep(0.05)
        self.port = int(open(port_file).read().split("\n")[0])
        targets = []
        while not any(t.get("type") == "page" for t in targets):
            targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % self.port))
            time.sleep(0.05)
        page = next(t for t in targets if t.get("type") == "page")
        # suppress_origin: Chromium refuses a DevTools websocket that names an Origin it was not told to allow.
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], suppress_origin=True, timeout=30)
        self.next_id = 0
        self.events = []
        self.page_dir = None
        self.call("Page.enable")
        self.call("Runtime.enable")

    def serve_page_from(self, folder):
        """Answers the page's own files from `folder` instead of the server (--page-dir): to try a change to
        the page without rebuilding `cards`, or to measure an older page against the same server."""
        self.page_dir = folder
        self.call("Fetch.enable", patterns=[{"urlPattern": "*", "requestStage": "Request"}])

    def _paused(self, params):
        import base64
        path = urllib.parse.urlsplit(params["request"]["url"]).path
        name = "index.html" if path == "/" else path.lstrip("/")
        types = {"html": "text/html", "css": "text/css", "js": "text/javascript", "svg": "image/svg+xml"}
        local = os.path.join(self.page_dir, name)
        self.next_id += 1
        if "/" not in name and os.path.isfile(local):
            body = base64.b64encode(open(local, "rb").read()).decode()
            kind = types.get(name.rsplit(".", 1)[-1], "text/plain") + "; charset=utf-8"
            message = {"id": self.next_id, "method": "Fetch.fulfillRequest",
                       "params": {"requestId": params["requestId"], "responseCode": 200, "body": body,
                                  "responseHeaders": [{"name": "Content-Type", "value": kind}]}}
        else:
            message = {"id": self.next_id, "method": "Fetch.continueRequest",
                       "params": {"requestId": params["requestId"]}}
        self.socket.send(json.dumps(message))

    def call(self, method, **params):
        self.next_id += 1
        number = self.next_id
        self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            if message.get("method") == "Fetch.requestPaused":
                self._paused(message["params"])
            elif "method" in message:
                self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("page script failed: %s" % json.dumps(result["exceptionDetails"])[:400])
        return result["result"].get("value")

    def wait_for(self, expression, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if self.evaluate(expression):
                    return True
            except RuntimeError as error:
                # Asked while the page navigates (the token exchange's own refresh): its document is gone
                # for a moment; ask the next one.
                if "navigated or closed" not in str(error) and "Cannot find context" not in str(error):
                    raise
            time.sleep(0.05)
        return False

    def dialogs(self):
        return [e for e in self.events if e.get("method") == "Page.javascriptDialogOpening"]

    def screenshot(self, path):
        import base64
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def stop(self):
        try:
            self.socket.close()
        except Exception:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except Exception:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class Scenario:
    def __init__(self, cards, root, sample):
        self.cards_binary = cards
        self.root = root
        self.env = dict(os.environ)
        for key in list(self.env):
            if key.startswith("GIT_") or key.startswith("CARDS_"):
                del self.env[key]
        home = os.path.join(root, "home")
        os.makedirs(home)
        with open(os.path.join(home, ".gitconfig"), "w") as file:
            file.write("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test Person\n\temail = test@example.invalid\n")
        self.env.update(HOME=home, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.path.join(home, ".gitconfig"),
                        CARDS_FSYNC="0", NO_COLOR="1")
        self.deck = os.path.join(root, "deck")
        self.run(["init", self.deck, "--from", sample])
        self.servers = []

    def run(self, arguments, check_status=True):
        result = subprocess.run([self.cards_binary, "--deck", self.deck] + arguments if arguments[0] != "init"
                                else [self.cards_binary] + arguments, env=self.env, capture_output=True, text=True,
                                cwd=self.root)
        if check_status and result.returncode != 0:
            raise RuntimeError("cards %s: %s" % (" ".join(arguments), result.stderr))
        return result

    def serve(self, *extra):
        process = subprocess.Popen([self.cards_binary, "--deck", self.deck, "serve", "--port", "0"] + list(extra),
                                   env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        if not line.startswith("Serving the deck at "):
            raise RuntimeError("cards serve did not start: %r %s" % (line, process.stderr.read()))
        self.servers.append(process)
        return process, line[len("Serving the deck at "):].strip()

    def log(self, count):
        return json.loads(self.run(["log", "-n", str(count), "--json"]).stdout)

    def ids(self):
        return [card["id"] for card in json.loads(self.run(["list", "--json"]).stdout)]

    def stop(self):
        for process in self.servers:
            if process.poll() is None:
                process.kill()
                process.wait()


# ---- gesture.md's vectors, expanded as Tests/SwipeEngineTests/DragStep.swift expands them. ----
def expand(steps):
    out = []
    last = (0.0, 0.0)
    for step in steps:
        kind = step[0]
        if kind == "ramp":
            _, start, end, x, y = step
            count = int((end - start) / 0.01 + 0.5)
            for i in range(1, count + 1):
                f = i / count
                out.append(("move", start + (end - start) * f, last[0] + (x - last[0]) * f, last[1] + (y - last[1]) * f))
            last = (x, y)
        else:
            out.append(step)
            if kind != "up":
                last = (step[2], step[3])
    return out


NAN, INF = float("nan"), float("inf")
VECTORS = {
    "V01": [("down", 0, 0, 0), ("move", .05, 12, 5), ("move", .10, 15, 8), ("up", .12, 15, 8)],
    "V02": [("down", 0, 0, 0), ("ramp", 0, 1, 160, 4), ("up", 1, 160, 4)],
    "V03": [("down", 0, 0, 0), ("ramp", 0, 1, 150, 0), ("up", 1, 150, 0)],
    "V04": [("down", 0, 0, 0), ("ramp", 0, .04, 80, 0), ("up", .04, 80, 0)],
    "V05": [("down", 0, 0, 0), ("ramp", 0, 1, 200, 0), ("ramp", 1, 2, 100, 0), ("up", 2, 100, 0)],
    "V06": [("down", 0, 0, 0), ("ramp", 0, .5, 10, 300), ("up", .5, 10, 300)],
    "V07": [("down", 0, 0, 0), ("ramp", 0, 1, -151, 0), ("up", 1, -151, 0)],
    "V08": [("down", 0, 0, 0), ("move", .1, 40, 0), ("move", .2, NAN, 0), ("move", .3, 90, 0),
            ("move", .4, INF, 5), ("up", .5, 90, 0)],
    "V09": [("down", 0, 0, 0), ("move", .1, -20, 0), ("move", .2, -80, 0), ("move", .3, -75, 0),
            ("move", .4, -76, 0), ("up", .5, -76, 0)],
    "V10": [("down", 0, 0, 0), ("move", .1, -40, 0), ("move", .2, -75, 0), ("up", .3, -75, 0)],
    "V11": [("down", 0, 0, 0), ("ramp", 0, .5, 200, 0), ("up", .5, 200, 0)],
    "V12": [("down", 0, 0, 0), ("move", .01, -2, -10), ("ramp", .01, .31, -80, -300), ("up", .31, -80, -300)],
}
PRESETS = ["classic-stack", "classic-row", "stack", "row"]


def number(value):
    if value != value:
        return "nan"
    if value in (INF, -INF):
        return "inf" if value > 0 else "-inf"
    return repr(float(value))


def geometry_parity(browser, scenario, card_id):
    """The page's armed state (and offset, rotation, progress) at release against `cards swipe --json`."""
    mismatches = []
    compared = 0
    for name, steps in VECTORS.items():
        samples = expand(steps)
        script = " ".join("%s:%s,%s" % (number(t), number(x), number(y)) for _, t, x, y in samples)
        for preset in PRESETS:
            engine = json.loads(scenario.run(["swipe", card_id, "--preset", preset, "--drag", script, "--dry-run",
                                              "--json"]).stdout)
            size = {"classic-stack": (300, 450), "stack": (300, 450)}.get(preset, (360, 450))
            js_steps = "[" + ",".join("[%s,%s,%s,%s]" % (json.dumps(k), js(t), js(x), js(y))
                                      for k, t, x, y in samples) + "]"
            page = browser.evaluate("window.cardsPage.mirror(%s, %d, %d, null, %s)" % (json.dumps(preset), size[0],
                                                                                        size[1], js_steps))
            compared += 1
            same = (page["armed"] == engine["armed"]
                    and abs(page["x"] - engine["offset"][0]) < 0.002 and abs(page["y"] - engine["offset"][1]) < 0.002
                    and abs(page["rotation"] - engine["rotation"]) < 0.002
                    and abs(page["progress"] - engine["progress"]) < 0.002)
            if not same:
                mismatches.append({"vector": name, "preset": preset, "page": page, "engine": engine})
    check("page geometry equals the engine's at release, every vector x preset", not mismatches,
          {"compared": compared, "mismatches": mismatches[:5]})


def js(value):
    if value != value:
        return "NaN"
    if value in (INF, -INF):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(float(value))


# ---- Real input. ----
TOP = ".card:not(.under):not(.under2):not(.flying)"
ROW = ".row:not(.leaving) .content"

def center_of(browser, selector):
    return browser.evaluate("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                            " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % json.dumps(selector))


def drag(browser, kind, start, path, end="release", pause_at=None, on_pause=None, stamped=True):
    """Sends a drag as real input: `path` is [(seconds, dx, dy)] from the press.

    Each event carries its planned time (the protocol's `timestamp`, which becomes the event's timeStamp):
    a dispatch waits for the next frame (~16 ms), so paced by the wall clock alone, a 50 ms fling would
    arrive as a 100 ms drag with a late release. The release comes 4 ms after the last move. Unstamped
    (the benchmark), events take the browser's clock when they arrive, so latencies are real.
    """
    x0, y0 = start
    base = time.time()

    def send(phase, x, y, seconds):
        stamp = base + seconds
        delay = stamp - time.time()
        if delay > 0:
            time.sleep(delay)
        if kind == "touch":
            types = {"down": "touchStart", "move": "touchMove", "up": "touchEnd", "cancel": "touchCancel"}
            points = [] if phase in ("up", "cancel") else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4,
                                                             "force": 1}]
            extra = {"timestamp": stamp} if stamped else {}
            browser.call("Input.dispatchTouchEvent", type=types[phase], touchPoints=points, **extra)
        else:
            types = {"down": "mousePressed", "move": "mouseMoved", "up": "mouseReleased"}
            extra = {"timestamp": stamp} if stamped else {}
            browser.call("Input.dispatchMouseEvent", type=types[phase], x=x, y=y, button="left",
                         buttons=0 if phase == "up" else 1, clickCount=1, **extra)

    if kind == "mouse":
        browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0, button="none", buttons=0)
    send("down", x0, y0, 0)
    last = (x0, y0)
    seconds = 0
    paused = False
    for seconds, dx, dy in path:
        last = (x0 + dx, y0 + dy)
        send("move", last[0], last[1], seconds)
        if pause_at is not None and not paused and seconds >= pause_at:
            paused = True
            time.sleep(0.15)
            on_pause()
            # The rest of the drag starts after the pause; samples older than 100 ms do not count at release.
            base = time.time() - seconds
    send("cancel" if end == "cancel" else "up", last[0], last[1], seconds + 0.004)


def ramp(duration, dx, dy, start=(0, 0), at=0.0, step=0.008):
    count = max(1, int(duration / step + 0.5))
    return [(at + duration * i / count, start[0] + (dx - start[0]) * i / count, start[1] + (dy - start[1]) * i / count)
            for i in range(1, count + 1)]


def released(browser, before):
    """Waits for the page's answer to a release; returns lastRelease."""
    browser.wait_for("(() => { const r = window.cardsPage.lastRelease(); return r && r !== %s && r.engine"
                     " && !window.cardsPage.busy(); })()" % ("null" if before is None else "window.__before"), 10)
    return browser.evaluate("window.cardsPage.lastRelease()")


def gesture(browser, scenario, name, view, kind, path, expected, end="release", pause_at=None, on_pause=None,
            selector=None):
    browser.evaluate("window.__before = window.cardsPage.lastRelease()")
    ids = browser.evaluate("window.cardsPage.cards()")
    target = selector or (TOP if view == "stack" else ROW)
    card_id = browser.evaluate("document.querySelector(%s).closest('[data-id]').dataset.id" % json.dumps(target))
    head = scenario.log(1)[0]["commit"]
    drag(browser, kind, center_of(browser, target), path, end, pause_at, on_pause)
    browser.wait_for("(() => { const r = window.cardsPage.lastRelease(); return r && r !== window.__before"
                     " && !window.cardsPage.busy(); })()", 10)
    result = browser.evaluate("window.cardsPage.lastRelease()") or {}
    engine = result.get("engine") or {}
    decision = [engine.get("decision"), engine.get("direction"), engine.get("reason")]
    deleted = bool(engine.get("deleted"))
    latest = scenario.log(1)[0]
    if deleted:
        gesture_trailer = "swipe left, %s, preset %s" % (engine.get("reason"), result.get("preset"))
        history_ok = (latest["commit"] != head and latest.get("op") == "delete" and card_id in latest.get("cards", [])
                      and latest.get("trailers", {}).get("Gesture") == [gesture_trailer])
    else:
        history_ok = latest["commit"] == head
    ok = (decision in expected and result.get("pageArmed") == engine.get("armed") and history_ok
          and (card_id not in scenario.ids()) == deleted)
    check("%s (%s, %s view)" % (name, kind, view), ok,
          {"decision": decision, "expected": expected, "pageArmed": result.get("pageArmed"),
           "engineArmed": engine.get("armed"), "deleted": deleted, "samples": result.get("samples"),
           "historyOk": history_ok, "gestureTrailer": latest.get("trailers", {}).get("Gesture"),
           "trace": result.get("trace") if not ok else None})
    return result


def http(url, method="GET", headers=None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def security(scenario, url, card_id):
    # The printed address carries the token (loopback too): scripts send it as X-Cards-Token.
    base = url.split("?", 1)[0].rstrip("/")
    port = base.rsplit(":", 1)[1]
    token = {"X-Cards-Token": url.split("token=", 1)[1]} if "token=" in url else {}
    body = json.dumps({"id": card_id, "preset": "stack", "direction": "left"}).encode()
    before = scenario.ids()
    status, _ = http(base + "/api/swipe", "POST", {"Origin": "http://evil.example", "Content-Type": "application/json",
                                                   **token}, body)
    check("a delete from another Origin is refused", status == 403 and scenario.ids() == before, status)
    status, _ = http(base + "/api/swipe", "POST", {"Content-Type": "text/plain", "Origin": base, **token}, body)
    check("a form-style write (not JSON) is refused", status == 415 and scenario.ids() == before, status)
    status, _ = http(base + "/api/deck", headers={"Host": "rebind.example:" + port})
    check("a wrong Host (DNS rebinding) is refused", status == 421, status)
    status, _ = http(base + "/api/swipe", "POST", {"Origin": base, "Content-Type": "application/json"},
                     b"[" * 300_000)
    check("a body over the limit is refused", status == 413 and scenario.ids() == before, status)
    # A listen address other than loopback: the token is required.
    process, token_url = scenario.serve("--listen", "0.0.0.0")
    token = token_url.split("token=", 1)[1]
    local = "http://127.0.0.1:%s" % token_url.split("]:" if "]" in token_url else ":", 2)[-1].split("/")[0]
    status_without, _ = http(local + "/api/deck")
    status_wrong, _ = http(local + "/api/deck?token=" + "0" * len(token))
    status_with, _ = http(local + "/api/deck?token=" + token)
    check("a non-loopback listen refuses requests without its token", (status_without, status_wrong, status_with) ==
          (401, 401, 200), [status_without, status_wrong, status_with])
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


# ---- Issue 34: the page on a phone and a laptop. ----
PHONE, LAPTOP = "phone", "laptop"


def viewport(browser, kind, width=None):
    """A 390×844 touch phone or a 1280×800 mouse laptop; the page is reloaded so media queries follow."""
    if kind == PHONE:
        browser.call("Emulation.setDeviceMetricsOverride", width=width or 390, height=844, deviceScaleFactor=2,
                     mobile=True)
        browser.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    else:
        browser.call("Emulation.setDeviceMetricsOverride", width=width or 1280, height=800, deviceScaleFactor=1,
                     mobile=False)
        browser.call("Emulation.setTouchEmulationEnabled", enabled=False)
    reload(browser)


def scheme(browser, name):
    browser.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": name}])


def reload(browser):
    browser.evaluate("window.cardsPage && (window.cardsPage.ready = false)")
    browser.call("Page.reload", ignoreCache=True)
    time.sleep(0.2)
    return browser.wait_for("window.cardsPage && window.cardsPage.ready === true", 20)


def top_id(browser):
    return browser.evaluate("(() => { const c = document.querySelector(%s); return c ? c.dataset.id : null; })()"
                            % json.dumps(TOP))


def ten_flings(browser, scenario, kind, stamped=True):
    """Ten flings as fast as a thumb: each starts as soon as the previous one is up. Every one must delete its
    card, one commit each, in release order. Returns (ids, seconds of flinging, seconds to the last commit)."""
    browser.evaluate("document.getElementById('show-stack').click()")
    browser.wait_for("!window.cardsPage.busy()", 20)
    head = scenario.log(1)[0]["commit"]
    ids = []
    started = time.time()
    for _ in range(10):
        ids.append(top_id(browser))
        drag(browser, kind, center_of(browser, TOP), ramp(0.06, -150, 5, step=0.015), stamped=stamped)
        time.sleep(0.02)
    flinging = time.time() - started
    settled = browser.wait_for("!window.cardsPage.busy()", 40)
    committed = time.time() - started
    log = scenario.log(30)
    since = []
    for entry in log:
        if entry["commit"] == head:
            break
        since.append(entry)
    deletes = [entry for entry in since if entry.get("op") == "delete"]
    order = [entry.get("cards", [None])[0] for entry in reversed(deletes)]
    remaining = set(scenario.ids())
    ok = (settled and None not in ids and len(set(ids)) == 10 and order == ids and len(since) == 10
          and not remaining & set(ids))
    return ok, {"flingSeconds": round(flinging, 3), "lastCommitSeconds": round(committed, 3),
                "deletedInOrder": order == ids, "commits": len(since), "deleted": len(deletes),
                "cardsFlung": len(set(i for i in ids if i)), "settled": settled}


def link_drag_and_tap(browser, scenario, kind, base):
    """A drag that starts on the card's link deletes the card; a tap on the link opens it (a new tab of the
    loopback server's own licence file: nothing leaves 127.0.0.1)."""
    browser.evaluate("document.getElementById('show-stack').click()")
    browser.wait_for("!window.cardsPage.busy()", 20)
    # A native drag of the link (Chromium's own, which took the mouse drag before) is reported, not done.
    browser.call("Input.setInterceptDrags", enabled=True)
    browser.events.clear()
    gesture(browser, scenario, "a drag that starts on the card's link deletes the card", "stack", kind,
            ramp(0.5, -200, 6), [["commit", "left", "distance"]], selector=TOP + " a.link")
    native = [e for e in browser.events if e.get("method") == "Input.dragIntercepted"]
    browser.call("Input.setInterceptDrags", enabled=False)
    check("a drag on a link never starts the browser's own drag of the link (%s)" % kind, not native, len(native))
    browser.wait_for("!window.cardsPage.busy()", 20)
    card = top_id(browser)
    target_url = base.rstrip("/") + "/icons-LICENSE.txt?tap=" + kind
    scenario.run(["edit", card, "--url", target_url])
    shown = browser.wait_for("(() => { const a = document.querySelector(%s); return a && a.href === %s; })()"
                             % (json.dumps(TOP + " a.link"), json.dumps(target_url)), 10)
    browser.call("Target.setDiscoverTargets", discover=True)
    browser.events.clear()
    head = scenario.log(1)[0]["commit"]
    x, y = center_of(browser, TOP + " a.link")
    if kind == "touch":
        # A finger's tap: down for 60 ms, its events stamped on the same clock as the drags before it.
        browser.call("Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": x, "y": y, "id": 1}],
                     timestamp=time.time())
        time.sleep(0.06)
        browser.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[], timestamp=time.time())
    else:
        browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="none", buttons=0)
        browser.call("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", buttons=1, clickCount=1)
        browser.call("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", buttons=0,
                     clickCount=1)
    opened = {}
    deadline = time.time() + 3
    while time.time() < deadline:
        browser.evaluate("1")
        for event in browser.events:
            info = event.get("params", {}).get("targetInfo", {})
            if event.get("method") in ("Target.targetCreated", "Target.targetInfoChanged") \
                    and info.get("url", "").startswith(target_url):
                opened[info["targetId"]] = info
        time.sleep(0.05)
    for target in opened:
        browser.call("Target.closeTarget", targetId=target)
    browser.call("Target.setDiscoverTargets", discover=False)
    still = card in scenario.ids() and scenario.log(1)[0]["commit"] == head and top_id(browser) == card
    check("a tap on the card's link opens it once and deletes nothing (%s)" % kind, shown and len(opened) == 1
          and still, {"opened": [info.get("url") for info in opened.values()], "cardStays": still, "shown": shown,
           "events": [e.get("method") for e in browser.events][:10]})


def disagreement(browser, scenario, kind):
    """The page predicts a commit the server's engine does not make: the card flies, then comes back, with why."""
    browser.wait_for("!window.cardsPage.busy()", 20)
    card = top_id(browser)
    head = scenario.log(1)[0]["commit"]
    browser.evaluate("window.cardsPage.overridePrediction(() => ({decision: 'commit', direction: 'left',"
                     " reason: 'distance', velocity: [0, 0]}))")
    drag(browser, kind, center_of(browser, TOP), ramp(0.3, -40, 0))
    flew = browser.wait_for("document.querySelector('.card.flying') !== null || window.cardsPage.pending() > 0", 2)
    browser.evaluate("window.cardsPage.overridePrediction(null)")
    browser.wait_for("!window.cardsPage.busy()", 20)
    status = browser.evaluate("document.getElementById('status-text').textContent")
    back = top_id(browser) == card and card in scenario.ids() and scenario.log(1)[0]["commit"] == head
    check("a prediction the server's engine does not share returns the card, saying why (%s)" % kind,
          back and "came back" in status, {"status": status, "back": back, "flew": flew})


def prediction_parity(browser, scenario, card_id, seed, count=300):
    """The page's prediction (engine.js) against the server's engine (POST /api/swipe with dryRun) on every
    vector × every page preset and on `count` random drags from `seed`: decision, direction and reason equal."""
    cases = []
    for name, steps in VECTORS.items():
        samples = [[t, x, y] for _, t, x, y in expand(steps) if t == t and abs(x) != INF and x == x
                   and abs(y) != INF]
        for preset in PRESETS + ["list"]:
            size = (300, 450) if "stack" in preset else (360, 450)
            cases.append({"label": name, "preset": preset, "width": size[0], "height": size[1], "grab": None,
                          "samples": samples, "cancel": None})
    # The fling rule's edges: exactly the minimum travel (commits) and just short of it, fast.
    for travel, label in ((32, "fling of exactly 32 points"), (31.5, "fling of 31.5 points"),
                          (120, "exactly 0.4 x 300"), (180, "exactly half of 360")):
        for preset in ("stack", "row", "list"):
            samples = [[0, 0, 0]] + [[0.005 * i, -travel * i / 6, 0] for i in range(1, 7)]
            cases.append({"label": label, "preset": preset, "width": 300 if preset == "stack" else 360,
                          "height": 450, "grab": None, "samples": samples, "cancel": None})
            slow = [[0, 0, 0]] + [[0.05 * i, -travel * i / 10, 0] for i in range(1, 11)] + [[0.6, -travel, 0]]
            cases.append({"label": label + ", slow", "preset": preset, "width": 300 if preset == "stack" else 360,
                          "height": 450, "grab": None, "samples": slow, "cancel": None})
    rng = random.Random(seed)
    for index in range(count):
        t = rng.uniform(0, 1000)
        x = y = 0.0
        samples = [[t, 0, 0]]
        speed = rng.choice([50, 300, 900, 2500])
        for _ in range(rng.randint(0, 50)):
            t += rng.choice([0, 0.001, 0.004, 0.008, 0.016, 0.016, 0.03, 0.045, 0.12])
            if rng.random() < 0.1:
                speed = -speed * rng.uniform(0.5, 2)
            x += speed * rng.uniform(0, 0.02) * rng.choice([1, 1, 1, -1])
            y += rng.gauss(0, 4) * (5 if rng.random() < 0.1 else 1)
            samples.append([round(t, 6), round(x, 3), round(y, 3)])
        if rng.random() < 0.05:
            samples.append([samples[-1][0] - 0.01, x, y])
        cancel = samples[-1][0] + 0.01 if rng.random() < 0.05 else None
        preset = rng.choice(PRESETS + ["list"])
        width, height = rng.choice([(300, 450), (360, 450), (358, 120), (250, 380), (1200, 140)])
        grab = [rng.uniform(0, width), rng.uniform(0, height)] if rng.random() < 0.8 else None
        cases.append({"label": "random %d" % index, "preset": preset, "width": width, "height": height, "grab": grab,
                      "samples": samples, "cancel": cancel})
    script = """(async (cases, id) => {
      const out = [];
      for (const c of cases) {
        const page = window.cardsPage.predict(c.preset, c.width, c.height, c.grab, c.samples, c.cancel);
        const body = {id, preset: c.preset, width: c.width, height: c.height, samples: c.samples, cancel: c.cancel,
          dryRun: true};
        if (c.grab) body.grab = c.grab;
        const response = await fetch('api/swipe' + location.search, {method: 'POST', credentials: 'same-origin',
          headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
        const engine = await response.json();
        if (engine.decision !== page.decision || engine.direction !== page.direction || engine.reason !== page.reason
            || engine.deleted) out.push({label: c.label, preset: c.preset, page, engine: {decision: engine.decision,
              direction: engine.direction, reason: engine.reason, error: engine.error}});
      }
      return out;
    })(%s, %s)""" % (json.dumps(cases), json.dumps(card_id))
    mismatches = browser.evaluate(script)
    still = card_id in scenario.ids()
    check("the page's prediction equals the server's engine: every vector x preset and %d random drags (seed %d)"
          % (count, seed), not mismatches and still,
          {"cases": len(cases), "seed": seed, "mismatches": mismatches[:5], "cardKept": still})


CONTRAST_SCRIPT = """(() => {
  const parse = (text) => {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  // The first opaque background from the element up (the page's own background at the top).
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a >= 0.99) return c;
    }
    return parse(getComputedStyle(document.body).backgroundColor);
  };
  const failures = [];
  let lowest = 99, checked = 0;
  const measure = (el, what) => {
    if (!el || !el.getClientRects().length && !el.closest('#contrast-lab')) return;
    const fg = parse(getComputedStyle(el).color), bg = behind(el);
    if (!fg || !bg) return;
    const r = ratio(fg, bg);
    checked++;
    lowest = Math.min(lowest, r);
    if (r < 4.5) failures.push({what, ratio: Math.round(r * 100) / 100, fg: getComputedStyle(el).color,
      bg: 'rgb(' + bg.r + ',' + bg.g + ',' + bg.b + ')'});
  };
  const lab = document.createElement('div');
  lab.id = 'contrast-lab';
  lab.style.cssText = 'position:fixed;left:0;top:0;width:300px;height:450px;opacity:1;z-index:-1';
  document.body.append(lab);
  const named = ['red', 'green', 'blue', 'yellow', 'purple', 'orange', 'pink', 'teal', 'indigo', 'brown', 'gray',
    'black', 'white'];
  const hex = [];
  for (let r = 0; r < 256; r += 51) for (let g = 0; g < 256; g += 51) for (let b = 0; b < 256; b += 51)
    hex.push('#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join(''));
  let seed = %d;
  const next = () => { seed = (seed * 1103515245 + 12345) %% 2147483648; return seed; };
  for (let i = 0; i < 300; i++) hex.push('#' + (next() %% 16777216).toString(16).padStart(6, '0'));
  hex.push('#767676', '#777777', '#7a7a7a', '#808080', '#1c1c1e', '#000000', '#ffffff');
  for (const color of named.concat(hex)) {
    const card = {id: 'lab', title: 'Ada', platformName: 'GitHub', platformIcon: 'github',
      indexURL: 'https://example.com/ada', color};
    const li = window.cardsPage.renderCard(card, 'stack');
    li.dataset.armed = 'left';
    lab.append(li);
    for (const el of li.querySelectorAll('.title, .platform, .link, .stamp.delete')) measure(el, color + ' card ' + el.className);
    li.dataset.armed = 'right';
    measure(li.querySelector('.stamp.keep'), color + ' KEEP stamp');
    li.remove();
    const row = document.createElement('li');
    row.className = 'row';
    const content = window.cardsPage.renderCard(card, 'row');
    row.append(content);
    lab.append(row);
    const glyph = content.querySelector('.glyph-tile');
    measure(glyph, color + ' row icon tile');
    for (const el of content.querySelectorAll('.title, .platform, .link')) measure(el, color + ' row ' + el.className);
    row.dataset.armed = 'left';
    for (const el of content.querySelectorAll('.title, .platform, .link')) measure(el, color + ' armed row ' + el.className);
    row.remove();
  }
  lab.remove();
  // The page's own controls and words.
  for (const el of document.querySelectorAll('button, select, .position, #status-text, .preset-choice, h1, kbd'))
    if (el.getClientRects().length) measure(el, (el.id || el.className || el.tagName) + ' ' + (el.textContent || '').trim().slice(0, 20));
  return {checked, lowest: Math.round(lowest * 100) / 100, failures: failures.slice(0, 8), failed: failures.length,
    colours: named.length + hex.length};
})()"""


def contrast(browser, seed):
    for name in ("light", "dark"):
        scheme(browser, name)
        time.sleep(0.1)
        for view in ("stack", "list"):
            browser.evaluate("document.getElementById('show-%s').click()" % view)
            result = browser.evaluate(CONTRAST_SCRIPT % seed)
            check("text and controls at least 4.5:1 on every card colour, %s mode, %s view (seed %d)"
                  % (name, view, seed), result["failed"] == 0 and result["checked"] > 1000, result)
    scheme(browser, "light")
    browser.evaluate("document.getElementById('show-stack').click()")


def press(browser, key, code, number, text=None):
    extra = {"text": text} if text else {}
    browser.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=number, **extra)
    browser.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=number)


def focused(browser):
    return browser.evaluate("""(() => { const e = document.activeElement; if (!e || e === document.body) return null;
      return {tag: e.tagName.toLowerCase(), id: e.id, label: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 40),
        visible: e.matches(':focus-visible'), underCard: !!e.closest('.under, .under2'),
        inTop: !!e.closest(%s), inRow: !!e.closest('.row')}; })()""" % json.dumps(TOP))


def keyboard_only(browser, scenario):
    """Tab order, Enter and Space on the buttons, the announcements, a row's Delete by Enter."""
    browser.evaluate("document.getElementById('show-stack').click()")
    reload(browser)
    browser.wait_for("!window.cardsPage.busy()", 20)
    browser.evaluate("document.activeElement && document.activeElement.blur()")
    stops = []
    # Header (Stack, List, Undo when the deck has something to undo, Phone, the filter, Add), the stack, the
    # top card's link (and its Edit button), Delete, Keep, the gesture choice.
    for _ in range(12):
        press(browser, "Tab", "Tab", 9)
        stops.append(focused(browser))
    names = [(s or {}).get("id") or (s or {}).get("tag") for s in stops]
    links = [index for index, s in enumerate(stops) if s and s["tag"] == "a" and s["inTop"]]
    ok = ("stack" in names and "delete-top" in names and "keep-top" in names and len(links) == 1
          and not any(s and s["underCard"] for s in stops) and all(s and s["visible"] for s in stops)
          and names.index("stack") < links[0] < names.index("delete-top"))
    check("keyboard: Tab reaches the stack, the top card's link (no card under it) and the buttons, focus shown",
          ok, {"stops": names})
    top = browser.evaluate("window.cardsPage.cards().length && document.querySelector(%s).getAttribute('aria-label')"
                           % json.dumps(TOP))
    label = browser.evaluate("document.getElementById('delete-top').getAttribute('aria-label')")
    check("the stack's buttons name the card (\"Delete Ada on GitHub\")", label.startswith("Delete ")
          and top and label[len("Delete "):] in top, {"button": label, "card": top})
    # Arrows on the stack: arming is announced in words; Escape puts the card back.
    browser.evaluate("document.getElementById('stack').focus()")
    for _ in range(6):
        press(browser, "ArrowLeft", "ArrowLeft", 37)
    time.sleep(0.1)
    armed = browser.evaluate("document.getElementById('announce').textContent")
    press(browser, "Escape", "Escape", 27)
    browser.wait_for("!window.cardsPage.busy()", 20)
    check("keyboard: arming is announced in words", armed.startswith("Release to delete "), armed)
    # Enter on Delete, Space on Keep.
    for key, button, op in (("Enter", "delete-top", "Deleted "), (" ", "keep-top", "Kept ")):
        card = top_id(browser)
        head = scenario.log(1)[0]["commit"]
        browser.evaluate("document.getElementById(%s).focus()" % json.dumps(button))
        if key == "Enter":
            press(browser, "Enter", "Enter", 13, "\r")
        else:
            press(browser, " ", "Space", 32, " ")
        browser.wait_for("!window.cardsPage.busy() && document.getElementById('status-text').textContent.startsWith(%s)"
                         % json.dumps(op), 20)
        status = browser.evaluate("document.getElementById('status-text').textContent")
        browser.wait_for("document.getElementById('announce').textContent === %s" % json.dumps(status), 2)
        spoken = browser.evaluate("document.getElementById('announce').textContent")
        deleted = card not in scenario.ids()
        moved = scenario.log(1)[0]["commit"] != head
        ok = status.startswith(op) and spoken == status and top_id(browser) != card and deleted == (key == "Enter") \
            and moved == (key == "Enter")
        check("keyboard: %s on %s works and says \"%s…\"" % ("Enter" if key == "Enter" else "Space", button, op.strip()),
              ok, {"status": status, "announced": spoken, "deleted": deleted})
    # The list: Enter on a row's Delete button (it did nothing when the row took every Enter).
    browser.evaluate("document.getElementById('show-list').click()")
    browser.wait_for("!window.cardsPage.busy()", 20)
    card = browser.evaluate("document.querySelector(%s).closest('.row').dataset.id" % json.dumps(ROW))
    browser.evaluate("document.querySelector(%s + ' .delete-button').focus()" % json.dumps(ROW))
    press(browser, "Enter", "Enter", 13, "\r")
    browser.wait_for("!window.cardsPage.busy()", 20)
    check("keyboard: Enter on a row's Delete button deletes that card", card not in scenario.ids(), card)
    browser.evaluate("document.getElementById('show-stack').click()")


def narrow_header(browser):
    """At 320 px the deck name keeps whole words on a line of its own, never a letter a line."""
    viewport(browser, PHONE, width=320)
    width = browser.evaluate("document.getElementById('deck-name').getBoundingClientRect().width")
    lines = browser.evaluate("(() => { const h = document.getElementById('deck-name');"
                             " return Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight)); })()")
    check("at 320 px the deck name is not a letter a line", width >= 200 and lines <= 2, {"width": width, "lines": lines})


def focus_after_pointer(browser):
    """After a swipe with the mouse no focus ring is drawn (it looked like a second card)."""
    ring = browser.evaluate("document.querySelector(':focus-visible') ? document.querySelector(':focus-visible').outerHTML.slice(0, 60) : null")
    check("no focus ring after a pointer swipe", ring is None, ring)


def row_from_link(browser, scenario):
    """The list too: a drag that starts on a row's link slides the row and deletes it."""
    browser.evaluate("document.getElementById('show-list').click(); window.scrollTo(0, 0)")
    browser.wait_for("!window.cardsPage.busy()", 20)
    gesture(browser, scenario, "a drag that starts on a row's link deletes the row", "list", "mouse",
            ramp(0.4, -140, 2), [["commit", "left", "distance"]], selector=ROW + " a.link")
    browser.evaluate("document.getElementById('show-stack').click()")


def preset_choice(browser, scenario):
    """Other presets are a choice away: the seed's stack (150 points) on the stack, half the row on the list."""
    def choose(select, value):
        browser.evaluate("(() => { const s = document.getElementById(%s); s.value = %s;"
                         " s.dispatchEvent(new Event('change')); })()" % (json.dumps(select), json.dumps(value)))
    browser.evaluate("document.getElementById('show-stack').click()")
    choose("stack-preset", "classic-stack")
    gesture(browser, scenario, "the seed's stack, chosen, deletes past 150 points", "stack", "mouse",
            ramp(0.5, -160, 0), [["commit", "left", "distance"]])
    choose("stack-preset", "stack")
    browser.evaluate("document.getElementById('show-list').click(); window.scrollTo(0, 0)")
    choose("list-preset", "row")
    gesture(browser, scenario, "half the row, chosen, keeps a row slid 110 points", "list", "mouse",
            ramp(0.6, -110, 0) + ramp(0.1, -110, 0, start=(-110, 0), at=0.6), [["snapBack", None, "belowThreshold"]])
    choose("list-preset", "list")
    browser.evaluate("document.getElementById('show-stack').click()")


def screenshots(browser, shoot, device, name):
    """The stack mid-drag past its line and the list with a row slid over its delete area, each drag then
    cancelled (nothing deleted): docs/serve-<device>-<view>-<scheme>.png."""
    kind = "touch" if device == PHONE else "mouse"
    browser.evaluate("document.getElementById('show-stack').click(); window.scrollTo(0, 0)")
    browser.wait_for("!window.cardsPage.busy()", 20)
    time.sleep(0.3)
    # To the right (KEEP), so the title stays on a phone's screen. A touch ends in a cancel; the mouse goes
    # back where it started before letting go.
    back = [] if kind == "touch" else ramp(0.5, 0, 0, start=(150, 14), at=0.5)
    drag(browser, kind, center_of(browser, TOP), ramp(0.5, 150, 14) + back, end="cancel" if kind == "touch" else "release",
         pause_at=0.45, on_pause=lambda: shoot("serve-%s-stack-%s.png" % (device, name)))
    browser.evaluate("document.getElementById('show-list').click(); window.scrollTo(0, 0)")
    browser.wait_for("!window.cardsPage.busy()", 20)
    time.sleep(0.3)
    back = [] if kind == "touch" else ramp(0.5, 0, 0, start=(-95, 2), at=0.4)
    drag(browser, kind, center_of(browser, ".row:nth-child(2) .content"), ramp(0.4, -95, 2) + back,
         end="cancel" if kind == "touch" else "release", pause_at=0.35,
         on_pause=lambda: shoot("serve-%s-list-%s.png" % (device, name)))
    browser.wait_for("!window.cardsPage.busy()", 20)
    browser.evaluate("document.getElementById('show-stack').click()")


def bench(browser, scenario):
    """Latencies from input on the browser's own clock: drags sent as they come, without timestamps, by
    touch on the phone and by mouse on the laptop; then ten flings each way."""
    figures = {}

    def median(values):
        return statistics.median(values) if values else None

    def p95(values):
        return sorted(values)[max(0, int(len(values) * 0.95) - 1)] if values else None

    for index in range(32):
        scenario.run(["add", "--title", "Bench %d" % index, "--url", "https://example.com/b%d" % index,
                      "--color", ["teal", "indigo", "pink", "black"][index % 4]])
    for device, kind in ((PHONE, "touch"), (LAPTOP, "mouse")):
        viewport(browser, device)
        browser.evaluate("for (const list of Object.values(window.cardsPage.stats)) list.length = 0")
        for _ in range(5):
            browser.wait_for("!window.cardsPage.busy()", 20)
            browser.evaluate("window.__before = window.cardsPage.lastRelease()")
            drag(browser, kind, center_of(browser, TOP), ramp(0.5, -200, 0), stamped=False)
            browser.wait_for("window.cardsPage.lastRelease() !== window.__before && !window.cardsPage.busy()", 20)
        stats = browser.evaluate("window.cardsPage.stats")
        frames = stats["frames"]
        releases = stats["releases"]
        answers = [r["releaseToAnswer"] for r in releases]
        # The page before issue 34 started the flight only on the server's answer: that is its release → fly-off.
        fly = stats.get("flyStarts") or answers
        figures[kind] = {
            "pointerToFrameMedianMs": median(frames), "pointerToFrameP95Ms": p95(frames), "frames": len(frames),
            "releaseToFlyMedianMs": median(fly), "releaseToFlyMaxMs": max(fly) if fly else None,
            "flyMeasured": "flyStarts" in stats,
            "releaseHandlerMedianMs": median(stats.get("releaseWork") or []),
            "releaseToCommitMedianMs": median(answers),
            "storeCommitMedianMs": median([r["commitSeconds"] * 1000 for r in releases if r.get("commitSeconds")]),
            "releases": len(releases)}
        ok, detail = ten_flings(browser, scenario, kind, stamped=False)
        figures[kind]["tenFlings"] = detail
    viewport(browser, PHONE)
    one = []
    for _ in range(10):
        card = scenario.run(["add", "--title", "Bench", "--url", "https://example.com/b"]).stdout.strip()
        begin = time.perf_counter()
        scenario.run(["swipe", card, "--left"])
        one.append((time.perf_counter() - begin) * 1000)
    mouse = figures["mouse"]
    figures.update({
        "pointerToFrameMedianMs": mouse["pointerToFrameMedianMs"], "pointerToFrameP95Ms": mouse["pointerToFrameP95Ms"],
        "frames": mouse["frames"], "releaseToCommitMedianMs": mouse["releaseToCommitMedianMs"],
        "storeCommitMedianMs": mouse["storeCommitMedianMs"], "releases": mouse["releases"],
        "swipeLeftProcessMedianMs": statistics.median(one), "cards": len(scenario.ids())})
    return figures


def interrupt(process, browser):
    """Ctrl-C with the page open (its event stream held): the server ends the stream and exits 0."""
    start = time.perf_counter()
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        code = None
    said = process.stdout.read()
    check("Ctrl-C stops the server cleanly with a page open", code == 0 and "Stopped serving" in said,
          {"exit": code, "seconds": round(time.perf_counter() - start, 3), "said": said.strip()[-80:]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--screenshots", help="folder for the PNGs (docs/ in the README)")
    parser.add_argument("--bench", action="store_true", help="print the figures for ./dev bench")
    parser.add_argument("--only-bench", action="store_true", help="with --bench: the figures without the checks")
    parser.add_argument("--page-dir", help="serve the page's files from this folder (a page not yet built in)")
    parser.add_argument("--seed", type=int, help="the random drags' and colours' seed (printed either way)")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else random.randrange(1 << 30)
    print("seed %d" % seed, file=sys.stderr)
    root = tempfile.mkdtemp(prefix="cards-serve-browser-")
    scenario = browser = None
    try:
        scenario = Scenario(options.cards, root, options.sample)
        hostile = scenario.run(["add", "--title", "<img src=x onerror=alert(1)>", "--url", "https://example.com/?q=<script>alert(1)</script>",
                                "--platform", "<b>bold</b>", "--color", "red"]).stdout.strip()
        for index in range(6):
            scenario.run(["add", "--title", "Extra card %d" % (index + 1), "--url", "https://example.com/%d" % index,
                          "--platform", "Example", "--color", ["blue", "green", "orange"][index % 3]])
        # Enough cards for two rounds of ten flings and the rest, in every colour the deck names.
        named = ["red", "green", "blue", "yellow", "purple", "orange", "pink", "teal", "indigo", "brown", "gray",
                 "black", "white", "#0a84ff", "#777777"]
        platforms = [("GitHub", "github"), ("Mastodon", "mastodon"), ("Telegram", "telegram"), ("Bluesky", "bluesky")]
        for index in range(40):
            platform = platforms[index % len(platforms)]
            scenario.run(["add", "--title", "Fling %d" % (index + 1), "--url", "https://example.com/f%d" % index,
                          "--platform", platform[0], "--icon", platform[1], "--color", named[index % len(named)]])
        process, url = scenario.serve()
        browser = Chromium(root, 1280, 900)
        if options.page_dir:
            browser.serve_page_from(options.page_dir)
        browser.call("Page.navigate", url=url)
        check("the page loads", browser.wait_for("window.cardsPage && window.cardsPage.ready === true", 20))
        viewport(browser, PHONE)
        shots = options.screenshots
        def shoot(name):
            if shots:
                os.makedirs(shots, exist_ok=True)
                browser.screenshot(os.path.join(shots, name))
        if not options.only_bench:
            ids = scenario.ids()
            geometry_parity(browser, scenario, ids[0])
            prediction_parity(browser, scenario, ids[0], seed)

            # Hostile text: shown as text, never markup; a javascript: link never clickable.
            browser.evaluate("document.getElementById('show-list').click()")
            text_ok = browser.evaluate("document.body.innerText.includes('<img src=x onerror=alert(1)>')"
                                       " && document.body.innerText.includes('<b>bold</b>')")
            no_markup = browser.evaluate("document.querySelectorAll('img, b').length === 0")
            no_js_link = browser.evaluate("[...document.querySelectorAll('a')].every(a => /^(https?|mailto):/.test(a.href))"
                                          " && window.cardsPage.linkKind('javascript:alert(1)') === 'span'"
                                          " && window.cardsPage.linkKind('JavaScript:alert(1)') === 'span'"
                                          " && window.cardsPage.linkKind('data:text/html,x') === 'span'"
                                          " && window.cardsPage.linkKind('https://example.com') === 'a'")
            check("a card titled <img src=x onerror=alert(1)> is shown as text, its javascript: link not clickable",
                  text_ok and no_markup and no_js_link and not browser.dialogs(),
                  {"text": text_ok, "noMarkup": no_markup, "linksSafe": no_js_link, "dialogs": len(browser.dialogs())})
            browser.evaluate("document.getElementById('show-stack').click()")


            distance = [["commit", "left", "distance"]]
            gesture(browser, scenario, "a slow drag past the line deletes", "stack", "mouse", ramp(1.0, -200, 12),
                    distance)
            gesture(browser, scenario, "a fling deletes", "stack", "touch", ramp(0.05, -90, 4),
                    [["commit", "left", "fling"]])
            gesture(browser, scenario, "a short fling snaps back", "stack", "touch", ramp(0.024, -30, 0),
                    [["snapBack", None, "flingTooShort"]])
            gesture(browser, scenario, "a reverse flick snaps back although armed", "stack", "mouse",
                    ramp(0.6, -200, 0) + ramp(0.04, -140, 0, start=(-200, 0), at=0.6),
                    [["snapBack", None, "reverseFling"]])
            gesture(browser, scenario, "a cancel never deletes", "stack", "touch", ramp(0.5, -200, 0),
                    [["snapBack", None, "cancelled"]], end="cancel")
            gesture(browser, scenario, "a drag to the right keeps", "stack", "touch", ramp(0.5, 200, 0),
                    [["commit", "right", "distance"]])

            # The keyboard: ← six times then Enter (a drag of 180 points), then u brings the card back.
            # Tried up to three times, each once the page is idle and the arrows have made a drag: a live
            # reload after the previous gesture can re-render the stack between the keys (CI saw the Enter
            # release nothing once); a keyboard that never works fails all three.
            before = scenario.ids()
            for _ in range(3):
                browser.wait_for("!window.cardsPage.busy()", 20)
                browser.evaluate("window.__before = window.cardsPage.lastRelease(); document.getElementById('stack').focus()")
                for _ in range(6):
                    browser.call("Input.dispatchKeyEvent", type="keyDown", key="ArrowLeft", code="ArrowLeft",
                                 windowsVirtualKeyCode=37)
                    browser.call("Input.dispatchKeyEvent", type="keyUp", key="ArrowLeft", code="ArrowLeft",
                                 windowsVirtualKeyCode=37)
                if not browser.wait_for("window.cardsPage.busy()", 2):
                    continue
                browser.call("Input.dispatchKeyEvent", type="keyDown", key="Enter", code="Enter", windowsVirtualKeyCode=13)
                browser.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter", windowsVirtualKeyCode=13)
                # The server's answer (20 s: a loaded CI machine).
                if browser.wait_for("(() => { const r = window.cardsPage.lastRelease(); return r && r !== window.__before"
                                    " && r.engine && !window.cardsPage.busy(); })()", 20):
                    break
            after_key = scenario.ids()
            browser.call("Input.dispatchKeyEvent", type="keyDown", key="u", code="KeyU", text="u", windowsVirtualKeyCode=85)
            browser.call("Input.dispatchKeyEvent", type="keyUp", key="u", code="KeyU", windowsVirtualKeyCode=85)
            restored = browser.wait_for("!window.cardsPage.busy() && window.cardsPage.cards().length === %d" % len(before), 20)
            check("keyboard: ← ×6 and Enter deletes, u undoes", len(after_key) == len(before) - 1 and restored
                  and scenario.ids() == before, {"after": len(after_key), "before": len(before),
                                                 "drag": browser.evaluate("window.cardsPage.dragging()"),
                                                 "last": browser.evaluate("window.cardsPage.lastRelease()")})

            # The row list: a horizontal drag deletes; a vertical touch drag scrolls the list and deletes nothing.
            browser.evaluate("document.getElementById('show-list').click(); window.scrollTo(0, 0)")
            gesture(browser, scenario, "a row slid left past the seed's 75 points deletes", "list", "mouse",
                    ramp(0.5, -110, 3), distance)
            head = scenario.log(1)[0]["commit"]
            start = center_of(browser, ".row:nth-child(3) .content")
            drag(browser, "touch", start, ramp(0.3, -6, -300))
            time.sleep(0.6)
            scrolled = browser.evaluate("window.scrollY")
            check("a vertical scroll on the row list scrolls and deletes nothing (touch)",
                  scrolled > 50 and scenario.log(1)[0]["commit"] == head, {"scrollY": scrolled})
            browser.evaluate("window.scrollTo(0, 0)")
            gesture(browser, scenario, "a vertical mouse drag on a row is rejected", "list", "mouse", ramp(0.3, -20, -200),
                    [["rejected", None, None]])

            # Live: a change from a shell shows without a reload.
            browser.evaluate("document.getElementById('show-stack').click()")
            top = browser.evaluate("window.cardsPage.cards()[0]")
            started = time.perf_counter()
            scenario.run(["edit", top, "--title", "Edited from a shell"])
            live = browser.wait_for("document.body.innerText.includes('Edited from a shell')", 10)
            check("a `cards edit` from a shell shows in the open page without a reload", live,
                  {"seconds": round(time.perf_counter() - started, 3)})

            # Issue 34 on the phone: ten flings by touch, a drag from a link, a tap on it, a disagreement.
            browser.evaluate("document.getElementById('show-stack').click()")
            for name in ("light", "dark"):
                scheme(browser, name)
                screenshots(browser, shoot, "phone", name)
            scheme(browser, "light")
            ok, detail = ten_flings(browser, scenario, "touch")
            check("ten fast flings delete ten cards, ten commits in order (touch, phone)", ok, detail)
            link_drag_and_tap(browser, scenario, "touch", url)
            disagreement(browser, scenario, "touch")
            narrow_header(browser)

            # And on the laptop: the mouse, the keyboard, the colours.
            viewport(browser, LAPTOP)
            ok, detail = ten_flings(browser, scenario, "mouse")
            check("ten fast flings delete ten cards, ten commits in order (mouse, laptop)", ok, detail)
            focus_after_pointer(browser)
            link_drag_and_tap(browser, scenario, "mouse", url)
            row_from_link(browser, scenario)
            preset_choice(browser, scenario)
            keyboard_only(browser, scenario)
            contrast(browser, seed)
            for name in ("light", "dark"):
                scheme(browser, name)
                screenshots(browser, shoot, "laptop", name)
            scheme(browser, "light")
            viewport(browser, PHONE)

            security(scenario, url, hostile)

        if options.bench:
            print("FIGURES " + json.dumps(bench(browser, scenario)), flush=True)
        interrupt(process, browser)
    except Exception as error:  # a failure to run is a failed check, with the reason
        check("the browser scenario ran to the end", False, repr(error))
    finally:
        if browser:
            browser.stop()
        if scenario:
            scenario.stop()
        shutil.rmtree(root, ignore_errors=True)
    failed = [r for r in RESULTS if not r["ok"]]
    print("%d passed, %d failed" % (len(RESULTS) - len(failed), len(failed)), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
