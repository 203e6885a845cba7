import Foundation
import Testing

/// `cards serve` in a real headless Chromium (issues 25 and 34): Tests/Browser/serve_browser.py drives it over
/// the DevTools protocol with real touch and mouse input, as a 390 × 844 touch phone and a 1280 × 800 laptop,
/// and prints one JSON check per line; each becomes an expectation here. About 70 s: one browser, one deck,
/// every gesture vector and random drags against the server's engine (the seed on stderr), ten fast flings
/// each way, links, the keyboard, contrast over every card colour in light and dark, the security checks; then
/// Tests/Browser/serve_access.py, the phone's way in and the floods (about 35 s, 15 of them the idle timeout
/// clearing a flood), and ServeStateTests (nested here). One after the other: the gestures' timing must not
/// share the two cores with a second browser.
@Suite("cards serve in a browser", .serialized)
struct ServeBrowserTests {
    static let script = Binaries.packageRoot + "/Tests/Browser/serve_browser.py"
    /// Debian's Python, where python3-websocket installs (a pyenv or venv python3 on PATH lacks it).
    static let python = "/usr/bin/python3"

    /// Cancels the test, naming the package, when the browser or the websocket client is missing.
    static func requireBrowser() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            try Test.cancel("chromium is not installed; `./dev test` installs it (dev's PACKAGES)")
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import websocket"]
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { try Test.cancel("\(python) cannot run: \(error)") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            try Test.cancel("python3-websocket is not installed; `./dev test` installs it (dev's PACKAGES)")
        }
    }

    @Test("gestures by touch and mouse, the engine's decisions, live updates, hostile text and refused requests")
    func browser() throws {
        try Self.requireBrowser()
        try Self.expectChecks(script: Self.script, atLeast: 20)
    }

    static let accessScript = Binaries.packageRoot + "/Tests/Browser/serve_access.py"

    @Test("phone mode: the address and its QR code, token to cookie, Host names, Phone link, card QR, manifest, floods")
    func access() throws {
        try Self.requireBrowser()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else {
            try Test.cancel("zbarimg is not installed; `./dev test` installs zbar-tools (dev's PACKAGES)")
        }
        try Self.expectChecks(script: Self.accessScript, atLeast: 14)
    }

    /// Runs a browser script and turns each JSON check it prints into an expectation.
    static func expectChecks(script: String, atLeast minimum: Int, arguments extra: [String] = []) throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            Self.python, [script, "--cards", Binaries.cards, "--sample", Binaries.sampleRepo] + extra)
        var checks = 0
        for line in result.stdout.split(separator: "\n") {
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let name = object["check"] as? String
            else { continue }
            checks += 1
            let detail = (object["detail"]).map { "\($0)" } ?? ""
            #expect(object["ok"] as? Bool == true, "\(name): \(detail)")
        }
        #expect(checks >= minimum, "the browser scenario stopped early: \(result.stdout)\(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
    }
}
