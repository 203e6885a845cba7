import CardModel
import Glibc

extension Bench {
    /// The `cards serve` rows (issue 25), beside a one-card `cards swipe --left`: the time from a pointer
    /// event to the frame the page draws, and from the release to the committed answer, measured in a
    /// headless Chromium by Tests/Browser/serve_browser.py (`--bench`), which sends the drags as real input.
    func runServe(packageRoot: String) {
        let script = packageRoot + "/Tests/Browser/serve_browser.py"
        let python = "/usr/bin/python3"
        guard access("/usr/bin/chromium", X_OK) == 0, access(script, R_OK) == 0 else {
            record(
                Row(
                    operation: "serve: pointer event to frame drawn (browser)", cards: 0, ours: nil, git: nil,
                    note: "not measured: needs chromium and python3-websocket (`./dev` installs them)"))
            return
        }
        let result = Measure.run(
            python, [script, "--cards", cardsBinary, "--sample", packageRoot + "/sample-repo", "--bench"],
            capture: true)
        guard let line = result.output.split(separator: "\n").first(where: { $0.hasPrefix("FIGURES ") }),
            let value = try? JSONValue.parse(Array(line.dropFirst("FIGURES ".count).utf8)),
            let figures = value.objectValue
        else {
            record(
                Row(
                    operation: "serve: pointer event to frame drawn (browser)", cards: 0, ours: nil, git: nil,
                    note: "the browser run failed (exit \(result.run.status)); run serve_browser.py --bench to see"))
            return
        }
        func number(_ key: String) -> Double? { figures[key]?.numberText.flatMap { Double($0) } }
        let cards = Int(number("cards") ?? 0)
        record(
            Row(
                operation: "serve: pointer event to frame drawn (browser)", cards: cards,
                ours: number("pointerToFrameMedianMs"), git: nil,
                note: "p95 \(number("pointerToFrameP95Ms").map(Report.ms) ?? "-"), "
                    + "\(Int(number("frames") ?? 0)) frames of mouse drags in headless Chromium (60 Hz frames)"))
        record(
            Row(
                operation: "serve: release to commit answered (browser)", cards: cards,
                ours: number("releaseToCommitMedianMs"), git: nil,
                note: "pointerup to the page having the engine's decision and the delete's commit; the store's "
                    + "commit \(number("storeCommitMedianMs").map(Report.ms) ?? "-")"))
        record(
            Row(
                operation: "swipe --left one card (process)", cards: cards, ours: number("swipeLeftProcessMedianMs"),
                git: nil, note: "`cards swipe ID --left`, a whole process, for comparison"))
    }
}
