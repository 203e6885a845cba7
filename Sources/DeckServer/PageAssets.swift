import CardLook

/// The web page `cards serve` sends: Page/index.html, Page/app.css and Page/app.js, files of their own
/// (so they can be read, linted and tested as what they are) embedded in the binary at build time by
/// SwiftPM (`.embedInCode`), so the static `cards` carries them and the page needs no network.
///
/// The HTML holds no card text: the script fills the page with `textContent` only, and the
/// Content-Security-Policy (DeckService) forbids inline scripts, so even text that became markup could
/// run nothing.
public enum PageAssets {
    /// `/`: the shell of the page.
    static let html = String(decoding: PackageResources.index_html, as: UTF8.self)

    /// `/app.css`.
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)

    /// `/app.js`: draws the deck, records Pointer Events, mirrors the preset's geometry while a card is
    /// dragged, and sends each release's samples to the server, whose engine decides.
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)

    /// `/state.js`: the state kept in the deck (the stack's order, Undo, the banner when the server is gone).
    static let stateScript = String(decoding: PackageResources.state_js, as: UTF8.self)

    /// `/editor.js`: adding and editing a card, and the filter.
    static let editorScript = String(decoding: PackageResources.editor_js, as: UTF8.self)

    /// `/conflicts.js`: conflicted cards marked, both sides shown, a field's choices to pick from.
    static let conflictsScript = String(decoding: PackageResources.conflicts_js, as: UTF8.self)

    /// `/features.css`: the banner, the filter, the card form and the conflicts' marks.
    static let featureStyle = String(decoding: PackageResources.features_css, as: UTF8.self)

    /// `/engine.js`: the gesture engine mirrored step for step, so a release is predicted in its own frame.
    static let engine = String(decoding: PackageResources.engine_js, as: UTF8.self)

    /// `/icons.svg`: the platform glyphs (Fork Awesome 1.2.0 from Debian's fonts-fork-awesome, extracted
    /// by scripts/make-icon-sprite.py), one `<symbol id="i-NAME">` each; the page inlines them. The file is
    /// CardLook's, which `cards publish` draws from too.
    static let icons = CardLook.sprite

    /// `/icons-LICENSE.txt`: the glyphs' notice and the SIL Open Font License 1.1, which travels with them.
    static let iconsLicense = CardLook.spriteLicence

    /// The page's static files by path: their text and content type (one line here for a new file, beside its
    /// `.embedInCode` line in Package.swift).
    static let files: [String: (text: String, type: String)] = [
        "/": (html, "text/html; charset=utf-8"),
        "/app.css": (style, "text/css; charset=utf-8"),
        "/app.js": (script, "text/javascript; charset=utf-8"),
        "/engine.js": (engine, "text/javascript; charset=utf-8"),
        "/icons.svg": (icons, "image/svg+xml; charset=utf-8"),
        "/icons-LICENSE.txt": (iconsLicense, "text/plain; charset=utf-8"),
        "/state.js": (stateScript, "text/javascript; charset=utf-8"),
        "/editor.js": (editorScript, "text/javascript; charset=utf-8"),
        "/conflicts.js": (conflictsScript, "text/javascript; charset=utf-8"),
        "/features.css": (featureStyle, "text/css; charset=utf-8"),
    ]

    /// A page that sends the browser on to `url` at once (a refresh, and a link for a browser that does
    /// not follow one): the token's trade for the cookie, and `cards serve --open`'s private page. `url`
    /// is this server's own address, escaped all the same.
    public static func redirectPage(to url: String) -> String {
        let target = CardLook.htmlEscaped(url)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="refresh" content="0; url=\(target)">
            <title>Cards</title>
            </head>
            <body><p><a href="\(target)">Open the deck</a></p></body>
            </html>

            """
    }
}
