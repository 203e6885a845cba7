export HOME=$PWD XDG_CONFIG_HOME=$PWD GIT_CONFIG_NOSYSTEM=1 CARDS_AUTHOR_NAME=Bench CARDS_AUTHOR_EMAIL=b@e.invalid GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@e.invalid GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@e.invalid
# Sourced by compare.sh: the isolated identity and config of the set-up, and `gitsync` (git's own fetch, merge, push in T).
ms() { local s=$(date +%s%N); "$@" > /dev/null; local r=$?; local e=$(date +%s%N); echo "$(( (e-s)/1000000 )) ms: $*" >&2; return $r; }
gitsync() { git -C T fetch -q origin && git -C T merge -q --no-edit origin/main && git -C T push -q origin main; }
