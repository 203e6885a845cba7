#!/bin/bash
# Runs MaintenanceRaceTests' gc-and-maintenance loop as a shell script, RUNS times, for many runs in a
# row (the Swift test runs it once): git gc, multi-pack-index write, maintenance run (gc,
# incremental-repack) and prune in a loop on a deck and its bare remote, beside 100 cards writes and 8
# syncs. A run that fails (a write failed, or git fsck found the deck damaged) keeps its folder, with
# w.log (each write, its output and main after it) and loop.log (each git command's start and end).
#
#   scripts/maintenance-race.sh CARDS [RUNS] [--hook]
#
# --hook gives the deck a pre-commit hook (`git write-tree`) and runs the loose-objects task and
# `git repack -a -d` side by side instead, as the hook case of MaintenanceRaceTests does.
set -u
cards=$(realpath -e "${1:?usage: scripts/maintenance-race.sh CARDS [RUNS] [--hook]}") || exit 2
runs=${2:-20}
hook=${3:-}
one_run() {
    local root
    root=$(mktemp -d /tmp/maintenance-race-XXXX)
    export HOME=$root/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$root/home/.gitconfig
    mkdir -p "$HOME"
    git config --global user.name "Race Test"
    git config --global user.email race@example.invalid
    cd "$root" || return 1
    "$cards" init deck >/dev/null || { echo "failed: $root (cards init)"; return 1; }
    git init -q --bare remote.git
    (cd deck && "$cards" remote add origin "$root/remote.git" >/dev/null && "$cards" sync >/dev/null 2>&1) ||
        { echo "failed: $root (the first sync)"; return 1; }
    local loops=()
    if [ "$hook" = --hook ]; then
        printf '#!/bin/sh\ngit write-tree >/dev/null\n' >deck/.git/hooks/pre-commit
        chmod +x deck/.git/hooks/pre-commit
        for command in "maintenance run --task=loose-objects" "repack -a -d -q"; do
            (trap 'exit 0' TERM; end=$(($(date +%s) + 60))
             while [ "$(date +%s)" -lt $end ]; do
                 echo "$(date +%s.%N) start $command" >>"$root/loop.log"
                 git -C "$root/deck" $command >/dev/null 2>&1
             done) &
            loops+=($!)
        done
    else
        for folder in deck remote.git; do
            git -C $folder repack -q -d
            git -C $folder multi-pack-index write
        done
        (trap 'exit 0' TERM; end=$(($(date +%s) + 60))
         while [ "$(date +%s)" -lt $end ]; do
             for folder in "$root/deck" "$root/remote.git"; do
                 for command in "gc -q" "multi-pack-index write" \
                     "maintenance run --task=gc --task=incremental-repack" "multi-pack-index write" \
                     "prune --expire=2.weeks.ago"; do
                     echo "$(date +%s.%N) start $folder $command" >>"$root/loop.log"
                     git -C "$folder" $command >/dev/null 2>&1
                 done
             done
         done) &
        loops+=($!)
    fi
    cd deck || return 1
    local ids=() step id
    for step in $(seq 0 99); do
        if [ $((step % 25)) = 24 ]; then
            for transport in git libgit2; do
                echo "$(date +%s.%N) sync $transport" >>"$root/w.log"
                CARDS_TRANSPORT=$transport "$cards" sync >>"$root/w.log" 2>&1 || echo "FAIL sync $transport" >>"$root/w.log"
            done
            continue
        fi
        if [ $((step % 5)) = 3 ] && [ ${#ids[@]} -gt 2 ]; then
            id=${ids[$(((step * 7) % ${#ids[@]}))]}
            echo "$(date +%s.%N) edit $id" >>"$root/w.log"
            "$cards" edit "$id" --title "Edited $step" >>"$root/w.log" 2>&1 || echo "FAIL edit" >>"$root/w.log"
        elif [ $((step % 5)) = 4 ] && [ ${#ids[@]} -gt 4 ]; then
            id=${ids[0]}
            ids=("${ids[@]:1}")
            echo "$(date +%s.%N) delete $id" >>"$root/w.log"
            "$cards" delete "$id" >>"$root/w.log" 2>&1 || echo "FAIL delete" >>"$root/w.log"
        else
            echo "$(date +%s.%N) add $step" >>"$root/w.log"
            if id=$("$cards" add --title "Card $step" --url "https://race.example/$step" 2>>"$root/w.log"); then
                ids+=("$id")
            else
                echo "FAIL add" >>"$root/w.log"
            fi
        fi
        echo "$(date +%s.%N) main $(git rev-parse main)" >>"$root/w.log"
    done
    kill -TERM "${loops[@]}" 2>/dev/null
    wait "${loops[@]}" 2>/dev/null
    if git fsck --full --no-dangling >"$root/fsck.log" 2>&1 && ! grep -q FAIL "$root/w.log"; then
        rm -rf "$root"
        echo ok
    else
        echo "failed: $root"
    fi
}
for _ in $(seq 1 "$runs"); do (one_run); done | sort | uniq -c
