#!/usr/bin/env bash
# The consumer test (`./dev test` runs it): a package that depends on CardDeck BY VERSION builds and
# runs docs/LIBRARY.md's samples, once with CardStore and once with the pure products alone.
#   scripts/consumer.sh [BUILD_FOLDER]   (default .build/consumer)
# The working tree (tracked and untracked files, as `git ls-files` sees them) is committed into a
# fresh repository and tagged with the version of Sources/CardsCLI/CardsCLI.swift; the consumer names
# it as `.package(url: "file://…", from: VERSION)`, exactly as an app names a release.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(realpath -m "${1:-.build/consumer}")
version=$(sed -n 's/^ *public static let version = "\(.*\)"$/\1/p' Sources/CardsCLI/CardsCLI.swift)
[ -n "$version" ] || { echo "error: no version in Sources/CardsCLI/CardsCLI.swift" >&2; exit 1; }

# The tagged "release": always the same path, so that SwiftPM's build folder stays the same.
rm -rf "$out/CardDeck" "$out/Consumer"
mkdir -p "$out/CardDeck"
# The samples make decks: outside this repository (a deck inside another repository is refused).
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
git ls-files -z -co --exclude-standard | grep -zv '^Tests/Consumer/' | (cd "$root" && xargs -0 cp --parents -t "$out/CardDeck")
git -C "$out/CardDeck" init -q -b main
git -C "$out/CardDeck" add -A
git -C "$out/CardDeck" -c user.name=consumer -c user.email=consumer@localhost commit -qm "release $version"
git -C "$out/CardDeck" tag "$version"

# The consumer: its manifest from Tests/Consumer, its sources LIBRARY.md's code blocks.
mkdir -p "$out/Consumer/Sources/StoreSample" "$out/Consumer/Sources/PureSample"
cp Tests/Consumer/Package.swift "$out/Consumer/"
python3 - "$out/Consumer/Sources" docs/LIBRARY.md <<'PY'
import re, sys
sources, library = sys.argv[1], open(sys.argv[2]).read()
blocks = [b for b in re.findall(r"```swift\n(.*?)```", library, re.S) if "Package.swift" not in b]
def program(parts, prelude=""):
    # Imports first (a block may start with its own); the samples' absolute paths under the run folder.
    lines = [l for p in parts for l in p.splitlines()]
    imports = sorted({l for l in lines if l.startswith("import ")})
    body = "\n".join(l for l in lines if not l.startswith("import "))
    body = re.sub(r'"/(tmp|srv)/', r'"\\(sampleRoot)/\1/', body)
    return "\n".join(imports) + "\n\n" + prelude + body + "\n"
store = [b for b in blocks if "import CardStore" in b or "deck." in b]
pure = [b for b in blocks if b not in store]
assert len(store) >= 2 and len(pure) >= 2, (len(store), len(pure))
prelude = "let sampleRoot = CommandLine.arguments[1]\n"
open(f"{sources}/StoreSample/main.swift", "w").write(program(store, prelude))
open(f"{sources}/PureSample/main.swift", "w").write(program(pure))
PY

# Never the static build: a dependency by version must build without it (and SwiftPM would refuse it).
export CARDDECK_URL="file://$out/CardDeck" CARDDECK_VERSION="$version"
unset CARDS_STATIC
# No shared cache: it is keyed by URL, and every run makes a new "release" at the same URL.
build=(swift build --package-path "$out/Consumer" --scratch-path "$out/build" --disable-dependency-cache)
rm -rf "$out/build/repositories" "$out/build/checkouts" "$out/build/workspace-state.json" "$out/Consumer/Package.resolved"
echo "==> Consumer by version ($version): the pure products alone" >&2
"${build[@]}" --product PureSample >&2
echo "==> Consumer by version ($version): CardStore" >&2
"${build[@]}" --product StoreSample >&2
bin=$("${build[@]}" --show-bin-path)
for target in PureSample StoreSample; do
  printf '\n==> %s\n' "$target" >&2
  env CARDS_AUTHOR_NAME=Sample CARDS_AUTHOR_EMAIL=sample@localhost GIT_CONFIG_NOSYSTEM=1 HOME="$run" \
    "$bin/$target" "$run/$target" >&2
done
echo "==> Consumer by version: both samples built and ran" >&2
