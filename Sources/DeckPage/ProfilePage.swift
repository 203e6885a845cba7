import CardLook
import CardModel

/// The static profile page `cards publish` writes: the owner as an h-card microformat, every card a link
/// with `rel="me"` (so Mastodon and IndieAuth take each link as the owner's own) drawn as `cards serve`
/// draws it (its colour, its ink, its platform's glyph), the vCard to download and the QR code of the
/// page's own address. No script, no date, nothing of the device: the same deck gives the same bytes
/// everywhere.
public enum ProfilePage {
    /// The page's file name.
    public static let pageFile = "index.html"
    /// The vCard file the page links to (vCard 3.0: what phones' contact apps read best).
    public static let vcardFile = "contact.vcf"
    /// The glyphs' notice and licence (SIL OFL 1.1), written beside the page that inlines them.
    public static let iconsLicenseFile = "icons-LICENSE.txt"
    /// The text of `iconsLicenseFile`: the notice and the licence that travel with the glyphs.
    public static var iconsLicense: [UInt8] { Array(CardLook.spriteLicence.utf8) }
    /// How a row names its glyph; card text, escaped, can never hold it (its `"` would be `&quot;`).
    static let iconMark = "<use href=\"#i-"

    /// One card's list item, as `document` takes it (made apart, on many threads for a big deck): the
    /// card drawn as `cards serve` draws it (CardLook): its colour edge to edge, its text in the ink that
    /// reads on it (as literal colours, so the page's contrast can be checked from the page alone), its
    /// platform's glyph.
    public static func row(_ card: Card) -> [UInt8] {
        let url = card.indexURL
        let isMail = url.lowercased().hasPrefix("mailto:")
        let background = CardLook.hex(for: card.color)
        var html = "<li><a class=\"card \(isMail ? "u-email" : "u-url")\" rel=\"me\" href=\"\(escaped(url))\" "
        html += "style=\"background:\(background);color:\(CardLook.ink(for: background))\">"
        html += "<span class=\"tile\"><svg class=\"glyph\" aria-hidden=\"true\">"
        html += "\(iconMark)\(CardLook.iconName(for: card.platformIcon))\"/></svg></span>"
        html += "<span class=\"text\"><span class=\"title\">\(escaped(card.title))</span>"
        if !card.platformName.isEmpty { html += "<span class=\"platform\">\(escaped(card.platformName))</span>" }
        html += "<span class=\"address\">\(escaped(shown(url)))</span></span></a></li>\n"
        return Array(html.utf8)
    }

    /// A link as a card shows it: without its scheme (`https://`, `mailto:`) or a lone trailing slash.
    static func shown(_ url: String) -> String {
        var text = Substring(url)
        for scheme in ["https://", "http://", "mailto:"] where text.lowercased().hasPrefix(scheme) {
            text = text.dropFirst(scheme.count)
            break
        }
        if text.hasSuffix("/"), text.dropLast().firstIndex(of: "/") == nil { text = text.dropLast() }
        return text.isEmpty ? url : String(text)
    }

    /// The whole page: `rows` made by `row` in deck order; `pageURL` the address the page is published
    /// at (the h-card's `u-uid`, and the `qrSVG` under it), when given.
    public static func document(
        owner: DeckOwner?, deckName: String, rows: [[UInt8]], pageURL: String?, qrSVG: String?
    ) -> [UInt8] {
        let name = owner?.name ?? deckName
        var head = """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="cards publish">
            <title>\(escaped(name))</title>

            """
        if let pageURL { head += "<link rel=\"canonical\" href=\"\(escaped(pageURL))\">\n" }
        head += "<style>\n\(style)</style>\n</head>\n<body>\n\(sprite(usedIcons(rows)))"
        head += "<main class=\"h-card\">\n<header>\n"
        head += "<h1 class=\"p-name\">\(escaped(name))</h1>\n"
        if let owner, !owner.pronouns.isEmpty {
            head += "<p class=\"pronouns\"><span class=\"p-pronouns\">\(escaped(owner.pronouns))</span></p>\n"
        }
        if let owner, !owner.note.isEmpty {
            let lines = owner.note.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }
            head += "<p class=\"p-note\">\(lines.joined(separator: "<br>\n"))</p>\n"
        }
        if let pageURL { head += "<a class=\"u-uid\" rel=\"me\" href=\"\(escaped(pageURL))\" hidden></a>\n" }
        head += "</header>\n<ul class=\"cards\">\n"
        var out = Array(head.utf8)
        out.reserveCapacity(out.count + rows.count * 320 + 8192)
        for row in rows { out += row }
        var tail = "</ul>\n<footer>\n"
        tail +=
            "<p class=\"share\"><a rel=\"me\" href=\"\(vcardFile)\" download type=\"text/vcard\">Add to contacts</a></p>\n"
        if let qrSVG, let pageURL {
            tail += "<figure class=\"qr\">\n\(qrSVG)<figcaption>\(escaped(pageURL))</figcaption>\n</figure>\n"
        }
        tail += "</footer>\n</main>\n</body>\n</html>\n"
        out += Array(tail.utf8)
        return out
    }

    /// The glyphs `rows` draw, sorted (a set's order differs from one run to the next; the page must not).
    static func usedIcons(_ rows: [[UInt8]]) -> [String] {
        let mark = Array(iconMark.utf8)
        var names: Set<String> = []
        for row in rows {
            guard let end = row.firstRange(of: mark)?.upperBound else { continue }
            let name = row[end...].prefix { $0 != UInt8(ascii: "\"") }
            names.insert(String(decoding: name, as: UTF8.self))
        }
        return names.sorted()
    }

    /// The sprite's symbols for `names` only (a page of three cards carries three glyphs, not forty-five).
    static func sprite(_ names: [String]) -> String {
        let symbols = names.compactMap { CardLook.symbols[$0] }
        guard !symbols.isEmpty else { return "" }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" style=\"display:none\">\n"
            + "<!-- Fork Awesome 1.2.0 glyphs, SIL Open Font License 1.1: see \(iconsLicenseFile) beside this page. -->\n"
            + symbols.joined(separator: "\n") + "\n</svg>\n"
    }

    /// `text` safe in HTML text and in a double-quoted attribute (CardLook's, which `cards serve` uses too).
    public static func escaped(_ text: String) -> String { CardLook.htmlEscaped(text) }

    /// The look of `cards serve`'s cards (Sources/DeckServer/Page/app.css): each card in its own colour edge
    /// to edge with its text in the ink of its inline style, its glyph in a tile ringed in that ink; the
    /// page's own colours those of app.css, at least 4.5:1 in light and in dark.
    static let style = """
        :root { color-scheme: light dark; --bg: #f2f2f7; --fg: #1c1c1e; --muted: #5c5c61; --edge: #0000002e;
          --accent: #0058d0; --on-accent: #ffffff; --focus: #0058d0; }
        @media (prefers-color-scheme: dark) { :root { --bg: #000000; --fg: #f2f2f7; --muted: #a1a1a6;
          --edge: #ffffff59; --accent: #5aa9ff; --on-accent: #000000; --focus: #8cc4ff; } }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
        main { max-width: 560px; margin: 0 auto; padding: 24px 16px 48px; }
        header { text-align: center; margin-bottom: 20px; }
        h1 { font-size: 28px; margin: 8px 0 4px; overflow-wrap: anywhere; }
        .pronouns, .p-note { color: var(--muted); margin: 4px 0; overflow-wrap: anywhere; }
        .cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
        .card { display: flex; align-items: center; gap: 14px; min-height: 44px; padding: 16px;
          border-radius: 18px; border: 1px solid var(--edge); box-shadow: 0 4px 14px #00000024; text-decoration: none; }
        .card:focus-visible { outline: 3px solid var(--focus); outline-offset: 3px; }
        .tile { flex: none; width: 56px; height: 56px; border-radius: 14px; border: 2px solid currentColor;
          display: grid; place-items: center; }
        .glyph { width: 30px; height: 30px; fill: currentColor; }
        .text { display: grid; gap: 2px; min-width: 0; }
        .title { font-size: 20px; font-weight: 750; overflow-wrap: anywhere; }
        .platform { font-size: 16px; overflow-wrap: anywhere; }
        .address { font-size: 15px; text-decoration: underline; overflow-wrap: anywhere; }
        footer { text-align: center; margin-top: 28px; }
        .share a { display: inline-block; min-height: 44px; padding: 11px 20px; border-radius: 22px;
          background: var(--accent); color: var(--on-accent); text-decoration: none; font-weight: 700; }
        .share a:focus-visible { outline: 3px solid var(--focus); outline-offset: 3px; }
        .qr { margin: 24px auto 0; }
        .qr svg { width: 200px; height: 200px; border-radius: 8px; }
        .qr figcaption { color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }

        """
}
