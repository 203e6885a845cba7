import Foundation
import Testing

/// `cards swipe`: the scripted form, and the interactive session driven through tmux (a real pty).
@Suite("Swiping cards")
struct SwipeCLITests {
    @Test("a scripted left drag past the threshold deletes the card in one commit with a Gesture trailer")
    func scriptedDelete() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = String(try scratch.cards(["list"], in: deck).stdout.prefix(8))
        let before = try scratch.commits(deck).count
        let result = try scratch.cards(
            ["swipe", id, "--drag", "0:0,0 0.1:-60,1 0.2:-130,2 0.3:-190,2 0.32:-190,2", "--json"], in: deck)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["decision"] as? String == "commit")
        #expect(object["direction"] as? String == "left")
        #expect(object["reason"] as? String == "distance")
        #expect(object["preset"] as? String == "row")
        #expect(object["deleted"] as? Bool == true)
        #expect(object["armed"] as? Bool == true)
        #expect((object["offset"] as? [Double])?.first == -190)
        for key in ["id", "rotation", "progress", "velocity"] { #expect(object[key] != nil, "missing \(key)") }
        #expect(try scratch.commits(deck).count == before + 1)
        let message = try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout
        #expect(message.contains("Op: delete") && message.contains("Gesture: swipe left, distance, preset row"))
        #expect(try scratch.cards(["show", id], in: deck).status == 1)
        try scratch.expectClean(deck)
    }

    @Test(
        "short drags, right swipes, dry runs and vertical scrolls delete nothing",
        arguments: [
            ["--drag", "0:0,0 0.1:-30,0 0.2:-40,0"],
            ["--drag", "0:0,0 0.1:-10,-80 0.3:-80,-300", "--preset", "row"],
            ["--right", "--preset", "stack"],
            ["--left", "--dry-run"],
            ["--drag", "0:0,0 0.1:-100,0 0.2:-200,0 cancel", "--preset", "stack"],
        ])
    func nothingDeleted(_ extra: [String]) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = String(try scratch.cards(["list"], in: deck).stdout.prefix(8))
        let before = try scratch.fingerprint(deck)
        let result = try scratch.cards(["swipe", id] + extra + ["--json"], in: deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"deleted\": false"))
        #expect(try scratch.fingerprint(deck) == before)
    }

    @Test(
        "bad swipe arguments are usage errors naming the culprit",
        arguments: [
            (["--drag", "0:0,0 oops"], "oops"),
            (["--left", "--right"], "exactly one"),
            (["--left", "--preset", "sideways"], "sideways"),
            (["--left", "--width", "-3"], "--width"),
            (["--drag", "0:0,0 0.1:nan,0", "--grab", "x"], "--grab"),
            (["--right"], "presets that do: classic-stack, stack"),
        ])
    func badArguments(_ extra: [String], _ mention: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = String(try scratch.cards(["list"], in: deck).stdout.prefix(8))
        let before = try scratch.fingerprint(deck)
        let result = try scratch.cards(["swipe", id] + extra, in: deck)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(try scratch.fingerprint(deck) == before)
    }

    @Test("samples the engine drops (not finite, time going back) are said on stderr, and kept out of the decision")
    func droppedSamplesSaid() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = String(try scratch.cards(["list"], in: deck).stdout.prefix(8))
        let result = try scratch.cards(
            ["swipe", id, "--drag", "0:0,0 0.1:-40,0 0.05:-300,0 0.2:nan,0 0.3:-50,0", "--dry-run"], in: deck)
        #expect(result.status == 0 && result.stdout.contains("Kept card"), "\(result.stdout)")
        #expect(result.stderr.contains("warning: 2 drag samples ignored"), "\(result.stderr)")
        #expect(result.stderr.contains("a time before the previous sample's"))
        #expect(result.stderr.contains("a point that is not finite"))
        let clean = try scratch.cards(["swipe", id, "--drag", "0:0,0 0.1:-40,0", "--dry-run"], in: deck)
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
    }

    @Test("the interactive session needs a terminal and says how to script instead")
    func notATerminal() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let result = try scratch.cards(["swipe"], in: deck)
        #expect(result.status == 1)
        #expect(result.stderr.contains("--drag") && result.stderr.contains("terminal"))
        // A card size is for a scripted swipe: the session's card is the terminal's size.
        let sized = try scratch.cards(["swipe", "--width", "300"], in: deck)
        #expect(sized.status == 64 && sized.stderr.contains("--width needs a card id"), "\(sized.stderr)")
    }

    @Test(
        "interactive: mouse-drag left shows red, deletes one card, u restores it; a short drag springs back; q restores the terminal"
    )
    func interactiveSession() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tmux = try Tmux(scratch: scratch, deck: deck)
        defer { tmux.stop() }
        let count = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").count
        let top = try scratch.cards(["list", "--json"], in: deck).stdout
        let firstTitle = try #require(
            (try JSONSerialization.jsonObject(with: Data(top.utf8)) as? [[String: Any]])?.first?["title"] as? String)
        #expect(try tmux.waitFor("1/\(count)"), "the session did not start: \((try? tmux.screen()) ?? "")")
        #expect(try tmux.screen().contains(firstTitle))
        let commitsBefore = try scratch.commits(deck).count

        // A short drag springs back and deletes nothing.
        try tmux.mouse(press: true, column: 50, row: 6)
        for column in [49, 48, 47] { try tmux.mouse(drag: column, row: 6) }
        try tmux.mouse(press: false, column: 47, row: 6)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(try scratch.commits(deck).count == commitsBefore)

        // A long drag: the card turns red with "release to delete" before the release, then is deleted.
        try tmux.mouse(press: true, column: 50, row: 6)
        for column in stride(from: 48, through: 8, by: -4) { try tmux.mouse(drag: column, row: 6) }
        #expect(try tmux.waitFor("release to delete"), "no armed state: \((try? tmux.screen()) ?? "")")
        // Red as a 256-colour terminal (TERM=xterm-256color, no COLORTERM) has it: palette entry 160.
        #expect(try tmux.screen(escapes: true).contains("48;5;160"), "the armed card is not red")
        try tmux.mouse(press: false, column: 8, row: 6)
        #expect(try tmux.waitFor("1/\(count - 1)"), "not deleted: \((try? tmux.screen()) ?? "")")
        #expect(try scratch.commits(deck).count == commitsBefore + 1)
        #expect(try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").count == count - 1)
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains("Gesture: swipe left"))

        // u brings it back (same bytes: same place).
        try tmux.keys("u")
        #expect(try tmux.waitFor("1/\(count)"), "undo did not restore: \((try? tmux.screen()) ?? "")")
        #expect(try scratch.cards(["list", "--json"], in: deck).stdout == top)

        // q quits and restores the terminal exactly.
        try tmux.keys("q")
        #expect(try tmux.waitForFile("done"))
        let before = try String(contentsOfFile: scratch.path("stty-before"), encoding: .utf8)
        let after = try String(contentsOfFile: scratch.path("stty-after"), encoding: .utf8)
        #expect(before == after, "terminal settings not restored")
        #expect(try tmux.display("#{mouse_any_flag}#{mouse_sgr_flag}#{alternate_on}#{cursor_flag}") == "0001")
        #expect(try String(contentsOfFile: scratch.path("done"), encoding: .utf8).contains("EXIT:0"))
        try scratch.expectClean(deck)
    }
}

extension SwipeCLITests {
    @Test(
        "interactive: SIGTERM, SIGQUIT, a stray SIGUSR1 or SIGALRM and Ctrl-C all restore the terminal and delete nothing",
        arguments: ["TERM", "QUIT", "USR1", "ALRM", "ctrl-c"])
    func interruptRestores(_ how: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tmux = try Tmux(scratch: scratch, deck: deck)
        defer { tmux.stop() }
        #expect(try tmux.waitFor("1/16"), "the session did not start: \((try? tmux.screen()) ?? "")")
        let before = try scratch.fingerprint(deck)
        // Mid-drag, so the session has the mouse and the alternate screen on.
        try tmux.mouse(press: true, column: 50, row: 6)
        try tmux.mouse(drag: 30, row: 6)
        if how != "ctrl-c" {
            let pid = try tmux.cardsPID()
            let signals = ["TERM": SIGTERM, "QUIT": SIGQUIT, "USR1": SIGUSR1, "ALRM": SIGALRM]
            #expect(kill(pid, signals[how] ?? SIGTERM) == 0)
        } else {
            try tmux.keys("\u{03}")
        }
        #expect(try tmux.waitForFile("done"))
        let beforeSettings = try String(contentsOfFile: scratch.path("stty-before"), encoding: .utf8)
        let afterSettings = try String(contentsOfFile: scratch.path("stty-after"), encoding: .utf8)
        #expect(beforeSettings == afterSettings, "terminal settings not restored")
        #expect(try tmux.display("#{mouse_any_flag}#{mouse_sgr_flag}#{alternate_on}#{cursor_flag}") == "0001")
        #expect(try scratch.fingerprint(deck) == before)
    }
}

extension SwipeCLITests {
    @Test("interactive: a stop (SIGTSTP) gives the terminal back to the shell, and fg takes it again and goes on")
    func stopAndContinue() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tmux = try Tmux(scratch: scratch, deck: deck, jobControl: true)
        defer { tmux.stop() }
        #expect(try tmux.waitFor("1/16"), "the session did not start: \((try? tmux.screen()) ?? "")")
        let pid = try tmux.cardsPID()
        #expect(kill(pid, SIGTSTP) == 0)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try tmux.display("#{mouse_any_flag}#{alternate_on}#{cursor_flag}") == "001", "stopped, still raw")
        let state = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        #expect(state.contains(") T "), "not stopped: \(state)")
        // The shell has the terminal: a line for its `read`, then `fg` continues the job.
        try tmux.keys("\r")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try tmux.display("#{mouse_any_flag}#{alternate_on}") == "11", "continued, not taken again")
        #expect(try tmux.waitFor("1/16"), "not drawn again: \((try? tmux.screen()) ?? "")")
        try tmux.keys("q")
        #expect(try tmux.waitForFile("done"))
        let before = try String(contentsOfFile: scratch.path("stty-before"), encoding: .utf8)
        let after = try String(contentsOfFile: scratch.path("stty-after"), encoding: .utf8)
        #expect(before == after, "terminal settings not restored")
        #expect(try String(contentsOfFile: scratch.path("done"), encoding: .utf8).contains("EXIT:0"))
    }
}

extension SwipeCLITests {
    @Test(
        "interactive: a stop the kernel discards (no job control: an orphaned process group) leaves the session going"
    )
    func discardedStopKeepsTheSession() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tmux = try Tmux(scratch: scratch, deck: deck)
        defer { tmux.stop() }
        #expect(try tmux.waitFor("1/16"), "the session did not start: \((try? tmux.screen()) ?? "")")
        #expect(kill(try tmux.cardsPID(), SIGTSTP) == 0)
        Thread.sleep(forTimeInterval: 0.5)
        // Never stopped: the terminal is the session's again, and keys still drive it.
        #expect(try tmux.display("#{mouse_any_flag}#{alternate_on}#{cursor_flag}") == "110", "left in line mode")
        try tmux.keys("q")
        #expect(try tmux.waitForFile("done"))
        let before = try String(contentsOfFile: scratch.path("stty-before"), encoding: .utf8)
        let after = try String(contentsOfFile: scratch.path("stty-after"), encoding: .utf8)
        #expect(before == after, "terminal settings not restored")
    }
}

/// A private tmux server running `cards swipe` in a 100×30 pane.
struct Tmux {
    let scratch: Scratch
    let socket: String

    /// `jobControl`: the pane's shell runs `cards swipe` as a job of its own (bash `set -m`), so a stop
    /// stops it and the shell takes the terminal back, waiting for a line before it continues the job
    /// (`fg`). Without it the shell has no job control, as under `ssh host cmd`: the process group is
    /// orphaned and the kernel discards a stop.
    init(scratch: Scratch, deck: String, jobControl: Bool = false) throws {
        self.scratch = scratch
        socket = scratch.path("tmux.sock")
        let env = ["HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "CARDS_FSYNC"].compactMap { key in
            scratch.environment[key].map { "\(key)='\($0)'" }
        }.joined(separator: " ")
        let run = "env -u NO_COLOR -u COLORTERM \(env) TERM=xterm-256color '\(Binaries.cards)' swipe"
        let swipe =
            jobControl
            ? "set -m; \(run); status=$?; if jobs %1 >/dev/null 2>&1; then read line; fg %1 >/dev/null; status=$?; fi"
            : "\(run); status=$?"
        let script = """
            cd '\(deck)' && stty -g > '\(scratch.path("stty-before"))'; \
            \(swipe); echo EXIT:$status > '\(scratch.path("done.tmp"))'; \
            stty -g > '\(scratch.path("stty-after"))'; mv '\(scratch.path("done.tmp"))' '\(scratch.path("done"))'; sleep 60
            """
        let result = tmuxCommand([
            "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", jobControl ? "bash" : "sh", "-c", script,
        ])
        guard result.status == 0 else { throw CocoaError(.executableLoad) }
    }

    func tmuxCommand(_ arguments: [String]) -> (status: Int32, output: String) {
        spawnAndWait(
            "/usr/bin/tmux", ["-S", socket] + arguments, environment: scratch.environment,
            outputFile: scratch.path("tmux.out"))
    }

    func stop() {
        _ = tmuxCommand(["kill-server"])
    }

    /// The pid of the `cards swipe` running in the pane.
    func cardsPID() throws -> Int32 {
        let shell = try display("#{pane_pid}")
        let child = spawnAndWait(
            "/usr/bin/pgrep", ["-P", shell, "-f", "cards"], environment: scratch.environment,
            outputFile: scratch.path("pgrep.out"))
        return try #require(child.output.split(separator: "\n").first.flatMap { Int32($0) })
    }

    func screen(escapes: Bool = false) throws -> String {
        tmuxCommand(["capture-pane", "-p"] + (escapes ? ["-e"] : [])).output
    }

    func display(_ format: String) throws -> String {
        tmuxCommand(["display", "-p", format]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func keys(_ text: String) throws {
        _ = tmuxCommand(["send-keys", "-l", text])
    }

    /// Sends an xterm SGR mouse event (1-based cell coordinates).
    func mouse(press: Bool, column: Int, row: Int) throws {
        try keys("\u{1B}[<0;\(column);\(row)\(press ? "M" : "m")")
        Thread.sleep(forTimeInterval: 0.03)
    }

    func mouse(drag column: Int, row: Int) throws {
        try keys("\u{1B}[<32;\(column);\(row)M")
        Thread.sleep(forTimeInterval: 0.03)
    }

    func waitFor(_ text: String, seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try screen().contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func waitForFile(_ name: String, seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: scratch.path(name)) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}

extension SwipeCLITests {
    @Test("interactive: the closing count leaves out a card this session deleted that another command brought back")
    func closingCountSeesUndoElsewhere() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tmux = try Tmux(scratch: scratch, deck: deck)
        defer { tmux.stop() }
        #expect(try tmux.waitFor("1/16"), "the session did not start: \((try? tmux.screen()) ?? "")")
        try tmux.mouse(press: true, column: 50, row: 6)
        for column in stride(from: 48, through: 8, by: -4) { try tmux.mouse(drag: column, row: 6) }
        try tmux.mouse(press: false, column: 8, row: 6)
        #expect(try tmux.waitFor("1/15"), "not deleted: \((try? tmux.screen()) ?? "")")
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        try tmux.keys("q")
        #expect(try tmux.waitForFile("done"))
        let closing = try tmux.screen()
        #expect(closing.contains("No cards deleted."), "\(closing)")
        #expect(try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").count == 16)
    }

    @Test("interactive: a card file that is not a valid card is left out of the session and named once it ends")
    func invalidCardNamedAfterTheSession() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        // A hand edit that breaks a card, committed with git: the deck now holds 15 valid cards.
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let path = "cards/\(id.prefix(2))/\(id).json"
        try "{\"id\": \"\(id)\", \"title\": 42}\n".write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "a broken card"], in: deck)
        let tmux = try Tmux(scratch: scratch, deck: deck)
        defer { tmux.stop() }
        #expect(try tmux.waitFor("1/15"), "the session did not start: \((try? tmux.screen()) ?? "")")
        try tmux.keys("q")
        #expect(try tmux.waitForFile("done"))
        let screen = try tmux.screen()
        #expect(screen.contains("\(path) is not a valid card and was not shown"), "\(screen)")
        #expect(try String(contentsOfFile: scratch.path("done"), encoding: .utf8).contains("EXIT:0"))
    }
}
