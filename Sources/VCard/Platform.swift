import CardModel

/// A platform a card's link can be on, recognised from a vCard's service type or a URL's host.
public struct Platform: Hashable, Sendable {
    /// The display name (`platformName`), also written as the vCard's service type.
    public var name: String
    /// The icon name (`platformIcon`).
    public var icon: String
    /// The card colour a card of this platform gets when imported.
    public var color: String
    /// Host names whose URLs are this platform's (a host matches itself and its subdomains).
    var hosts: [String]
    /// Other service-type words for it (`twitter` for X).
    var aliases: [String] = []

    /// The platforms recognised: those of the sample deck and the common profile sites.
    public static let known: [Platform] = [
        Platform(name: "GitHub", icon: "github", color: "black", hosts: ["github.com"]),
        Platform(name: "GitLab", icon: "gitlab", color: "orange", hosts: ["gitlab.com"]),
        Platform(name: "LinkedIn", icon: "linkedin", color: "blue", hosts: ["linkedin.com"]),
        Platform(
            name: "Mastodon", icon: "mastodon", color: "purple",
            hosts: ["mastodon.social", "mastodon.online", "mas.to", "fosstodon.org", "hachyderm.io", "mstdn.social"]),
        Platform(name: "X", icon: "x-twitter", color: "black", hosts: ["x.com", "twitter.com"], aliases: ["twitter"]),
        Platform(name: "Bluesky", icon: "bluesky", color: "#1185fe", hosts: ["bsky.app"]),
        Platform(name: "Instagram", icon: "instagram", color: "#e1306c", hosts: ["instagram.com"]),
        Platform(name: "YouTube", icon: "youtube", color: "red", hosts: ["youtube.com", "youtu.be"]),
        Platform(
            name: "Stack Overflow", icon: "stack-overflow", color: "orange", hosts: ["stackoverflow.com"],
            aliases: ["stackoverflow"]),
        Platform(name: "npm", icon: "npm", color: "red", hosts: ["npmjs.com"]),
        Platform(name: "Weibo", icon: "weibo", color: "red", hosts: ["weibo.com", "weibo.cn"]),
        Platform(name: "Bilibili", icon: "bilibili", color: "pink", hosts: ["bilibili.com"]),
        Platform(name: "Zhihu", icon: "zhihu", color: "blue", hosts: ["zhihu.com"]),
        Platform(name: "Medium", icon: "medium", color: "black", hosts: ["medium.com"]),
        Platform(name: "Telegram", icon: "telegram", color: "#229ed9", hosts: ["t.me", "telegram.me"]),
        Platform(name: "Facebook", icon: "facebook", color: "blue", hosts: ["facebook.com"]),
        Platform(name: "Reddit", icon: "reddit", color: "orange", hosts: ["reddit.com"]),
        Platform(name: "Email", icon: "envelope", color: "gray", hosts: [], aliases: ["e-mail", "mail"]),
        Platform(name: "Website", icon: "globe", color: "teal", hosts: [], aliases: ["web", "homepage", "home"]),
    ]

    /// The platform a service type names (`GitHub`, `twitter`), compared without case; nil when unknown.
    public static func named(_ serviceType: String) -> Platform? {
        let word = serviceType.lowercased()
        return known.first { $0.name.lowercased() == word || $0.aliases.contains(word) }
    }

    /// The platform of a URL: by its host (or a parent domain of it); a `mailto:` URL is Email; a
    /// profile path `/@name` on another host is taken for Mastodon (its profile URLs' form); nil else.
    public static func of(url: String) -> Platform? {
        let lowered = url.lowercased()
        if lowered.hasPrefix("mailto:") { return named("Email") }
        guard let host = host(of: lowered) else { return nil }
        if let platform = known.first(where: { $0.hosts.contains { host == $0 || host.hasSuffix("." + $0) } }) {
            return platform
        }
        let path = lowered.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" }
        if path.hasPrefix("/@"), !path.dropFirst(2).contains("/"), path.count > 2 { return named("Mastodon") }
        return nil
    }

    /// The host of an `http`/`https` URL (lowercase, no port, no user, an IPv6 literal without its
    /// brackets), or nil: `Card.webHost`, which a card's link is checked by.
    public static func host(of url: String) -> String? {
        guard let host = Card.webHost(of: url.lowercased()), !host.isEmpty else { return nil }
        return String(host)
    }
}
