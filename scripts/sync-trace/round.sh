#!/usr/bin/env bash
# usage: round.sh CARDS DIR K — prepares round K (B and A each edit 100 cards, B pushes) for ours and git's twin.
set -euo pipefail
CARDS=$1; D=$2; K=$3; C=${C:-100}
export HOME=$D XDG_CONFIG_HOME=$D GIT_CONFIG_NOSYSTEM=1 CARDS_AUTHOR_NAME=Bench CARDS_AUTHOR_EMAIL=b@e.invalid \
  GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@e.invalid GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@e.invalid
cd "$D"
s=$((K*2*C))
sed -n "$((s+1)),$((s+C))p" cards.jsonl | sed "s/\"title\":\"[^\"]*\"/\"title\":\"B$K\"/" > eb.jsonl
sed -n "$((s+C+1)),$((s+2*C))p" cards.jsonl | sed "s/\"title\":\"[^\"]*\"/\"title\":\"A$K\"/" > ea.jsonl
git -C B pull -q --ff-only origin main; git -C TB pull -q --ff-only origin main
$CARDS --deck B import eb.jsonl >/dev/null; git -C B push -q origin main
$CARDS --deck A import ea.jsonl >/dev/null
# twin: the same files edited by hand
for side in TB T; do
  f=$([ $side = TB ] && echo eb.jsonl || echo ea.jsonl)
  for id in $(sed 's/.*"id":"\([^"]*\)".*/\1/' $f); do
    p=cards/${id:0:2}/$id.json
    sed -i "s/\"title\": \"[^\"]*\"/\"title\": \"$side$K\"/" $side/$p
  done
  git -C $side commit -q -a -m "edits $K"
done
git -C TB push -q origin main
sync
