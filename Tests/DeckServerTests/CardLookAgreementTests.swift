import CardLook
import CardModel
import Foundation
import TestSupport
import Testing

@testable import DeckServer

/// app.js's copy of CardLook (the colour table, the luminance, the ink, the glyph of a platform icon), run
/// by node as the page has it, gives what CardLook gives: the page `cards serve` draws and the page
/// `cards publish` writes draw every card alike.
@Suite("app.js draws cards as CardLook does")
struct CardLookAgreementTests {
    /// The part of app.js that holds the rules: from the colour table to the first function after
    /// `iconName`, which need nothing of the page but `document.getElementById` (the sprite's symbols).
    static func rulesOfAppJS() throws -> String {
        let script = PageAssets.script
        let start = try #require(script.range(of: "const colours = {"), "app.js has no colour table")
        let end = try #require(script.range(of: "\nfunction element(", range: start.upperBound..<script.endIndex))
        return String(script[start.lowerBound..<end.lowerBound])
    }

    /// Node's answers for `input` (JSON: colours and icon names), the sprite's ids read by node from
    /// the sprite's own text.
    static func node(_ input: [String: [String]], scratch: ScratchFolder) throws -> [String: Any] {
        let harness = """
            const fs = require('fs');
            const [rules, spritePath, inputPath] = process.argv.slice(2).map((p) => fs.readFileSync(p, 'utf8'));
            const ids = new Set([...spritePath.matchAll(/<symbol id="([^"]+)"/g)].map((m) => m[1]));
            const document = { getElementById: (id) => (ids.has(id) ? {} : null) };
            const page = new Function('document', rules
              + '; return { colour, luminance, contrast, inkFor, iconName };')(document);
            const input = JSON.parse(inputPath);
            const hexes = input.colours.map((c) => page.colour(c));
            process.stdout.write(JSON.stringify({
              hex: hexes,
              luminance: hexes.map((h) => page.luminance(h)),
              onBlack: hexes.map((h) => page.contrast(h, '#000000')),
              ink: hexes.map((h) => page.inkFor(h)),
              icon: input.icons.map((name) => page.iconName({ platformIcon: name })),
            }));
            """
        try harness.write(toFile: scratch.path("harness.js"), atomically: true, encoding: .utf8)
        try rulesOfAppJS().write(toFile: scratch.path("rules.js"), atomically: true, encoding: .utf8)
        try PageAssets.icons.write(toFile: scratch.path("icons.svg"), atomically: true, encoding: .utf8)
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: scratch.path("input.json")))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/node")
        process.arguments = ["harness.js", "rules.js", "icons.svg", "input.json"].map(scratch.path)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "node: \(problem)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "node said: \(problem)")
    }

    @Test("every colour a card may have (names of any case, #rrggbb, seeded random ones) and every icon name")
    func appJSAgreesWithCardLook() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/node") else {
            try Test.cancel("node is not installed (Debian's nodejs; ./dev test installs it)")
        }
        let seed = TestSeeds.one("CARDS_LOOK_SEED")
        print("appJSAgreesWithCardLook: CARDS_LOOK_SEED=\(seed)")
        var random = SplitMix64(seed: seed)
        var colours = Card.colorNames + CardLook.colours.keys.sorted()
        colours += Card.colorNames.map { $0.uppercased() } + ["Pink", "#FF2D55", "#Ab12eF", "", "nope", "#fff"]
        // Every grey (the ink flips between black and white among them) and random colours.
        colours += (0..<256).map { String(format: "#%02x%02x%02x", $0, $0, $0) }
        colours += (0..<2000).map { _ in String(format: "#%06x", random.next() & 0xff_ffff) }
        var icons = CardLook.symbols.keys.sorted() + CardLook.iconAliases.keys.sorted()
        icons += ["GitHub", "X-Twitter", "MAIL", "", "nope", "id-card", "constructor", "toString", "i-github"]
        let answers = try Self.node(["colours": colours, "icons": icons], scratch: ScratchFolder())
        let hexes = try #require(answers["hex"] as? [String])
        let luminances = try #require(answers["luminance"] as? [Double])
        let onBlack = try #require(answers["onBlack"] as? [Double])
        let inks = try #require(answers["ink"] as? [String])
        let names = try #require(answers["icon"] as? [String])
        #expect(hexes.count == colours.count && names.count == icons.count)
        var differences = 0
        for (index, colour) in colours.enumerated() where index < hexes.count {
            let hex = CardLook.hex(for: colour)
            let same =
                hexes[index] == hex && inks[index] == CardLook.ink(for: hex)
                && abs(luminances[index] - CardLook.luminance(hex)) <= 1e-12
                && abs(onBlack[index] - CardLook.contrast(hex, "#000000")) <= 1e-9
            if !same, differences < 10 {
                let ours = "\(hex) ink \(CardLook.ink(for: hex)) luminance \(CardLook.luminance(hex))"
                let theirs = "\(hexes[index]) ink \(inks[index]) luminance \(luminances[index])"
                Issue.record("\(colour): app.js \(theirs); CardLook \(ours)")
            }
            differences += same ? 0 : 1
        }
        #expect(differences == 0)
        for (index, icon) in icons.enumerated() where index < names.count {
            #expect(names[index] == CardLook.iconName(for: icon), "icon \(icon)")
        }
        // What the rules give, checked against their meaning (not only against each other).
        #expect(CardLook.iconName(for: "X-Twitter") == "twitter" && CardLook.iconName(for: "nope") == "id-card")
        #expect(CardLook.hex(for: "pink") == "#ff2d55" && CardLook.ink(for: "#ff2d55") == "#000000")
        #expect(CardLook.ink(for: "#1c1c1e") == "#ffffff" && CardLook.hex(for: "#FF2D55") == "#ff2d55")
        #expect(abs(CardLook.contrast("#000000", "#ffffff") - 21) < 1e-12)
        #expect(Card.colorNames.allSatisfy { CardLook.colours[$0] != nil })
    }

    @Test("the ink reads at least 4.5:1 on colours across the cube and on every grey, by CardLook's numbers")
    func inkReadsOnEveryColour() {
        // The ink's contrast depends on the colour's luminance alone, which the 256 greys span from 0 to 1
        // (the worst, 4.58:1, is where black and white read alike, near luminance 0.18); a lattice of the
        // cube besides.
        var worst = 21.0
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) {
                    let hex = String(format: "#%02x%02x%02x", r, g, b)
                    worst = min(worst, CardLook.contrast(hex, CardLook.ink(for: hex)))
                }
            }
        }
        for v in 0..<256 {
            let hex = String(format: "#%02x%02x%02x", v, v, v)
            worst = min(worst, CardLook.contrast(hex, CardLook.ink(for: hex)))
        }
        #expect(worst >= 4.58, "the worst ink contrast is \(worst):1")
    }
}
