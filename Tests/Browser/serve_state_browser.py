#!/usr/bin/python3
"""The page's state in the deck, its features, and conflicts settled by swiping (issue 34), for real.

Run by Tests/IntegrationTests/ServeStateTests.swift. Two parts, each printing one JSON check per line
({"check", "ok", "detail"}) as serve_browser.py does, whose Chromium and input helpers it uses:

--part browser: headless Chromium as a 390x844 touch phone on `cards serve`: undo after a reload (the
  deck's undo: git log and the card file), a keep that survives a reload, the server stopped and started
  again (a banner, then back without a reload), adding and editing a card (errors on the field, nothing
  committed; then one commit, as `cards add` writes it), the filter, and real conflicts (two clones of a
  bare remote, changed apart, `cards sync` on both) settled by a left swipe, a right swipe and a pick,
  each one `resolve` commit. A screenshot of a conflict card goes where --screenshots says.
--part terminal: the same conflicts settled in `cards swipe` in tmux (mouse drags, a number key), and
  from a script (`cards swipe ID --left|--right`).

Everything it starts it stops by pid; it writes only in its temporary folder (and --screenshots).
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_browser  # noqa: E402  (beside this file)
from serve_browser import Chromium, Scenario, center_of, check, drag, ramp  # noqa: E402


def git(scenario, arguments, cwd):
    result = subprocess.run(["git"] + arguments, cwd=cwd, env=scenario.env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(arguments), result.stderr))
    return result.stdout


def cards_in(scenario, deck, arguments):
    result = subprocess.run([scenario.cards_binary, "--deck", deck] + arguments, env=scenario.env,
                            capture_output=True, text=True, cwd=scenario.root)
    if result.returncode != 0:
        raise RuntimeError("cards %s in %s: %s" % (" ".join(arguments), deck, result.stderr))
    return result.stdout


def make_conflicts(scenario, deletions, fields):
    """Real conflicts: the served deck (the phone) and a clone (the laptop) of one bare remote change apart
    and both sync. Cards in `deletions` are deleted on the laptop and edited on the phone (delete versus
    edit); in `fields`, their title is changed differently on both."""
    remote = os.path.join(scenario.root, "remote.git")
    git(scenario, ["init", "-q", "--bare", "-b", "main", remote], scenario.root)
    scenario.run(["remote", "add", "origin", remote])
    scenario.run(["sync"])
    laptop = os.path.join(scenario.root, "laptop")
    subprocess.run([scenario.cards_binary, "clone", remote, laptop], env=scenario.env, check=True,
                   capture_output=True, cwd=scenario.root)
    for card in deletions:
        cards_in(scenario, laptop, ["delete", card])
        scenario.run(["edit", card, "--color", "purple"])
    for card in fields:
        cards_in(scenario, laptop, ["edit", card, "--title", "Laptop title " + card[:4]])
        scenario.run(["edit", card, "--title", "Phone title " + card[:4]])
    scenario.run(["sync"])
    cards_in(scenario, laptop, ["sync"])
    scenario.run(["sync"])
    return laptop


def conflicts(scenario):
    return {c["id"]: c["conflicts"] for c in json.loads(scenario.run(["conflicts", "--json"]).stdout)}


def card_file(scenario, card):
    path = os.path.join(scenario.deck, "cards", card[:2], card + ".json")
    return open(path, "rb").read() if os.path.exists(path) else None


def top_id(browser):
    return browser.evaluate("(() => { const c = document.querySelector('.card:not(.under):not(.under2)');"
                            " return c ? c.dataset.id : null; })()")


def idle(browser):
    browser.wait_for("window.cardsPage && window.cardsPage.ready && !window.cardsPage.busy()", 20)


def swipe_top(browser, dx):
    """A real touch drag of the top card, `dx` points, held still at the end (distance decides)."""
    idle(browser)
    browser.evaluate("window.__before = window.cardsPage.lastRelease()")
    drag(browser, "touch", center_of(browser, ".card:not(.under):not(.under2)"), ramp(0.5, dx, 2))
    browser.wait_for("(() => { const r = window.cardsPage.lastRelease(); return r && r !== window.__before"
                     " && r.engine && !window.cardsPage.busy(); })()", 20)
    return (browser.evaluate("window.cardsPage.lastRelease()") or {}).get("engine") or {}


def tap(browser, selector):
    """A real tap (touch) on the element's centre."""
    x, y = center_of(browser, selector)
    point = [{"x": x, "y": y, "id": 1, "radiusX": 2, "radiusY": 2, "force": 1}]
    browser.call("Input.dispatchTouchEvent", type="touchStart", touchPoints=point)
    browser.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])


def type_into(browser, selector, text):
    browser.evaluate("(() => { const e = document.querySelector(%s); e.focus(); e.select && e.select(); })()"
                     % json.dumps(selector))
    browser.call("Input.dispatchKeyEvent", type="rawKeyDown", key="Backspace", code="Backspace",
                 windowsVirtualKeyCode=8)
    browser.call("Input.dispatchKeyEvent", type="keyUp", key="Backspace", code="Backspace", windowsVirtualKeyCode=8)
    if text:
        browser.call("Input.insertText", text=text)


def serve_on(scenario, port):
    """`cards serve --port PORT` again, on the port the page knows (it was stopped there a moment ago)."""
    deadline = time.time() + 20
    while True:
        process = subprocess.Popen([scenario.cards_binary, "--deck", scenario.deck, "serve", "--port", port],
                                   env=scenario.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        if line.startswith("Serving the deck at "):
            scenario.servers.append(process)
            return process
        process.wait()
        if time.time() > deadline:
            raise RuntimeError("cards serve did not start again on %s: %s" % (port, process.stderr.read()))
        time.sleep(0.2)


def heads(scenario):
    return [entry["commit"] for entry in scenario.log(50)]


def one_resolve(scenario, before, card, words):
    log = scenario.log(3)
    new = [entry for entry in log if entry["commit"] not in before]
    ok = (len(new) == 1 and new[0].get("op") == "resolve" and card in new[0].get("cards", [])
          and words in new[0]["subject"])
    return ok, {"new": [(e["subject"], e.get("op")) for e in new]}


def browser_part(options):
    root = tempfile.mkdtemp(prefix="cards-serve-state-")
    scenario = browser = None
    try:
        scenario = Scenario(options.cards, root, options.sample)
        ids = scenario.ids()
        # In deck order: two deleted-versus-edited cards, then a field conflict, first in the stack.
        make_conflicts(scenario, ids[0:2], ids[2:3])
        recorded = conflicts(scenario)
        check("real conflicts made by two clones syncing", set(recorded) == set(ids[0:3])
              and recorded[ids[0]][0]["field"] == "*" and recorded[ids[2]][0]["field"] == "title",
              {k[:8]: [r["field"] for r in v] for k, v in recorded.items()})
        process, url = scenario.serve()
        # The printed address carries the token (http://127.0.0.1:PORT/?token=…): the port alone is kept.
        port = urllib.parse.urlsplit(url).port
        port = str(port)
        browser = Chromium(root, 390, 844)
        browser.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=3, mobile=True)
        browser.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        browser.call("Page.navigate", url=url)
        check("the page loads on a phone", browser.wait_for("window.cardsPage && window.cardsPage.ready === true", 20))
        idle(browser)

        # ---- Conflicts first, marked, both sides shown. ----
        order = browser.evaluate("[...document.querySelectorAll('#stack .card')].map(c => c.dataset.id).reverse()")
        top = top_id(browser)
        marked = browser.evaluate("(() => { const c = document.querySelector('.card:not(.under):not(.under2)');"
                                  " return c.classList.contains('conflicted') && !!c.querySelector('.conflict-mark')"
                                  " && c.querySelectorAll('.conflict-side').length === 2"
                                  " && c.innerText.includes('deleted on one side, edited on the other')"
                                  " && c.querySelector('.conflict-side.deleted').innerText.includes('Delete')"
                                  " && c.querySelector('.conflict-side.edited').innerText.includes('edited it'); })()")
        check("conflicted cards come first in the stack, marked, both sides shown", top == ids[0] and marked
              and order[:3] == ids[0:3], {"top": top, "order": [i[:8] for i in order], "marked": marked})
        if options.screenshots:
            os.makedirs(options.screenshots, exist_ok=True)
            browser.screenshot(os.path.join(options.screenshots, "serve-conflict-phone.png"))

        # ---- A left swipe deletes a deleted-versus-edited card: one resolve commit. ----
        before = heads(scenario)
        engine = swipe_top(browser, -250)
        ok, detail = one_resolve(scenario, before, ids[0], "deleted the card")
        check("a left swipe settles delete-versus-edit by deleting: one resolve commit",
              ok and engine.get("resolved") == "delete" and card_file(scenario, ids[0]) is None
              and ids[0] not in conflicts(scenario), dict(detail, engine=engine.get("resolved")))

        # ---- A right swipe keeps the edited card: one resolve commit, the record gone. ----
        idle(browser)
        browser.wait_for("document.querySelector('.card:not(.under):not(.under2)').dataset.id === %s"
                         % json.dumps(ids[1]), 10)
        before = heads(scenario)
        engine = swipe_top(browser, 250)
        ok, detail = one_resolve(scenario, before, ids[1], "kept the card")
        kept_card = json.loads(scenario.run(["show", ids[1], "--json"]).stdout)
        check("a right swipe settles delete-versus-edit by keeping the edited card: one resolve commit",
              ok and engine.get("resolved") == "keep" and kept_card.get("color") == "purple"
              and "conflicts" not in kept_card, dict(detail, engine=engine.get("resolved")))

        # ---- A field conflict: its choices shown; a tap on one picks it. ----
        idle(browser)
        browser.wait_for("document.querySelector('.card:not(.under):not(.under2)').dataset.id === %s"
                         % json.dumps(ids[2]), 10)
        choices = browser.evaluate("[...document.querySelectorAll('.card:not(.under):not(.under2) .conflict-choice')]"
                                   ".map(b => [b.querySelector('.choice-value').textContent, b.classList.contains('current')])")
        if options.screenshots:
            browser.screenshot(os.path.join(options.screenshots, "serve-field-conflict-phone.png"))
        other = next((index for index, (_, current) in enumerate(choices) if not current), None)
        before = heads(scenario)
        if other is not None:
            tap(browser, ".card:not(.under):not(.under2) .conflict-choice:nth-of-type(%d)" % (other + 1))
            browser.wait_for("!document.querySelector('.card.conflicted')", 10)
        ok, detail = one_resolve(scenario, before, ids[2], "picked choice %d" % ((other or 0) + 1))
        title = json.loads(scenario.run(["show", ids[2], "--json"]).stdout)["title"]
        check("a field conflict shows its choices; a tap picks one: one resolve commit",
              len(choices) == 2 and other is not None and ok and title == choices[other][0],
              dict(detail, choices=choices, title=title))

        # ---- Undo after a reload: the deck's undo takes back the last delete. ----
        idle(browser)
        victim = top_id(browser)
        victim_bytes = card_file(scenario, victim)
        engine = swipe_top(browser, -250)
        deleted = engine.get("deleted") and card_file(scenario, victim) is None
        serve_browser.reload(browser)  # the page's ready mark cleared first: a reload that did not happen fails
        idle(browser)
        label = browser.evaluate("document.getElementById('undo').getAttribute('aria-label')")
        before = heads(scenario)
        tap(browser, "#undo")
        browser.wait_for("window.cardsPage.cards().includes(%s)" % json.dumps(victim), 10)
        latest = scenario.log(1)[0]
        check("Undo after a reload undoes the last delete (git log, the card file)",
              deleted and latest["commit"] not in before and latest.get("op") == "undo"
              and latest["subject"].startswith("Undo: Delete card") and card_file(scenario, victim) == victim_bytes
              and "Delete card" in (label or ""),
              {"deleted": deleted, "latest": latest["subject"], "label": label})

        # ---- A keep survives a reload (recorded by the deck, not the page); Undo brings the card back. ----
        idle(browser)
        kept = top_id(browser)
        before = heads(scenario)
        swipe_top(browser, 250)
        serve_browser.reload(browser)  # the page's ready mark cleared first: a reload that did not happen fails
        idle(browser)
        gone = top_id(browser) != kept and kept not in browser.evaluate(
            "[...document.querySelectorAll('#stack .card')].map(c => c.dataset.id)")
        tap(browser, "#undo")
        back = browser.wait_for("document.querySelector('.card:not(.under):not(.under2)').dataset.id === %s"
                                % json.dumps(kept), 10)
        check("a kept card stays out of the stack after a reload; Undo brings it back (no commit either way)",
              gone and back and heads(scenario) == before, {"gone": gone, "back": back})

        # ---- The server stopped: a banner in words; started again: back without a reload. ----
        browser.evaluate("window.__sameDocument = 'yes'")
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        banner = browser.wait_for("!document.getElementById('offline').hidden", 10)
        words = browser.evaluate("document.getElementById('offline').innerText")
        if options.screenshots:
            browser.screenshot(os.path.join(options.screenshots, "serve-offline-phone.png"))
        idle(browser)
        swipe_top(browser, -250)
        said = browser.evaluate("document.getElementById('status').textContent")
        scenario.run(["edit", ids[5], "--title", "Changed while the server was down"])
        process = serve_on(scenario, port)
        back = browser.wait_for("document.getElementById('offline').hidden && window.cardsState.current().cards"
                                ".some(c => c.title === 'Changed while the server was down')"
                                " && document.querySelector('#rows').textContent.includes('Changed while the server')", 30)
        same = browser.evaluate("window.__sameDocument") == "yes"
        check("the server stopped: a banner says so in words (not 'Failed to fetch'); restarted: back by itself",
              banner and "not answering" in words and "Failed to fetch" not in said and "not answering" in said
              and back and same, {"banner": banner, "words": words[:90], "said": said, "back": back, "same": same})

        # ---- Adding a card: a bad URL is marked on its field, nothing committed; a good one, one commit. ----
        idle(browser)
        tap(browser, "#add-card")
        browser.wait_for("document.getElementById('card-editor').open", 5)
        type_into(browser, "#field-title", "Ada on Codeberg")
        type_into(browser, "#field-indexURL", "codeberg dot org slash ada")
        type_into(browser, "#field-platformName", "Codeberg")
        type_into(browser, "#field-platformIcon", "codeberg")
        type_into(browser, "#field-color", "Teal")
        before = heads(scenario)
        tap(browser, "#editor-save")
        marked = browser.wait_for("document.getElementById('field-indexURL').getAttribute('aria-invalid') === 'true'"
                                  " && document.getElementById('error-indexURL').textContent.length > 0", 10)
        error_text = browser.evaluate("document.getElementById('error-indexURL').textContent")
        if options.screenshots:
            browser.screenshot(os.path.join(options.screenshots, "serve-add-error-phone.png"))
        check("a bad URL in the add form is shown on the URL field; nothing committed",
              marked and heads(scenario) == before and browser.evaluate("document.getElementById('card-editor').open"),
              {"error": error_text})
        type_into(browser, "#field-indexURL", "https://codeberg.org/ada")
        tap(browser, "#editor-save")
        browser.wait_for("!document.getElementById('card-editor').open", 10)
        idle(browser)
        log = scenario.log(2)
        added = [entry for entry in log if entry["commit"] not in before]
        page_card = None
        if len(added) == 1:
            page_card = json.loads(scenario.run(["show", added[0]["cards"][0], "--json"]).stdout)
        # What `cards add` writes for the same input, in a deck of its own (the id given, the rank the clock's).
        twin = os.path.join(root, "twin")
        subprocess.run([scenario.cards_binary, "init", twin], env=scenario.env, check=True, capture_output=True)
        twin_id = (page_card or {}).get("id", "00000000-0000-4000-8000-000000000000")
        cards_in(scenario, twin, ["add", "--title", "Ada on Codeberg", "--url", "https://codeberg.org/ada",
                                  "--platform", "Codeberg", "--icon", "codeberg", "--color", "Teal", "--id", twin_id])
        twin_card = json.loads(cards_in(scenario, twin, ["show", twin_id, "--json"]))
        twin_log = json.loads(cards_in(scenario, twin, ["log", "-n", "1", "--json"]))[0]
        same_card = page_card is not None and {k: v for k, v in page_card.items() if k != "rank"} == \
            {k: v for k, v in twin_card.items() if k != "rank"}
        check("a good card from the add form: one commit, as `cards add` writes it",
              len(added) == 1 and added[0].get("op") == "add" and same_card
              and added[0]["subject"] == twin_log["subject"],
              {"added": [(e["subject"], e.get("op")) for e in added], "page": page_card, "cli": twin_card})

        # ---- Editing a field: a bad colour on its field; then one edit commit. ----
        browser.evaluate("document.getElementById('show-list').click()")
        target = ids[6]
        selector = ".row[data-id=%s] .edit-button" % json.dumps(target)
        browser.evaluate("document.querySelector(%s).scrollIntoView({block: 'center'})" % json.dumps(selector))
        time.sleep(0.2)
        tap(browser, selector)
        browser.wait_for("document.getElementById('card-editor').open", 5)
        type_into(browser, "#field-color", "chartreuse-ish")
        before = heads(scenario)
        tap(browser, "#editor-save")
        marked = browser.wait_for("document.getElementById('field-color').getAttribute('aria-invalid') === 'true'", 10)
        unchanged = heads(scenario) == before
        type_into(browser, "#field-color", "#12ab9F")
        tap(browser, "#editor-save")
        browser.wait_for("!document.getElementById('card-editor').open", 10)
        log = scenario.log(2)
        edited = [entry for entry in log if entry["commit"] not in before]
        color = json.loads(scenario.run(["show", target, "--json"]).stdout)["color"]
        check("editing a field from the page: a bad colour is marked on its field, then one edit commit",
              marked and unchanged and len(edited) == 1 and edited[0].get("op") == "edit"
              and edited[0]["subject"].endswith(": color") and color == "#12ab9f",
              {"edited": [e["subject"] for e in edited], "color": color})

        # ---- The filter narrows the list and the stack to cards whose title, platform or link match. ----
        browser.evaluate("window.scrollTo(0, 0)")
        word = "ada on"
        type_into(browser, "#filter", word)
        time.sleep(0.2)
        rows = browser.evaluate("[...document.querySelectorAll('#rows .row')].map(r => r.innerText.toLowerCase())")
        every = [c for c in json.loads(scenario.run(["list", "--json"]).stdout)
                 if all(w in (c["title"] + " " + c.get("platformName", "") + " " + c["indexURL"]).lower()
                        for w in word.split())]
        browser.evaluate("document.getElementById('show-stack').click()")
        stack_ok = browser.evaluate("[...document.querySelectorAll('#stack .card')].every(c =>"
                                    " c.innerText.toLowerCase().includes('ada'))")
        type_into(browser, "#filter", "")
        time.sleep(0.2)
        all_rows = browser.evaluate("document.querySelectorAll('#rows .row').length")
        check("the filter shows only the cards whose title, platform or link match, in list and stack",
              0 < len(rows) == len(every) < all_rows and all("ada" in r for r in rows) and stack_ok,
              {"rows": len(rows), "expected": len(every), "all": all_rows, "stack": stack_ok})
    except Exception as error:  # a failure to run is a failed check, with the reason
        check("the browser scenario ran to the end", False, repr(error))
    finally:
        if browser:
            browser.stop()
        if scenario:
            scenario.stop()
        shutil.rmtree(root, ignore_errors=True)


class Tmux:
    """A private tmux server (its own socket) running `cards swipe` in a 100x30 pane."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.socket = os.path.join(scenario.root, "tmux.sock")
        command = "cd %s && TERM=xterm-256color %s swipe; echo EXIT:$? > %s; sleep 60" % (
            scenario.deck, scenario.cards_binary, os.path.join(scenario.root, "done"))
        self.tmux(["-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "sh", "-c", command])

    def tmux(self, arguments):
        return subprocess.run(["tmux", "-S", self.socket] + arguments, env=self.scenario.env, capture_output=True,
                              text=True).stdout

    def screen(self):
        return self.tmux(["capture-pane", "-p"])

    def wait_for(self, text, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if text in self.screen():
                return True
            time.sleep(0.05)
        return False

    def keys(self, text):
        self.tmux(["send-keys", "-l", text])

    def drag(self, to_column):
        self.keys("\x1b[<0;50;6M")
        step = -4 if to_column < 50 else 4
        for column in range(50 + step, to_column, step):
            time.sleep(0.03)
            self.keys("\x1b[<32;%d;6M" % column)
        time.sleep(0.03)
        self.keys("\x1b[<0;%d;6m" % to_column)

    def stop(self):
        self.tmux(["kill-server"])


def terminal_part(options):
    root = tempfile.mkdtemp(prefix="cards-swipe-conflicts-")
    scenario = tmux = None
    try:
        scenario = Scenario(options.cards, root, options.sample)
        ids = scenario.ids()
        make_conflicts(scenario, ids[0:2] + ids[3:5], ids[2:3])
        tmux = Tmux(scenario)
        shown = tmux.wait_for("conflict: deleted vs. edited")
        check("`cards swipe`: the conflicted card comes first, marked, with how to settle it",
              shown and "keep it as edited" in tmux.screen(), tmux.screen()[-900:])

        # Left drag: deleted, one resolve commit.
        before = heads(scenario)
        tmux.drag(8)
        time.sleep(1.0)
        ok, detail = one_resolve(scenario, before, ids[0], "deleted the card")
        check("`cards swipe`: a left drag settles delete-versus-edit by deleting (one resolve commit)",
              ok and card_file(scenario, ids[0]) is None, detail)

        # u takes it back: the card and its record return.
        tmux.keys("u")
        back = False
        deadline = time.time() + 10
        while time.time() < deadline and not back:
            back = ids[0] in conflicts(scenario)
            time.sleep(0.1)
        check("`cards swipe`: u undoes the settling (the card and its record come back)", back,
              scenario.log(1)[0]["subject"])
        tmux.wait_for("conflict: deleted elsewhere")

        # Right drag on the same card: kept, one resolve commit.
        before = heads(scenario)
        tmux.drag(92)
        time.sleep(1.0)
        ok, detail = one_resolve(scenario, before, ids[0], "kept the card")
        check("`cards swipe`: a right drag settles delete-versus-edit by keeping (one resolve commit)",
              ok and ids[0] not in conflicts(scenario) and card_file(scenario, ids[0]) is not None, detail)

        # The next conflicted card: the other delete-versus-edit; then the field conflict by a number key.
        tmux.wait_for("conflict: deleted vs. edited")
        tmux.drag(8)
        time.sleep(1.0)
        shown = tmux.wait_for("conflict on title: press 1–2 to pick")
        screen = tmux.screen()
        before = heads(scenario)
        # The choice the merge did not keep.
        pick = "2" if " 1 " in screen and "(kept by the merge)" in screen.split(" 1 ", 1)[1].split("\n", 1)[0] else "1"
        tmux.keys(pick)
        time.sleep(1.0)
        ok, detail = one_resolve(scenario, before, ids[2], "picked choice " + pick)
        check("`cards swipe`: a field conflict lists its choices; a number key picks one (one resolve commit)",
              shown and ok and ids[2] not in conflicts(scenario), dict(detail, screen=screen[-600:]))
        # `u` takes the pick back (the deck's undo of that resolve commit): the conflict is open again; the
        # same key then settles it once more.
        before = heads(scenario)
        tmux.keys("u")
        reopened = tmux.wait_for("took back the pick")
        time.sleep(0.5)
        newest = scenario.log(1)[0]
        undone = newest["commit"] not in before and newest["subject"].startswith("Undo:") and ids[2] in conflicts(scenario)
        tmux.wait_for("conflict on title: press 1–2 to pick")
        before = heads(scenario)
        tmux.keys(pick)
        time.sleep(1.0)
        again, detail_again = one_resolve(scenario, before, ids[2], "picked choice " + pick)
        check("`cards swipe`: u takes a pick back (an Undo: commit, the conflict open again), and it can be picked again",
              reopened and undone and again and ids[2] not in conflicts(scenario),
              {"newest": newest["subject"], "again": detail_again, "screen": tmux.screen()[-400:]})
        tmux.keys("q")
        tmux.stop()
        tmux = None

        # From a script: the same swipe settles it.
        before = heads(scenario)
        out = json.loads(scenario.run(["swipe", ids[3], "--left", "--preset", "stack", "--json"]).stdout)
        ok_left, detail_left = one_resolve(scenario, before, ids[3], "deleted the card")
        before = heads(scenario)
        said = scenario.run(["swipe", ids[4], "--right", "--preset", "stack"]).stdout
        ok_right, detail_right = one_resolve(scenario, before, ids[4], "kept the card")
        check("from a script: `cards swipe ID --left|--right` settles delete-versus-edit (one resolve commit each)",
              ok_left and ok_right and out.get("resolved") == "delete" and "Settled the conflict" in said
              and conflicts(scenario) == {}, {"left": detail_left, "right": detail_right, "said": said})
    except Exception as error:
        check("the terminal scenario ran to the end", False, repr(error))
    finally:
        if tmux:
            tmux.stop()
        if scenario:
            scenario.stop()
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--part", choices=["browser", "terminal"], required=True)
    parser.add_argument("--screenshots", help="folder for the phone screenshots of conflict cards")
    options = parser.parse_args()
    if options.part == "browser":
        browser_part(options)
    else:
        terminal_part(options)
    failed = [r for r in serve_browser.RESULTS if not r["ok"]]
    print("%d passed, %d failed" % (len(serve_browser.RESULTS) - len(failed), len(failed)), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
