/// The results table and the targets of issue 7.
enum Report {
    /// Milliseconds with a sensible number of digits.
    static func ms(_ value: Double) -> String {
        if value >= 1000 { return "\(format(value / 1000, digits: 2)) s" }
        if value >= 100 { return "\(format(value, digits: 0)) ms" }
        return "\(format(value, digits: value >= 10 ? 1 : 2)) ms"
    }

    static func format(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if digits == 0, text.hasSuffix(".0") { text.removeLast(2) }
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        }
        return text
    }

    /// The markdown table of every row.
    static func table(_ rows: [Row]) -> String {
        var text = "| operation | cards | ours (median) | git CLI (median) | ours / git | our peak RSS | notes |\n"
        text += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
        for row in rows {
            let ours = row.ours.map(ms) ?? "n/a"
            let git = row.git.map(ms) ?? "-"
            var ratio = "-"
            if let mine = row.ours, let theirs = row.git, theirs > 0 {
                let value = mine / theirs
                ratio =
                    value >= 1
                    ? "\(format(value, digits: 2))"
                    : "\(format(value, digits: 3)) (\(format(1 / value, digits: 1))x faster)"
            }
            let peak = row.peak.map { "\(format(Double($0) / 1024, digits: 1)) MB" } ?? "-"
            text += "| \(row.operation) | \(row.cards) | \(ours) | \(git) | \(ratio) | \(peak) | \(row.note) |\n"
        }
        return text
    }

    /// Each target of the issue, met or not, from the rows.
    static func targets(_ rows: [Row]) -> String {
        func find(_ operation: String, _ cards: Int) -> Row? {
            rows.first { $0.operation == operation && $0.cards == cards }
        }
        var lines: [String] = []
        func check(_ name: String, _ met: Bool?, _ detail: String) {
            let verdict = met.map { $0 ? "met" : "NOT met" } ?? "not measured"
            lines.append("- \(name): **\(verdict)** (\(detail))")
        }
        func speedup(_ row: Row?) -> Double? {
            guard let row, let ours = row.ours, let git = row.git, ours > 0 else { return nil }
            return git / ours
        }
        for (cards, factor) in [(1000, 1.0), (10000, 5.0), (100_000, 10.0)] {
            for operation in ["add", "edit", "delete"] {
                let row = find("\(operation) one card, cards process", cards)
                let value = speedup(row)
                check(
                    "\(operation), cards process, working tree, \(cards) cards: ≥ \(format(factor, digits: 0))x git",
                    value.map { $0 >= factor }, value.map { "\(format($0, digits: 1))x" } ?? "-")
            }
        }
        for operation in ["add", "edit", "delete"] {
            let value = speedup(find("\(operation) one card, cards process, --bare", 100_000))
            check(
                "\(operation), cards process, --bare, 100000 cards: ≥ 50x git", value.map { $0 >= 50 },
                value.map { "\(format($0, digits: 1))x" } ?? "-")
        }
        for operation in ["add", "edit", "delete"] {
            for label in ["", ", --bare"] {
                let ours = find("\(operation) one card, in-process\(label)", 100_000)?.ours
                check(
                    "\(operation), in-process\(label), 100000 cards: ≤ 5 ms", ours.map { $0 <= 5 },
                    ours.map(ms) ?? "-")
            }
        }
        let merge100 = find("merge, 100 changed each side (in-process)", 100_000)
        check(
            "merge 100+100 at 100000: ≤ 10 ms and ≥ 3x git merge-tree",
            merge100?.ours.map { ours in ours <= 10 && (speedup(merge100) ?? 0) >= 3 },
            "\(merge100?.ours.map(ms) ?? "-"), \(speedup(merge100).map { format($0, digits: 1) } ?? "-")x")
        let unflushed100 = find("merge, 100 changed each side, nothing flushed (in-process)", 100_000)
        check(
            "merge 100+100 at 100000, nothing flushed (as git merge-tree): ≤ 10 ms and ≥ 3x git merge-tree",
            unflushed100?.ours.map { ours in ours <= 10 && (speedup(unflushed100) ?? 0) >= 3 },
            "\(unflushed100?.ours.map(ms) ?? "-"), \(speedup(unflushed100).map { format($0, digits: 1) } ?? "-")x")
        let merge1000 = find("merge, 1000 changed each side (in-process)", 100_000)?.ours
        check("merge 1000+1000 at 100000: ≤ 60 ms", merge1000.map { $0 <= 60 }, merge1000.map(ms) ?? "-")
        let unflushed1000 = find("merge, 1000 changed each side, nothing flushed (in-process)", 100_000)?.ours
        check(
            "merge 1000+1000 at 100000, nothing flushed: ≤ 60 ms", unflushed1000.map { $0 <= 60 },
            unflushed1000.map(ms) ?? "-")
        let importRow = find("import N cards (process)", 100_000)
        check("import of 100000 cards: ≤ 10 s", importRow?.ours.map { $0 <= 10_000 }, importRow?.ours.map(ms) ?? "-")
        let list = find("cards list of the deck (process)", 100_000)?.ours
        check("cards list of 100000: ≤ 400 ms (issue 37)", list.map { $0 <= 400 }, list.map(ms) ?? "-")
        let peaks = rows.filter { $0.cards == 100_000 }.compactMap(\.peak)
        check(
            "peak memory at 100000: ≤ 250 MB", peaks.isEmpty ? nil : (peaks.max() ?? 0) <= 250 * 1024,
            peaks.max().map { "\(format(Double($0) / 1024, digits: 1)) MB" } ?? "-")
        for operation in ["add", "edit", "delete"] {
            let small = find("\(operation) one card, cards process", 1000)?.ours
            let large = find("\(operation) one card, cards process", 100_000)?.ours
            let ratio = small.flatMap { small in large.map { $0 / small } }
            check(
                "\(operation), cards process, flat within 2x from 1000 to 100000", ratio.map { $0 <= 2 },
                ratio.map { "\(format($0, digits: 2))x" } ?? "-")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The targets of issue 37: every merge and sync row at least as fast as git doing the same, the
    /// libgit2 transport within 2x of git's.
    static func syncTargets(_ rows: [Row]) -> String {
        var lines: [String] = []
        for row in rows where row.operation.hasPrefix("merge,") || row.operation.hasPrefix("sync,") {
            guard let ours = row.ours, let git = row.git, ours > 0 else {
                lines.append("- \(row.operation) at \(row.cards): **not measured**")
                continue
            }
            if row.operation.contains("libgit2 transport") {
                let transport = rows.first {
                    $0.cards == row.cards && $0.operation == row.operation.replacing(", libgit2 transport", with: "")
                }
                let limit = transport?.ours.map { $0 * 2 }
                let verdict = limit.map { ours <= $0 ? "met" : "NOT met" } ?? "not measured"
                lines.append(
                    "- \(row.operation) at \(row.cards): within 2x of the git transport: **\(verdict)** "
                        + "(\(ms(ours)) against \(transport?.ours.map(ms) ?? "-"))")
                continue
            }
            lines.append(
                "- \(row.operation) at \(row.cards): ≥ 1x git: **\(ours <= git ? "met" : "NOT met")** "
                    + "(\(format(git / ours, digits: 2))x: \(ms(ours)) against \(ms(git)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
