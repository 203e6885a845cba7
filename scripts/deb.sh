#!/usr/bin/env bash
# Builds a Debian package of a built `cards` (what `./dev deb` runs):
#   scripts/deb.sh BINARY [OUTPUT_FOLDER]    (default: the current folder)
# Prints the .deb's path. The files are those of scripts/install.sh under /usr (the man page gzipped,
# as Debian's policy asks); Depends is what dpkg-shlibdeps reads off the binary's needed libraries
# (libc6 only, for the static build). libssh2 and GSSAPI, loaded only when an ssh:// remote or
# Kerberos authentication needs them, are Recommends and Suggests; git, the default transport of
# fetch and push, a Recommends.
set -euo pipefail
binary=$(realpath "${1:?usage: scripts/deb.sh BINARY [OUTPUT_FOLDER]}")
out=$(realpath "${2:-.}")
here="$(cd "$(dirname "$0")/.." && pwd)"
version=$("$binary" --version)
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/cards_${version}_$arch"

DESTDIR="$stage" "$here/scripts/install.sh" install "$binary" /usr 2>/dev/null
gzip -9n "$stage/usr/share/man/man1/cards.1"
gzip -9n "$stage/usr/share/doc/cards/CHANGELOG.md"
mv "$stage/usr/share/doc/cards/CHANGELOG.md.gz" "$stage/usr/share/doc/cards/changelog.gz"

# dpkg-shlibdeps works in a source package's tree: a minimal one beside the staged files.
mkdir -p "$work/src/debian"
printf 'Source: cards\n\nPackage: cards\nArchitecture: any\n' > "$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$stage/usr/bin/cards" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "error: dpkg-shlibdeps found no dependencies for $binary (is dpkg-dev installed?)" >&2; exit 1; }
size=$(du -sk "$stage/usr" | cut -f1)

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: cards
Version: $version
Architecture: $arch
Maintainer: CardDeck developers <carddeck@localhost>
Installed-Size: $size
Depends: $depends
Recommends: git, libssh2-1
Suggests: libgssapi-krb5-2
Section: utils
Priority: optional
Description: deck of identity cards kept in git, synced through any git remote
 cards keeps the links people put on a profile card (GitHub, Mastodon, a
 personal site, an email address) as one JSON file per card in a git
 repository. Every change is a git commit; any git remote carries the deck
 between devices, and decks that changed apart are merged card by card and
 field by field. Includes the man page cards(1) and bash, zsh and fish
 completions.
CONTROL
deb="$out/cards_${version}_$arch.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" >/dev/null
echo "$deb"
