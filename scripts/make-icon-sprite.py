#!/usr/bin/python3
"""Writes Sources/CardLook/icons.svg: the platform glyphs that `cards serve` and `cards publish` draw, as an
SVG sprite.

Run at development time (the sprite is committed; the build needs nothing): the glyphs come from Fork
Awesome 1.2.0 as Debian packages it (fonts-fork-awesome, /usr/share/fonts/svg/fork-awesome/
forkawesome-webfont.svg), a fork of Font Awesome 4.7 with more brands (Mastodon, Matrix, Keybase).
The font is under the SIL Open Font License 1.1; CardLook/icons-LICENSE.txt carries the notice and the
licence text (from Debian's copyright file). A card's `platformIcon` names a symbol (`i-github`); the
pages map the card format's names (`x-twitter`, `mail`) to these (CardLook.iconAliases, app.js's copy).

    scripts/make-icon-sprite.py [--font PATH] [--out PATH]
"""
import argparse
import html
import re
import sys

# The sprite's names: the card format's usual icon names, each a Fork Awesome glyph name.
GLYPHS = {
    "github": "github", "gitlab": "gitlab", "twitter": "twitter", "instagram": "instagram",
    "linkedin": "linkedin", "medium": "medium", "stack-overflow": "stack-overflow", "telegram": "telegram",
    "weibo": "weibo", "youtube": "youtube-play", "envelope": "envelope", "globe": "globe",
    "mastodon": "mastodon", "facebook": "facebook", "reddit": "reddit", "weixin": "weixin",
    "discord": "discord", "twitch": "twitch", "qq": "qq", "snapchat": "snapchat", "pinterest": "pinterest",
    "whatsapp": "whatsapp", "xing": "xing", "codepen": "codepen", "dribbble": "dribbble",
    "behance": "behance", "keybase": "keybase", "matrix-org": "matrix-org", "phone": "phone",
    "skype": "skype", "slack": "slack", "spotify": "spotify", "soundcloud": "soundcloud",
    "flickr": "flickr", "tumblr": "tumblr", "vimeo": "vimeo", "steam": "steam", "paypal": "paypal",
    "wikipedia": "wikipedia-w", "rss": "rss", "link": "link", "id-card": "id-card-o",
    # The page's own buttons.
    "trash": "trash", "check": "check", "undo": "undo",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--font", default="/usr/share/fonts/svg/fork-awesome/forkawesome-webfont.svg")
    parser.add_argument("--out", default="Sources/CardLook/icons.svg")
    options = parser.parse_args()
    text = open(options.font, encoding="utf-8").read()
    face = re.search(r"<font-face[^>]*>", text, re.S).group(0)
    ascent = float(re.search(r'ascent="([-0-9.]+)"', face).group(1))
    em = float(re.search(r'units-per-em="([-0-9.]+)"', face).group(1))
    default_advance = float(re.search(r'<font[^>]*horiz-adv-x="([0-9.]+)"', text).group(1))
    glyphs = {}
    for match in re.finditer(r"<glyph\b([^>]*)/>", text, re.S):
        attributes = dict(re.findall(r'([a-z-]+)="([^"]*)"', match.group(1)))
        if "glyph-name" in attributes and "d" in attributes:
            glyphs[attributes["glyph-name"]] = attributes
    symbols = []
    for name, glyph_name in GLYPHS.items():
        glyph = glyphs.get(glyph_name)
        if glyph is None:
            sys.exit("no glyph %r in %s" % (glyph_name, options.font))
        advance = float(glyph.get("horiz-adv-x", default_advance))
        path = re.sub(r"\s+", " ", glyph["d"]).strip()
        # Font units grow upward from the baseline; SVG's y grows downward from the top: flip about the ascent.
        symbols.append('<symbol id="i-%s" viewBox="0 0 %g %g"><path transform="matrix(1 0 0 -1 0 %g)" d="%s"/>'
                       "</symbol>" % (name, advance, em, ascent, html.escape(path)))
    with open(options.out, "w", encoding="utf-8") as out:
        out.write('<svg xmlns="http://www.w3.org/2000/svg">\n<!-- Fork Awesome 1.2.0 glyphs (SIL OFL 1.1, see '
                  "icons-LICENSE.txt), extracted by scripts/make-icon-sprite.py from Debian's fonts-fork-awesome. "
                  "-->\n")
        out.write("\n".join(symbols))
        out.write("\n</svg>\n")


if __name__ == "__main__":
    main()
