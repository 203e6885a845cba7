import Foundation
import Testing

/// Issue 34's state, features and conflicts, for real: Tests/Browser/serve_state_browser.py drives `cards
/// serve` in headless Chromium as a 390×844 touch phone (undo after a reload, the server stopped and
/// started again, adding, editing, the filter, conflicts made by two clones syncing and settled by swipes
/// and a pick), and `cards swipe` in tmux and from a script on the same kind of conflicts. Each line it
/// prints is one check.
extension ServeBrowserTests {
    /// Nested in ServeBrowserTests, whose `.serialized` runs it after the other browser tests, never beside them.
    @Suite("cards serve: state in the deck, add and edit, conflicts settled by swiping")
    struct ServeStateTests {
        static let script = Binaries.packageRoot + "/Tests/Browser/serve_state_browser.py"

        /// Runs one part of the script and turns its lines into expectations.
        func run(part: String, atLeast: Int) throws {
            var arguments = ["--part", part]
            // Where the phone screenshots of conflict cards go, to be looked at (the README's docs/ pictures).
            if let folder = ProcessInfo.processInfo.environment["CARDS_SCREENSHOTS"] {
                arguments += ["--screenshots", folder]
            }
            try ServeBrowserTests.expectChecks(script: Self.script, atLeast: atLeast, arguments: arguments)
        }

        @Test("on a phone: undo after a reload, keeps, the server gone and back, add, edit, filter, conflicts by swipe")
        func browser() throws {
            try ServeBrowserTests.requireBrowser()
            try run(part: "browser", atLeast: 13)
        }

        @Test("in the terminal (tmux) and from a script: conflicts settled by swiping and by a number key")
        func terminal() throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
                try Test.cancel("tmux is not installed; `./dev test` installs it (dev's PACKAGES)")
            }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: ServeBrowserTests.python)
            probe.arguments = ["-c", "import websocket"]
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            guard probe.terminationStatus == 0 else {
                // The script shares serve_browser.py's helpers, which import it.
                try Test.cancel("python3-websocket is not installed; `./dev test` installs it (dev's PACKAGES)")
            }
            try run(part: "terminal", atLeast: 7)
        }
    }
}
