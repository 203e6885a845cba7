#!/usr/bin/env bash
# Commits as git makes them, beside git doing the same work (what `./dev bench` ends with):
#   - a one-card commit with an ordinary config, with ssh signing (commit.gpgsign) and with a
#     pre-commit hook: `cards add` against `git add && git commit` of one new file;
#   - `cards sync --rebase` of 100 commits of this device onto 1 new commit of the remote's against
#     `git pull --rebase && git push` of the same history shape.
#   scripts/git-setup-bench.sh CARDS [ROUNDS]
# Medians of ROUNDS (default 5) runs, each on a fresh set-up where the work changes the repository;
# fsync off for both (CARDS_FSYNC=0, git's default), a temporary HOME, nothing of the user's config.
set -euo pipefail
cards=$(realpath "$1")
rounds=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/.gitconfig" CARDS_FSYNC=0
git config --global user.name Bench
git config --global user.email bench@localhost
git config --global init.defaultBranch main
sample="$(dirname "$0")/../sample-repo"
ssh-keygen -q -t ed25519 -N '' -f "$work/key"
mkdir -p "$work/hooks"
printf '#!/bin/sh\ngit diff --cached --quiet HEAD; exit 0\n' > "$work/hooks/pre-commit"
chmod +x "$work/hooks/pre-commit"

now_ms() { date +%s%N | cut -c1-13; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

"$cards" init "$work/deck" --from "$sample" >/dev/null
git init -q "$work/plain"
git -C "$work/plain" commit -q --allow-empty -m start
setup() {
  for repository in "$work/deck" "$work/plain"; do
    git -C "$repository" config --unset commit.gpgsign || true
    git -C "$repository" config --unset core.hooksPath || true
    case $1 in
      signed) git -C "$repository" config commit.gpgsign true
        git -C "$repository" config gpg.format ssh
        git -C "$repository" config user.signingkey "$work/key" ;;
      hook) git -C "$repository" config core.hooksPath "$work/hooks" ;;
    esac
  done
}
echo "one-card commit (median of $((rounds * 4)) runs), cards add against git add && git commit:"
for mode in ordinary signed hook; do
  setup "$mode"
  ours=() theirs=()
  for run in $(seq 1 $((rounds * 4))); do
    start=$(now_ms)
    "$cards" --deck "$work/deck" add --title "Bench $run" --url "https://bench.example/$run" >/dev/null
    ours+=($(($(now_ms) - start)))
    echo "$run" > "$work/plain/file-$mode-$run"
    start=$(now_ms)
    git -C "$work/plain" add "file-$mode-$run" && git -C "$work/plain" commit -q -m "file $run"
    theirs+=($(($(now_ms) - start)))
  done
  a=$(printf '%s\n' "${ours[@]}" | median)
  b=$(printf '%s\n' "${theirs[@]}" | median)
  echo "  $mode: cards $a ms, git $b ms"
done

echo "sync --rebase of 100 commits onto 1 of the remote's (median of $rounds):"
ours=() theirs=()
for run in $(seq 1 "$rounds"); do
  round="$work/rebase-$run"
  mkdir -p "$round"
  "$cards" init --bare "$round/remote.git" --from "$sample" >/dev/null
  "$cards" clone "$round/remote.git" "$round/a" >/dev/null 2>&1
  "$cards" clone "$round/remote.git" "$round/b" >/dev/null 2>&1
  for index in $(seq 1 100); do "$cards" --deck "$round/b" add --title "B $index" --url "https://b.example/$index" >/dev/null; done
  "$cards" --deck "$round/a" add --title "A" --url "https://a.example" >/dev/null
  "$cards" --deck "$round/a" sync >/dev/null
  start=$(now_ms)
  "$cards" --deck "$round/b" sync --rebase >/dev/null
  ours+=($(($(now_ms) - start)))
  git clone -q --bare "$round/remote.git" "$round/plain.git"
  git clone -q "$round/plain.git" "$round/pa"
  git clone -q "$round/plain.git" "$round/pb"
  for index in $(seq 1 100); do
    echo "$index" > "$round/pb/b-$index"
    git -C "$round/pb" add "b-$index"
    git -C "$round/pb" commit -q -m "B $index"
  done
  echo a > "$round/pa/a"
  git -C "$round/pa" add a && git -C "$round/pa" commit -q -m A && git -C "$round/pa" push -q
  start=$(now_ms)
  git -C "$round/pb" pull -q --rebase && git -C "$round/pb" push -q
  theirs+=($(($(now_ms) - start)))
  rm -rf "$round"
done
a=$(printf '%s\n' "${ours[@]}" | median)
b=$(printf '%s\n' "${theirs[@]}" | median)
echo "  cards sync --rebase $a ms, git pull --rebase && git push $b ms"
