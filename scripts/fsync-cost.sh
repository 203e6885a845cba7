#!/usr/bin/env bash
# What durability costs: N adds with fsync on (the default) and with CARDS_FSYNC=0, on a scratch deck on
# the same disk as /tmp. Prints one JSON line of figures.  Usage: scripts/fsync-cost.sh CARDS_BINARY [N]
set -euo pipefail
cards=$1
count=${2:-200}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" GIT_CONFIG_NOSYSTEM=1 CARDS_AUTHOR_NAME=Bench CARDS_AUTHOR_EMAIL=bench@example.invalid
mkdir -p "$HOME"
measure() {
  local fsync=$1 deck="$scratch/deck-$1"
  CARDS_FSYNC=$fsync "$cards" init "$deck" >/dev/null
  local start end
  start=$(date +%s%N)
  for i in $(seq "$count"); do
    CARDS_FSYNC=$fsync "$cards" --deck "$deck" add --title "Card $i" --url "https://bench.example/$i" >/dev/null
  done
  end=$(date +%s%N)
  echo $(( (end - start) / count / 1000 ))
}
off=$(measure 0)
on=$(measure 1)
echo "{\"test\": \"fsync\", \"adds\": $count, \"microsecondsPerAddFsyncOn\": $on, \"microsecondsPerAddFsyncOff\": $off, \"filesystem\": \"$(stat -f -c %T "$scratch")\"}"
