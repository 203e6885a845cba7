import CardModel

/// The static profile page `cards publish` writes: the owner as an h-card microformat, every card a link
/// with `rel="me"` (so Mastodon and IndieAuth take each link as the owner's own) in its colour, the vCard
/// to download and the QR code of the page's own address. No script, no date, nothing of the device: the
/// same deck gives the same bytes everywhere.
public enum ProfilePage {
    /// The page's file name.
    public static let pageFile = "index.html"
    /// The vCard file the page links to (vCard 3.0: what phones' contact apps read best).
    public static let vcardFile = "contact.vcf"

    /// One card's list item, as `document` takes it (made apart, on many threads for a big deck).
    public static func row(_ card: Card) -> [UInt8] {
        let url = card.indexURL
        let isMail = url.lowercased().hasPrefix("mailto:")
        let platform = card.platformName
        let glyph = platform.first.map { String($0).uppercased() } ?? (isMail ? "@" : "↗")
        var html = "<li style=\"--card-color: \(escaped(card.color))\">"
        html += "<a class=\"\(isMail ? "u-email" : "u-url")\" rel=\"me\" href=\"\(escaped(url))\">"
        html += "<span class=\"icon\" aria-hidden=\"true\""
        if !card.platformIcon.isEmpty { html += " data-icon=\"\(escaped(card.platformIcon))\"" }
        html += ">\(escaped(glyph))</span>"
        html += "<span class=\"text\"><span class=\"title\">\(escaped(card.title))</span>"
        if !platform.isEmpty { html += "<span class=\"platform\">\(escaped(platform))</span>" }
        html += "</span></a></li>\n"
        return Array(html.utf8)
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
        head += "<style>\n\(style)</style>\n</head>\n<body>\n<main class=\"h-card\">\n<header>\n"
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

    /// `text` safe in HTML text and in a double-quoted attribute.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The look of `cards serve`'s list: light and dark, each card's colour on its edge and its glyph.
    static let style = """
        :root { color-scheme: light dark; --bg: #f2f2f7; --fg: #1c1c1e; --card: #ffffff; --muted: #6c6c70; }
        @media (prefers-color-scheme: dark) { :root { --bg: #000; --fg: #f2f2f7; --card: #1c1c1e; --muted: #98989d; } }
        html, body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
        main { max-width: 560px; margin: 0 auto; padding: 24px 16px 48px; }
        header { text-align: center; margin-bottom: 20px; }
        h1 { font-size: 28px; margin: 8px 0 4px; overflow-wrap: anywhere; }
        .pronouns, .p-note { color: var(--muted); margin: 4px 0; overflow-wrap: anywhere; }
        .cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
        .cards a { display: flex; align-items: center; gap: 12px; min-height: 44px; padding: 12px 14px;
          background: var(--card); color: var(--fg); text-decoration: none; border-radius: 14px;
          border-left: 8px solid var(--card-color, #8e8e93); box-shadow: 0 2px 8px #0002; }
        .cards a:focus-visible { outline: 3px solid #0a84ff; outline-offset: 2px; }
        .icon { flex: none; width: 36px; height: 36px; border-radius: 50%; display: grid; place-items: center;
          background: var(--card-color, #8e8e93); color: #fff; font-weight: 700; }
        .text { display: grid; min-width: 0; }
        .title { font-weight: 600; overflow-wrap: anywhere; }
        .platform { color: var(--muted); font-size: 14px; }
        footer { text-align: center; margin-top: 28px; }
        .share a { display: inline-block; padding: 10px 18px; border-radius: 22px; background: #0a84ff; color: #fff;
          text-decoration: none; font-weight: 600; }
        .qr { margin: 24px auto 0; }
        .qr svg { width: 200px; height: 200px; }
        .qr figcaption { color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }

        """
}
