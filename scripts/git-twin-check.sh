#!/usr/bin/env bash
# The write path beside plain git: the same change (an edit, an add, a delete) made by `cards` in one
# clone (D) and by `git add` + `git commit` in another (G) of the same bare deck, with the same git
# set-up, then compared: trees, author and committer (name, address, zone), index (modes, blobs,
# skip-worktree bits), the working tree git would check out (bytes, x bits), status, signatures, what a
# hook saw, `git fsck` after git maintenance ran beside the writes.
#   scripts/git-twin-check.sh CARDS sparse|autocrlf|filemode|hook|signing|maintenance
set -uo pipefail
C=$(realpath "$1")
mode=$2
sample=$(realpath "$(dirname "$0")/../sample-repo")
W=$(mktemp -d)/$mode; mkdir -p "$W"; cd "$W"
export HOME=$W/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$W/home/.gitconfig CARDS_FSYNC=0 TZ=Asia/Kathmandu
mkdir -p "$HOME"; git config --global user.name "Twin Person"; git config --global user.email twin@example.invalid
git config --global init.defaultBranch main; git config --global safe.directory '*'
$C init --bare srv.git --from "$sample" >/dev/null
$C clone srv.git D >/dev/null 2>&1
git clone -q srv.git G
for R in D G; do
  case $mode in
    sparse) git -C $R sparse-checkout set cards/00 cards/65 cards/b1 ;;
    autocrlf) git -C $R config core.autocrlf true; (cd $R && git rm -q --cached -r . >/dev/null && git reset -q --hard) ;;
    filemode) git -C $R config core.filemode false; chmod +x $R/cards/*/*.json; ;;
    hook) mkdir -p $W/hooks; printf '#!/bin/sh\necho "$(git diff --cached --name-only HEAD | tr "\\n" " ")" >> %s/hook-$(basename $PWD).log\n' $W > $W/hooks/pre-commit
          printf '#!/bin/sh\necho "Reviewed-by: Hook" >> "$1"\n' > $W/hooks/commit-msg; chmod +x $W/hooks/*
          git -C $R config core.hooksPath $W/hooks ;;
    signing) [ -f $W/key ] || ssh-keygen -q -t ed25519 -N '' -f $W/key
          git -C $R config commit.gpgsign true; git -C $R config gpg.format ssh; git -C $R config user.signingkey $W/key
          echo "twin@example.invalid $(cat $W/key.pub)" > $W/allowed; git -C $R config gpg.ssh.allowedSignersFile $W/allowed ;;
    maintenance) ;;
  esac
done
# The same change: a card edited (one of the sample's), one added, one deleted.
edit=$(cd D && $C list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
del=$(cd D && $C list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[5]["id"])')
if [ $mode = maintenance ]; then
  ( for i in $(seq 1 40); do git -C D repack -a -d -q 2>/dev/null; git -C D gc -q --prune=2.weeks.ago 2>/dev/null; done ) &
  bg=$!
fi
step() { # $1: cards args; replicate in G
  before=$(git -C D rev-parse HEAD)
  (cd D && $C "$@" >/dev/null) || { echo "cards $* failed"; return 1; }
  msg=$(git -C D log -1 --format=%B)
  for path in $(git -C D diff --name-only $before HEAD); do
    if git -C D cat-file -e HEAD:$path 2>/dev/null; then
      mkdir -p G/$(dirname $path); git -C D cat-file blob HEAD:$path > G/$path
      git -C G add --sparse -f -- $path
      # With core.filemode false the user's x bits are the working tree's own: the file git writes for a
      # change is a new one, from the index's mode (what a checkout or merge of it leaves).
      [ $mode = filemode ] && { rm -f G/$path; git -C G checkout -q -- $path; }
    else git -C G rm -q --sparse --cached -- $path; rm -f G/$path; fi
  done
  git -C G commit -q -m "$msg" || echo "git commit failed"
}
step edit "$edit" --title "Edited by the twin"
step add --title "Twin card" --url https://twin.example --color teal
step delete "$del"
[ -n "${bg:-}" ] && wait $bg
# What git itself leaves for the same commit in a sparse checkout: its patterns applied again.
[ $mode = sparse ] && git -C G sparse-checkout reapply
echo "== $mode"
t1=$(git -C D rev-parse HEAD^{tree}); t2=$(git -C G rev-parse HEAD^{tree})
[ "$t1" = "$t2" ] && echo "trees: same ($t1)" || { echo "trees DIFFER: $t1 vs $t2"; git -C D diff --stat $t2 $t1 | tail -3; }
for f in '%an <%ae> %ad' '%cn <%ce> %cd'; do
  a=$(git -C D log -1 --date=format:%z --format="$f"); b=$(git -C G log -1 --date=format:%z --format="$f")
  [ "$a" = "$b" ] && echo "ident: same ($a)" || echo "ident DIFFERS: $a | $b"
done
diff <(git -C D ls-files -s -t) <(git -C G ls-files -s -t) >/dev/null && echo "index (modes, blobs, skip bits): same" || { echo "index DIFFERS"; diff <(git -C D ls-files -s -t) <(git -C G ls-files -s -t) | head -5; }
echo "status D: [$(git -C D status --porcelain | tr '\n' ' ')] G: [$(git -C G status --porcelain | tr '\n' ' ')]"
# Working files as git would check them out, byte for byte.
rm -rf Gco; git clone -q srv.git Gco 2>/dev/null; cp -a G Gco2 2>/dev/null; (cd Gco2 && git ls-files -z | xargs -0 rm -f && git checkout -q -- . 2>/dev/null; find . -depth -type d -empty -not -path "./.git*" -delete)
files() { (cd $1 && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum; find . -path ./.git -prune -o -type f -perm -u+x -print | sort); }
# With core.filemode false the user chmod-ed the files: compared with G, where git wrote the changed ones.
twin=Gco2; [ $mode = filemode ] && twin=G
diff <(files D) <(files $twin) >/dev/null && echo "working tree (what git leaves for the same, bytes and x bits): same" || { echo "working tree DIFFERS"; diff <(files D) <(files $twin) | head -5; }
if [ $mode = signing ]; then for R in D G; do git -C $R verify-commit HEAD >/dev/null 2>&1 && echo "$R HEAD signature: good" || echo "$R HEAD: NOT verified"; done; fi
if [ $mode = hook ]; then diff hook-D.log hook-G.log >/dev/null && echo "pre-commit saw the same staged paths" || { echo "hooks saw:"; cat hook-D.log; echo ---; cat hook-G.log; }; git -C D log -1 --format=%B | tail -2; fi
if [ $mode = maintenance ]; then git -C D fsck --full >/dev/null 2>&1 && echo "git fsck --full: clean" || echo "git fsck: PROBLEMS"; fi
