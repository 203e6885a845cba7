#!/usr/bin/python3
"""`cards serve` in a real headless Chromium, driven through the DevTools protocol.

Run by Tests/IntegrationTests/ServeBrowserTests.swift (and `./dev bench` with --bench). It makes a deck in
a temporary folder, starts `cards serve --port 0` and Chromium on 127.0.0.1 (`--remote-debugging-port=0`,
the port read from DevToolsActivePort in a temporary --user-data-dir), sends real touch and mouse input
(Input.dispatchTouchEvent / Input.dispatchMouseEvent) and prints one JSON object per check on stdout:
{"check": name, "ok": bool, "detail": ...}. Everything it starts, it stops by pid; it writes only in its
temporary folder (and the screenshots where --screenshots says).

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
import urllib.error
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
        self.call("Page.enable")
        self.call("Runtime.enable")

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
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("page script failed: %s" % json.dumps(result["exceptionDetails"])[:400])
        return result["result"].get("value")

    def wait_for(self, expression, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.evaluate(expression):
                return True
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
    target = selector or (".card:not(.under):not(.under2)" if view == "stack" else ".row .content")
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
    options = parser.parse_args()
    root = tempfile.mkdtemp(prefix="cards-serve-browser-")
    scenario = browser = None
    try:
        scenario = Scenario(options.cards, root, options.sample)
        hostile = scenario.run(["add", "--title", "<img src=x onerror=alert(1)>", "--url", "https://example.com/?q=<script>alert(1)</script>",
                                "--platform", "<b>bold</b>", "--color", "red"]).stdout.strip()
        for index in range(6):
            scenario.run(["add", "--title", "Extra card %d" % (index + 1), "--url", "https://example.com/%d" % index,
                          "--platform", "Example", "--color", ["blue", "green", "orange"][index % 3]])
        process, url = scenario.serve()
        browser = Chromium(root, 420, 860)
        browser.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        browser.call("Page.navigate", url=url)
        check("the page loads", browser.wait_for("window.cardsPage && window.cardsPage.ready === true", 20))
        ids = scenario.ids()
        geometry_parity(browser, scenario, ids[0])

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

        shots = options.screenshots
        def shoot(name):
            if shots:
                os.makedirs(shots, exist_ok=True)
                browser.screenshot(os.path.join(shots, name))

        distance = [["commit", "left", "distance"]]
        gesture(browser, scenario, "a slow drag past the line deletes", "stack", "mouse", ramp(1.0, -200, 12),
                distance, pause_at=0.8, on_pause=lambda: shoot("serve-stack.png"))
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
              and scenario.ids() == before, {"after": len(after_key), "before": len(before)})

        # The row list: a horizontal drag deletes; a vertical touch drag scrolls the list and deletes nothing.
        browser.evaluate("document.getElementById('show-list').click(); window.scrollTo(0, 0)")
        gesture(browser, scenario, "a row slid left past half deletes", "list", "mouse", ramp(0.8, -260, 3),
                distance, pause_at=0.5, on_pause=lambda: shoot("serve-list.png"))
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

        security(scenario, url, hostile)

        if options.bench:
            # Latencies from input on the browser's own clock: drags sent as they come, without timestamps.
            browser.evaluate("window.cardsPage.stats.frames.length = 0; window.cardsPage.stats.releases.length = 0")
            for _ in range(5):
                browser.evaluate("window.__before = window.cardsPage.lastRelease()")
                drag(browser, "mouse", center_of(browser, ".card:not(.under):not(.under2)"), ramp(0.5, -200, 0),
                     stamped=False)
                browser.wait_for("window.cardsPage.lastRelease() !== window.__before && !window.cardsPage.busy()")
            frames = browser.evaluate("window.cardsPage.stats.frames")
            releases = browser.evaluate("window.cardsPage.stats.releases")
            one = []
            for _ in range(10):
                card = scenario.run(["add", "--title", "Bench", "--url", "https://example.com/b"]).stdout.strip()
                begin = time.perf_counter()
                scenario.run(["swipe", card, "--left"])
                one.append((time.perf_counter() - begin) * 1000)
            figures = {
                "pointerToFrameMedianMs": statistics.median(frames), "pointerToFrameP95Ms":
                    sorted(frames)[int(len(frames) * 0.95) - 1], "frames": len(frames),
                "releaseToCommitMedianMs": statistics.median(r["releaseToAnswer"] for r in releases),
                "storeCommitMedianMs": statistics.median(r["commitSeconds"] * 1000 for r in releases
                                                         if r.get("commitSeconds")),
                "releases": len(releases), "swipeLeftProcessMedianMs": statistics.median(one),
                "cards": len(scenario.ids()),
            }
            print("FIGURES " + json.dumps(figures), flush=True)
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
