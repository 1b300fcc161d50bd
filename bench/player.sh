#!/usr/bin/env bash
# player.sh -- the player's cost at 10^6 songs (issue 28; figures go to
# docs/performance.md, "The player"):
#   1. bench/player.c: fs_player_next() median, state size, and one step
#      as a program keeping its state in a file pays it;
#   2. `fairshuf playlist FILE --state=S next` end to end on a 10^6-line
#      list (reads and hashes the list each time): the first step (a new
#      state, which also writes the copy of the list) and a step half-way
#      through the cycle.
# Usage: bench/player.sh [BUILD] [N]   (run `make` first)
set -eu
BUILD=${1:-${BUILD:-build}}
N=${2:-1000000}
F="$PWD/$BUILD/fairshuf"
[ -x "$F" ] || { echo "player.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Iinclude bench/player.c "$BUILD/libfairshuf.a" \
    $(pkg-config --libs libsodium 2>/dev/null || echo -lsodium) -lpthread -lm -o "$tmp/player"
echo "== fs_player, one core, CPU time; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
"$tmp/player" "$N"
echo
echo "== fairshuf playlist LIST --state=S next, $N songs (median of 5, wall and CPU)"
seq 1 "$N" | sed 's|^|/music/artist/album/track-|; s|$|.flac|' > "$tmp/list.txt"
TIMEFORMAT='%R %U %S'
step() {
    for _ in 1 2 3 4 5; do
        if [ -f "$tmp/s.$1" ]; then cp "$tmp/s.$1" "$tmp/s"; else rm -f "$tmp/s" "$tmp"/s.list-*; fi
        { time "$F" playlist "$tmp/list.txt" --seed=bench --state="$tmp/s" next > /dev/null; } 2> "$tmp/t"
        cat "$tmp/t"
    done > "$tmp/times"
    sort -n "$tmp/times" | sed -n 3p | awk -v w="$1" -v sz="$(stat -c %s "$tmp/s")" \
        '{ printf "%-8s wall %.2f s, CPU %.2f s, state %d bytes\n", w, $1, $2 + $3, sz }'
}
step start # a new state: also writes the copy of the list (S.list-*)
"$F" playlist "$tmp/list.txt" --seed=bench --state="$tmp/s" seek=$((N / 2)) > /dev/null
cp "$tmp/s" "$tmp/s.middle" # S.list-* stays: the same list
step middle
