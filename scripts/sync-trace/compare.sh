#!/usr/bin/env bash
# usage: compare.sh DIR FIRSTROUND ROUNDS BIN...: ROUNDS exchanges from round FIRSTROUND on, each prepared by
# round.sh, then `cards sync` (the binaries taking turns, round by round) and git fetch && merge && push in the
# twin, both timed. Over ssh: set the remotes' URLs (origin of A and T) and GIT_SSH_COMMAND first.
HERE=$(cd "$(dirname "$0")" && pwd)
D=$1; K=$2; R=$3; shift 3; BINS=("$@")
cd $D; . "$HERE/env.sh"
for ((r=0; r<R; r++)); do
  k=$((K+r)); b=${BINS[$((r % ${#BINS[@]}))]}
  "$HERE/round.sh" $b $D $k >/dev/null 2>&1 || { echo "round $k failed"; exit 1; }
  s=$(date +%s%N); $b --deck A sync >/dev/null || echo "sync failed"; e=$(date +%s%N); ours=$(( (e-s)/1000000 ))
  s=$(date +%s%N); gitsync >/dev/null; e=$(date +%s%N); g=$(( (e-s)/1000000 ))
  echo "round $k $(basename $(dirname $b))/$(basename $b): cards sync $ours ms, git $g ms"
done
