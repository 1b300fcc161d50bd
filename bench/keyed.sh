#!/usr/bin/env bash
# keyed.sh -- speed of the keyed permutation (issues 9 and 26; figures go to
# docs/keyed.md):
#   1. ns per position, old (one fs_keyed_at()/fs_keyed_inverse() call per
#      position) against new (the batch call over an array), interleaved in
#      one run: old ÷ new with medians and min-max (bench/keyed.c);
#   2. `fairshuf perm N --lazy > /dev/null` throughput (default N = 1e8;
#      give N as the second argument for a shorter run);
#   3. artist spreading against plain shuffle and dithering (bench/spread.c).
# Usage: bench/keyed.sh [BUILD] [N]   (run `make` first)
set -eu
BUILD=${1:-${BUILD:-build}}
N=${2:-100000000}
F="$PWD/$BUILD/fairshuf"
[ -x "$F" ] || { echo "keyed.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Iinclude bench/keyed.c "$BUILD/libfairshuf.a" \
    $(pkg-config --libs libsodium libcrypto 2>/dev/null || echo -lsodium) -lm -o "$tmp/keyed"
echo "== keyed permutation, one core, old (per call) vs new (batch); $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
"$tmp/keyed"
echo
echo "== fairshuf perm $N --lazy --seed=bench > /dev/null"
# CPU time (user + sys) as well as wall time: the machine may be shared.
TIMEFORMAT='%R %U %S'
t=$( { time "$F" perm "$N" --lazy --seed=bench > /dev/null; } 2>&1 )
echo "$t" | awk -v n="$N" '{ cpu = $2 + $3; printf "wall %.1f s, CPU %.1f s: %.2f M items/s, %.0f ns/item (CPU)\n", $1, cpu, n / cpu / 1e6, cpu * 1e9 / n }'
echo
echo "== artist spreading: adjacent same-artist pairs (bench/spread.c)"
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Iinclude bench/spread.c "$BUILD/libfairshuf.a" \
    $(pkg-config --libs libsodium libcrypto 2>/dev/null || echo -lsodium) -lpthread -lm -o "$tmp/spread"
for d in 60 120 180; do "$tmp/spread" 2000 "$d"; done
