#!/usr/bin/env bash
# verify_speed.sh -- the `fairshuf verify` speed target (issue 5): 10^7
# shuffles of n=6 with the perm test must finish in under 2 s on one core.
# A benchmark, not a timed test: prints the median of 5 runs (hyperfine
# when installed, else bash's `time`).
set -eu
BUILD=${BUILD:-build}
FS=$BUILD/fairshuf
cmd="$FS verify --algorithm=durstenfeld --n=6 --trials=10000000 --test=perm --no-progress"
if command -v hyperfine >/dev/null; then
    hyperfine --warmup 1 --runs 5 --style basic "$cmd" 2>&1 | grep -E 'Time|Range'
else
    for i in 1 2 3 4 5; do
        /usr/bin/env bash -c "TIMEFORMAT=%R; time $cmd > /dev/null" 2>&1
    done | sort -n | sed -n '3s/^/median wall seconds: /p'
fi
