import CardModel
import Glibc

extension Bench {
    /// The `cards serve` rows (issues 25 and 34), beside a one-card `cards swipe --left`: the time from a
    /// pointer event to the frame the page draws, from the release to the frame the card starts flying and
    /// to the committed answer, and ten fast flings, by touch and by mouse, measured in a headless Chromium
    /// by Tests/Browser/serve_browser.py (`--bench --only-bench`), which sends the drags as real input.
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
            python,
            [script, "--cards", cardsBinary, "--sample", packageRoot + "/sample-repo", "--bench", "--only-bench"],
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
        func number(_ key: String, in object: [String: JSONValue] = figures) -> Double? {
            object[key]?.numberText.flatMap { Double($0) }
        }
        let cards = Int(number("cards") ?? 0)
        // Per input kind (issue 34): a touch phone (390 × 844) and a mouse laptop (1280 × 800).
        for kind in ["touch", "mouse"] {
            guard let one = figures[kind]?.objectValue else { continue }
            let flings = one["tenFlings"]?.objectValue ?? [:]
            record(
                Row(
                    operation: "serve: pointer event to frame drawn (\(kind))", cards: cards,
                    ours: number("pointerToFrameMedianMs", in: one), git: nil,
                    note: "p95 \(number("pointerToFrameP95Ms", in: one).map(Report.ms) ?? "-"), "
                        + "\(Int(number("frames", in: one) ?? 0)) frames in headless Chromium (60 Hz frames)"))
            record(
                Row(
                    operation: "serve: release to fly-off start (\(kind))", cards: cards,
                    ours: number("releaseToFlyMedianMs", in: one), git: nil,
                    note: "pointerup to the frame the card starts flying (target: that frame, ≤ 16 ms); max "
                        + "\(number("releaseToFlyMaxMs", in: one).map(Report.ms) ?? "-")"))
            record(
                Row(
                    operation: "serve: release to commit answered (\(kind))", cards: cards,
                    ours: number("releaseToCommitMedianMs", in: one), git: nil,
                    note: "pointerup to the engine's decision and the delete's commit; the store's commit "
                        + "\(number("storeCommitMedianMs", in: one).map(Report.ms) ?? "-")"))
            record(
                Row(
                    operation: "serve: ten fast flings, to the last commit (\(kind))", cards: cards,
                    ours: number("lastCommitSeconds", in: flings).map { $0 * 1000 }, git: nil,
                    note: "\(Int(number("deleted", in: flings) ?? 0)) of 10 cards deleted, "
                        + "\(Int(number("commits", in: flings) ?? 0)) commits; flinging took "
                        + "\(number("flingSeconds", in: flings).map { Report.ms($0 * 1000) } ?? "-")"))
        }
        record(
            Row(
                operation: "swipe --left one card (process)", cards: cards, ours: number("swipeLeftProcessMedianMs"),
                git: nil, note: "`cards swipe ID --left`, a whole process, for comparison"))
    }
}
