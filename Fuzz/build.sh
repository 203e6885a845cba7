#!/usr/bin/env bash
# Builds and runs the libFuzzer targets (coverage-guided) with `swiftc -sanitize=fuzzer,address`.
# SwiftPM cannot build one target with the fuzzer runtime, so each target is the module's sources plus an
# entry file, compiled as one module (their `import` lines of our own modules removed).
#   Fuzz/build.sh [RUNS]   (default 1000000 runs per target; prints libFuzzer's summary line per target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
out=.build/libfuzzer
mkdir -p "$out"
build() {
  local name=$1; shift
  local src="$out/src-$name"
  rm -rf "$src"; mkdir -p "$src"
  for folder in "$@"; do
    for file in Sources/"$folder"/*.swift; do
      sed -e '/^import CardModel$/d' -e '/^import SwipeEngine$/d' "$file" > "$src/${folder}_$(basename "$file")"
    done
  done
  cp "Fuzz/$name.swift" "$src/entry.swift"
  # (ld.gold warns about every ASan helper symbol: keep that in a log, show it only on failure.)
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "Fuzz$name" "$src"/*.swift \
      -o "$out/$name" 2>"$out/$name.build.log"; then
    grep -v "Cannot export local symbol" "$out/$name.build.log" >&2
    exit 1
  fi
}
build json CardModel
build drag SwipeEngine
build input SwipeEngine TerminalUI
build merge CardModel DeckMerge
status=0
for name in json drag input merge; do
  corpus="$out/corpus-$name"
  mkdir -p "$corpus"
  echo "==> $name: $runs runs"
  if ! "$out/$name" -runs="$runs" -max_len=4096 -seed=1 -print_final_stats=1 "$corpus" 2>"$out/$name.log"; then
    status=1
    tail -30 "$out/$name.log"
  fi
  grep -E "^(Done|stat::number_of_executed_units)" "$out/$name.log" || true
done
exit $status
