import Foundation
import TestSupport
import Testing

/// `cards qr` read back by zbarimg, `cards publish` parsed by an h-card parser (PyPI's mf2py) and
/// published from two devices.
@Suite struct PublishCLITests {
    static func zbarimg(_ scratch: Scratch, _ file: String) throws -> String {
        let result = try scratch.run("/usr/bin/zbarimg", ["--quiet", "--raw", "-Sbinary", file])
        #expect(result.status == 0, "zbarimg read no code in \(file): \(result.stderr)")
        return result.stdout
    }

    @Test func qrCodesReadBack() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else {
            try Test.cancel("zbar-tools is not installed (./dev test installs it)")
        }
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["owner", "--name", "Ada Lovelace"], in: deck).status == 0)
        let card = try scratch.cards(
            ["qr", "6513", "--png", scratch.path("card.png"), "--svg", scratch.path("card.svg")], in: deck)
        #expect(card.status == 0, "\(card.stderr)")
        #expect(try Self.zbarimg(scratch, scratch.path("card.png")) == "https://github.com/adalovelace")
        #expect(try String(contentsOfFile: scratch.path("card.svg"), encoding: .utf8).hasPrefix("<svg "))
        // The deck's contact: a vCard that a new deck imports into the same links.
        #expect(try scratch.cards(["qr", "--png", scratch.path("deck.png")], in: deck).status == 0)
        let contact = try Self.zbarimg(scratch, scratch.path("deck.png"))
        #expect(contact.hasPrefix("BEGIN:VCARD\r\nVERSION:3.0\r\n") && contact.contains("FN:Ada Lovelace\r\n"))
        try contact.write(toFile: scratch.path("contact.vcf"), atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["init", scratch.path("phone")]).status == 0)
        let imported = try scratch.cards(["import", scratch.path("contact.vcf")], in: scratch.path("phone"))
        #expect(imported.stdout.contains("16 added"), "\(imported.stdout)\(imported.stderr)")
        // Printed for a terminal: half blocks, dark on light without colours (NO_COLOR is set here).
        let printed = try scratch.cards(["qr", "6513"], in: deck)
        #expect(printed.status == 0 && printed.stdout.contains("▀") && !printed.stdout.contains("\u{1B}["))
        let missing = try scratch.cards(["qr", "ffffffff"], in: deck)
        #expect(missing.status != 0)
    }

    /// On a terminal (script's pseudo-terminal): the code in real ANSI colours, never shown as text, and a
    /// code wider than the terminal said so, with the ways out.
    @Test func qrOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            try Test.cancel("script (util-linux) is not installed: it gives the command a terminal")
        }
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        func onTerminal(columns: Int, _ arguments: String) throws -> RunResult {
            let command = "stty cols \(columns) rows 60; env -u NO_COLOR \"\(Binaries.cards)\" qr \(arguments)"
            return try scratch.run("/usr/bin/script", ["-qec", command, "/dev/null"], in: deck)
        }
        let wide = try onTerminal(columns: 200, "6513")
        #expect(wide.status == 0, "\(wide.stdout)")
        #expect(wide.stdout.contains("\u{1B}[30;107m") && wide.stdout.contains("\u{1B}[0m"), "\(wide.stdout)")
        #expect(!wide.stdout.contains("\\x1B") && !wide.stdout.contains("columns wide"), "\(wide.stdout)")
        let narrow = try onTerminal(columns: 40, "")
        #expect(narrow.status == 0, "\(narrow.stdout)")
        #expect(narrow.stdout.contains("columns wide and the terminal 40"), "\(narrow.stdout)")
        #expect(narrow.stdout.contains("--png FILE") && narrow.stdout.contains("give a card's id"), "\(narrow.stdout)")
    }

    /// The page parsed by mf2py: the owner's h-card (name, note, pronouns, uid), every card's URL, and
    /// rel="me" on every link.
    @Test func publishedPageIsAnHCardWithRelMe() throws {
        // Debian's python3, where python3-mf2py installs (a pyenv or venv python3 on PATH lacks it).
        let python = ["/usr/bin/python3"]
        let scratch = try Scratch()
        guard (try scratch.run(python[0], ["-c", "import mf2py"])).status == 0 else {
            try Test.cancel("python3-mf2py is not installed (./dev test installs it)")
        }
        let deck = try scratch.sampleDeck()
        #expect(
            try scratch.cards(
                ["owner", "--name", "Ada <Lovelace> & co", "--note", "Poet\nof science", "--pronouns", "she/her"],
                in: deck
            ).status == 0)
        let site = scratch.path("site/public")
        let published = try scratch.cards(["publish", site, "--url", "https://ada.example/"], in: deck)
        #expect(published.status == 0, "\(published.stderr)")
        let script = """
            import sys, json, mf2py
            from html.parser import HTMLParser
            html = open(sys.argv[1], encoding="utf-8").read()
            parsed = mf2py.parse(doc=html, url="https://ada.example/")
            card = [i for i in parsed["items"] if "h-card" in i["type"]][0]["properties"]
            class Links(HTMLParser):
                links, without, scripts = 0, 0, 0
                def handle_starttag(self, tag, attrs):
                    attrs = dict(attrs)
                    if tag == "a":
                        Links.links += 1
                        if "me" not in (attrs.get("rel") or "").split(): Links.without += 1
                    if tag == "script": Links.scripts += 1
            Links().feed(html)
            print(json.dumps({"name": card["name"], "note": card["note"], "pronouns": card.get("pronouns"),
                "uid": card["uid"], "urls": len(card.get("url", [])), "emails": card.get("email"),
                "links": Links.links, "without": Links.without, "scripts": Links.scripts,
                "me": len(parsed["rels"].get("me", []))}, sort_keys=True))
            """
        let read = try scratch.run("/usr/bin/python3", ["-c", script, site + "/index.html"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(
            read.stdout
                == #"{"emails": ["mailto:ada@ada.dev"], "links": 18, "me": 18, "name": ["Ada <Lovelace> & co"], "#
                + #""note": ["Poet\nof science"], "pronouns": ["she/her"], "scripts": 0, "uid": ["https://ada.example/"], "#
                + #""urls": 15, "without": 0}"# + "\n")
        // The vCard the page offers is the deck's.
        let vcard = try String(contentsOfFile: site + "/contact.vcf", encoding: .utf8)
        #expect(vcard == (try scratch.cards(["export", "--format", "vcard3"], in: deck).stdout))
    }

    /// WCAG 2's contrast of two `#rrggbb` colours, computed here apart from the page's code (CardLook).
    static func contrast(_ first: String, _ second: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16) ?? -1
            #expect(hex.count == 7 && value >= 0, "\(hex) is not #rrggbb")
            let channels = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map { (byte: Int) -> Double in
                let c = Double(byte) / 255
                return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        }
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Each card drawn as `cards serve` draws it: in its colour with text that reads on it (at least 4.5:1,
    /// from the page's own inline styles), every colour a card may have; its platform's glyph, inlined once,
    /// a neutral glyph for an icon the sprite lacks; no script; the glyphs' licence beside the page.
    @Test func publishedCardsReadInTheirColoursWithTheirGlyphs() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        var colours = [
            "red", "green", "blue", "yellow", "purple", "orange", "pink", "teal", "indigo", "brown", "gray", "black",
            "white", "#777777", "#0000FF", "#767676", "#ffffff", "#000000", "#7f7f7f",
        ]
        // Seeded random colours too: ink must read on any of them.
        let seed = TestSeeds.one("CARDS_PUBLISH_COLOUR_SEED")
        print("publishedCardsReadInTheirColoursWithTheirGlyphs: CARDS_PUBLISH_COLOUR_SEED=\(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<12 { colours.append(String(format: "#%06x", random.next() & 0xff_ffff)) }
        for (index, colour) in colours.enumerated() {
            let icon = ["github", "x-twitter", "mail", "no-such-glyph"][index % 4]
            let added = try scratch.cards(
                ["add", "--title", "Colour \(index)", "--url", "https://example.com/\(index)", "--color", colour]
                    + ["--icon", icon], in: deck)
            #expect(added.status == 0, "\(colour): \(added.stderr)")
        }
        let site = scratch.path("site")
        let published = try scratch.cards(["publish", site], in: deck)
        #expect(published.status == 0, "\(published.stderr)")
        let html = try String(contentsOfFile: site + "/index.html", encoding: .utf8)
        #expect(!html.lowercased().contains("<script") && !html.lowercased().contains("javascript:"))
        let cards = html.components(separatedBy: "<a class=\"card ").dropFirst()
        #expect(cards.count == 16 + colours.count)
        var used: [String: Int] = [:]
        var iconsByTitle: [String: String] = [:]
        for card in cards {
            let style = card.components(separatedBy: "style=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
            let parts = style.split(separator: ";").map { $0.split(separator: ":", maxSplits: 1).map(String.init) }
            let background = parts.first { $0.first == "background" }?.last ?? ""
            let ink = parts.first { $0.first == "color" }?.last ?? ""
            let ratio = Self.contrast(background, ink)
            #expect(ratio >= 4.5, "\(ink) on \(background) is \(ratio):1 (\(card.prefix(120)))")
            let icon = card.components(separatedBy: "<use href=\"#i-").dropFirst().first?.prefix { $0 != "\"" }
            let title = card.components(separatedBy: "<span class=\"title\">").dropFirst().first?.prefix {
                $0 != "<"
            }
            used[String(icon ?? ""), default: 0] += 1
            iconsByTitle[String(title ?? "")] = String(icon ?? "")
        }
        // Known platforms by their names and aliases; the others (Bilibili, Zhihu, Bluesky, npm in
        // the sample deck, and no-such-glyph) the neutral card.
        #expect(iconsByTitle["Ada Lovelace on GitHub"] == "github" && iconsByTitle["Ada on X"] == "twitter")
        #expect(iconsByTitle["Write to Ada"] == "envelope" && iconsByTitle["Ada on Telegram"] == "telegram")
        #expect(iconsByTitle["艾达 on Bilibili"] == "id-card" && iconsByTitle["Ada on Bluesky"] == "id-card")
        #expect(iconsByTitle["Colour 0"] == "github" && iconsByTitle["Colour 1"] == "twitter")
        #expect(iconsByTitle["Colour 2"] == "envelope" && iconsByTitle["Colour 3"] == "id-card")
        // Each glyph used is in the page once, and no other.
        let symbols = html.components(separatedBy: "<symbol id=\"i-").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(symbols.sorted() == used.keys.sorted() && Set(symbols).count == symbols.count, "\(symbols)")
        #expect(html.contains("<path") && html.contains("SIL Open Font License 1.1: see icons-LICENSE.txt"))
        let licence = try String(contentsOfFile: site + "/icons-LICENSE.txt", encoding: .utf8)
        #expect(licence.contains("SIL OPEN FONT LICENSE Version 1.1") && licence.contains("Fork Awesome"))
    }

    /// Two devices publishing the same deck write the same bytes; the pages branch gets a commit only
    /// when the page changed, and holds the files as written.
    @Test func twoDevicesPublishIdenticalBytesAndTheBranchMovesOnlyOnChange() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["laptop", "phone"])
        #expect(try scratch.cards(["owner", "--name", "Ada"], in: clones[0]).status == 0)
        #expect(try scratch.cards(["sync"], in: clones[0]).status == 0)
        #expect(try scratch.cards(["sync"], in: clones[1]).status == 0)
        for (index, clone) in clones.enumerated() {
            let result = try scratch.cards(
                ["publish", scratch.path("out\(index)"), "--url", "https://ada.example/", "--branch", "pages"],
                in: clone)
            #expect(result.status == 0 && result.stdout.contains("Committed the page to pages"), "\(result.stderr)")
        }
        for file in ["index.html", "contact.vcf", "icons-LICENSE.txt"] {
            let one = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out0/\(file)")))
            #expect(one == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("out1/\(file)")))))
            let committed = try scratch.git(["show", "pages:\(file)"], in: clones[0]).stdout
            #expect(Data(committed.utf8) == one)
        }
        let laptop = clones[0]
        let again = try scratch.cards(
            ["publish", scratch.path("out0"), "--url", "https://ada.example/", "--branch", "pages"], in: laptop)
        #expect(again.stdout.contains("already so"), "\(again.stdout)")
        #expect(try scratch.git(["rev-list", "--count", "pages"], in: laptop).stdout == "1\n")
        #expect(
            try scratch.cards(["add", "--title", "New", "--url", "https://example.com/new"], in: laptop).status == 0)
        #expect(try scratch.cards(["publish", scratch.path("out0"), "--branch", "pages"], in: laptop).status == 0)
        #expect(try scratch.git(["rev-list", "--count", "pages"], in: laptop).stdout == "2\n")
        #expect(try scratch.git(["show", "pages:index.html"], in: laptop).stdout.contains("https://example.com/new"))
        // main is never the page's branch.
        let refused = try scratch.cards(["publish", scratch.path("out0"), "--branch", "main"], in: laptop)
        #expect(refused.status != 0 && refused.stderr.contains("--branch"))
        // Refused before anything is written: no folder made, nothing said of one.
        let nowhere = try scratch.cards(["publish", scratch.path("never"), "--branch", "main"], in: laptop)
        #expect(nowhere.status != 0 && !nowhere.stdout.contains("Wrote"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("never")))
        try scratch.expectClean(laptop)
    }
}
