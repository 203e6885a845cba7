#!/usr/bin/env bash
# Puts a built `cards` where a Linux tool goes, or takes it away (what `./dev install`, `./dev uninstall`
# and `./dev deb` run):
#   scripts/install.sh install BINARY [PREFIX]    (PREFIX default /usr/local; DESTDIR honoured)
#   scripts/install.sh uninstall [PREFIX]
# The man page and the completion scripts are printed by the binary itself (`cards __manpage`,
# `cards completions SHELL`), from the command specs `--help` shows, so they cannot drift from it.
set -euo pipefail

# Every file installed, relative to PREFIX, one per line: uninstall removes exactly these.
files() {
  local prefix=$1
  echo "bin/cards"
  echo "share/man/man1/cards.1"
  echo "share/bash-completion/completions/cards"
  # zsh: Debian's zsh reads its packages' completions from vendor-completions, others' from site-functions.
  if [ "$prefix" = /usr ]; then echo "share/zsh/vendor-completions/_cards"; else echo "share/zsh/site-functions/_cards"; fi
  echo "share/fish/vendor_completions.d/cards.fish"
  echo "share/doc/cards/CHANGELOG.md"
}

usage() {
  echo "usage: scripts/install.sh install BINARY [PREFIX] | uninstall [PREFIX]   (DESTDIR honoured)" >&2
  exit 64
}

command=${1:-}
case "$command" in
  install)
    binary=${2:-}
    [ -n "$binary" ] || usage
    [ -x "$binary" ] || { echo "error: $binary is not an executable: build it first (./dev install does)" >&2; exit 1; }
    prefix=${3:-/usr/local}
    ;;
  uninstall)
    prefix=${2:-/usr/local}
    ;;
  *) usage ;;
esac
case "$prefix" in
  /*) ;;
  *) echo "error: PREFIX must be an absolute path (it is where the files are found once installed): $prefix" >&2; exit 64 ;;
esac
prefix=${prefix%/}
root="${DESTDIR:-}$prefix"
here="$(cd "$(dirname "$0")/.." && pwd)"

if [ "$command" = uninstall ]; then
  if [ ! -e "$root/bin/cards" ]; then
    echo "cards is not installed in $root (no $root/bin/cards); nothing was removed" >&2
    echo "       (name the prefix it was installed with: ./dev uninstall PREFIX)" >&2
    exit 1
  fi
  files "$prefix" | while read -r file; do
    rm -f "$root/$file"
    # Folders only this package made (and left empty) go too; shared ones stay while anything is in them.
    dir=$(dirname "$root/$file")
    while [ "$dir" != "$root" ] && rmdir "$dir" 2>/dev/null; do dir=$(dirname "$dir"); done
  done
  echo "Removed cards from $root" >&2
  exit 0
fi

# Written to temporary files first: a binary that cannot run here (another architecture) fails the
# install before anything is put in place.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" __manpage > "$work/cards.1"
for shell in bash zsh fish; do "$binary" completions "$shell" > "$work/$shell"; done

install -d "$root/bin"
install -m 755 "$binary" "$root/bin/cards"
# Debug symbols make up most of a release build: the installed binary goes without.
if command -v strip >/dev/null 2>&1; then strip --strip-unneeded "$root/bin/cards"; fi
install -D -m 644 "$work/cards.1" "$root/share/man/man1/cards.1"
install -D -m 644 "$work/bash" "$root/share/bash-completion/completions/cards"
install -D -m 644 "$work/zsh" "$root/$(files "$prefix" | grep zsh)"
install -D -m 644 "$work/fish" "$root/share/fish/vendor_completions.d/cards.fish"
install -D -m 644 "$here/CHANGELOG.md" "$root/share/doc/cards/CHANGELOG.md"
echo "Installed cards $("$root/bin/cards" --version) in $root" >&2
