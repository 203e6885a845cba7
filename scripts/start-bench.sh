#!/usr/bin/env bash
# Start-up of two `cards` builds, alternated (what `./dev bench` ends with): `cards --version` and
# `cards list` on the bundled sample deck, the static build against the shared-libgit2 one.
#   scripts/start-bench.sh STATIC_CARDS DYNAMIC_CARDS [ROUNDS]
# Each round is one hyperfine run of all four commands (15 runs each, after 3 untimed), the order of
# the two builds swapped every round, so that a slow spell of this VM falls on both; the table gives
# the median of every timed run of each command over all rounds, and the ratio.
set -euo pipefail
static=$(realpath "$1")
dynamic=$(realpath "$2")
rounds=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" GIT_CONFIG_NOSYSTEM=1 CARDS_AUTHOR_NAME=bench CARDS_AUTHOR_EMAIL=bench@localhost
"$static" init "$work/deck" --from "$(dirname "$0")/../sample-repo" >/dev/null
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order=("$static" "$dynamic"); else order=("$dynamic" "$static"); fi
  commands=()
  for binary in "${order[@]}"; do commands+=("$binary --version" "$binary --deck $work/deck list"); done
  hyperfine -N --warmup 3 --runs 15 --style none --export-json "$work/round-$round.json" "${commands[@]}" >/dev/null
done
python3 - "$static" "$dynamic" "$work"/round-*.json <<'PY'
import json, statistics, sys
static, dynamic, files = sys.argv[1], sys.argv[2], sys.argv[3:]
times = {}
for name in files:
    for result in json.load(open(name))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
def median(binary, what):
    command = next(c for c in times if c.startswith(binary + " ") and (what in c))
    return statistics.median(times[command]) * 1000
print(f"\nStart-up, static against shared libgit2 (release builds, {len(files)} alternated rounds of hyperfine -N, median of all runs):")
print("| command | static | shared | shared / static |")
print("| --- | --- | --- | --- |")
for label, what in (("cards --version", "--version"), ("cards list (the sample deck)", " list")):
    s, d = median(static, what), median(dynamic, what)
    print(f"| {label} | {s:.2f} ms | {d:.2f} ms | {d / s:.1f}x |")
PY
