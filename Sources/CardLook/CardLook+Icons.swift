extension CardLook {
    /// The glyphs: icons.svg, Fork Awesome 1.2.0 from Debian's fonts-fork-awesome extracted by
    /// scripts/make-icon-sprite.py, one `<symbol id="i-NAME">` each. `cards serve` sends it whole;
    /// `cards publish` inlines the symbols its page uses.
    public static let sprite = String(decoding: PackageResources.icons_svg, as: UTF8.self)

    /// icons-LICENSE.txt: the glyphs' notice and the SIL Open Font License 1.1, which travels with them
    /// (served beside the sprite, written beside a published page).
    public static let spriteLicence = String(decoding: PackageResources.icons_LICENSE_txt, as: UTF8.self)

    /// The glyph of a card whose icon the sprite lacks: a neutral identity card.
    public static let neutralIcon = "id-card"

    /// The card format's usual icon names that the sprite names otherwise.
    public static let iconAliases: [String: String] = [
        "x-twitter": "twitter", "x": "twitter", "mail": "envelope", "email": "envelope", "web": "globe",
        "website": "globe", "homepage": "globe", "stackoverflow": "stack-overflow", "youtube-play": "youtube",
        "wechat": "weixin", "matrix": "matrix-org", "linkedin-in": "linkedin", "square-github": "github",
    ]

    /// Each symbol of the sprite by its name (the id without `i-`), its whole `<symbol …>…</symbol>`.
    public static let symbols: [String: String] = {
        var found: [String: String] = [:]
        for part in sprite.split(separator: "<symbol ").dropFirst() {
            guard let end = part.firstRange(of: "</symbol>"), part.hasPrefix("id=\"i-") else { continue }
            let name = part.dropFirst(6).prefix { $0 != "\"" }
            found[String(name)] = "<symbol " + part[..<end.upperBound]
        }
        return found
    }()

    /// The sprite's symbol for a card's `platformIcon`: the name itself (any case) or its alias when the
    /// sprite has it, `neutralIcon` otherwise (an empty icon too).
    public static func iconName(for platformIcon: String) -> String {
        let name = platformIcon.lowercased()
        let known = iconAliases[name] ?? name
        return !known.isEmpty && symbols[known] != nil ? known : neutralIcon
    }
}
