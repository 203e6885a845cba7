#!/usr/bin/env bash
# usage: setup.sh CARDS N DIR  — a deck A (working tree) with N cards, a bare server, device B (git clone); the twin too.
set -euo pipefail
CARDS=$1; N=$2; D=$3
export HOME=$D XDG_CONFIG_HOME=$D GIT_CONFIG_NOSYSTEM=1 CARDS_AUTHOR_NAME=Bench CARDS_AUTHOR_EMAIL=b@e.invalid \
  GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@e.invalid GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@e.invalid
rm -rf "$D"; mkdir -p "$D"; cd "$D"
python3 - "$N" > cards.jsonl <<'PY'
import sys, uuid, random
random.seed(42)
n = int(sys.argv[1])
for i in range(n):
    u = uuid.UUID(int=random.getrandbits(128), version=4)
    print('{"id":"%s","title":"Card %d","indexURL":"https://example.com/%d","platformName":"Example","platformIcon":"example","color":"blue"}' % (u, i, i))
PY
$CARDS init A --name Bench >/dev/null
$CARDS --deck A import cards.jsonl >/dev/null
git clone -q --bare A server.git
git -C A remote add origin "file://$D/server.git"
git -C A fetch -q origin
git clone -q "file://$D/server.git" B
# git twin
git init -q -b main T; git -C T config core.fsync all
cp -r A/cards A/deck.json A/.gitattributes T/
git -C T add -A; git -C T commit -q -m Import; git -C T repack -adq; git -C T config gc.auto 0
git clone -q --bare T tserver.git
git -C T remote add origin "file://$D/tserver.git"; git -C T fetch -q origin
git clone -q "file://$D/tserver.git" TB; git -C TB config core.fsync all
sync
