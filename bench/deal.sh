#!/usr/bin/env bash
# deal.sh -- the dealing benchmarks and the long acceptance runs of issue 4:
#   1. deals/second through the library per game (bench/deal.c);
#   2. `fairshuf deal --game=doudizhu --count=1000000 --format=tsv` wall time
#      (median of 5; target < 2 s);
#   3. poker hand classes over `deal --game=poker5 --count=1000000` against
#      the exact table (the unit test with FS_CARDS_LONG=1);
#   4. the 1999 attack: a random secret seed, +-100 s window (target < 1 s)
#      and the whole day (target < 1 min).
# Usage: bench/deal.sh [BUILD]   (default build; run `make` first)
set -eu
BUILD=${1:-${BUILD:-build}}
F="$PWD/$BUILD/fairshuf"
[ -x "$F" ] || { echo "deal.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Iinclude bench/deal.c "$BUILD/libfairshuf.a" \
    $(pkg-config --libs libsodium libcrypto 2>/dev/null || echo -lsodium) -lpthread -lm -o "$tmp/deal"
echo "== deals per second, one core, library (median of 5), $(${CC:-cc} --version | head -1)"
"$tmp/deal"

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
echo
echo "== fairshuf deal --game=doudizhu --count=1000000 --format=tsv > /dev/null"
times=()
for i in 1 2 3 4 5; do
    s=$(date +%s%N)
    "$F" deal --game=doudizhu --count=1000000 --format=tsv >/dev/null
    times+=("$(ms "$s")")
done
echo "runs (ms): ${times[*]}; median $(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p) ms (target < 2000)"

echo
echo "== poker5 --count=1000000: hand classes vs the exact table"
FS_BIN="$F" FS_CARDS_LONG=1 CMOCKA_TEST_ABORT=0 "$BUILD/tests/test_cards_stats" 2>&1 |
    grep -E '^# CLI|test_poker_cli' || true

echo
echo "== the 1999 attack"
secret=$(( $("$F" rng --count=1 --format=u32) % 86400000 ))
d=$("$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 --seed=$secret --format=tsv 2>/dev/null)
hole=$(echo "$d" | cut -f1 | tr ' ' ,)
flop=$(echo "$d" | cut -f7 | tr ' ' ,)
lo=$(( secret > 100000 ? secret - 100000 : 0 ))
s=$(date +%s%N)
"$F" attack --seat=1 --hole="$hole" --flop="$flop" --window=$lo-$((secret + 100000)) | grep -E '^seed|^searched'
echo "+-100 s window: $(ms "$s") ms wall (target < 1000)"
s=$(date +%s%N)
"$F" attack --seat=1 --hole="$hole" --flop="$flop" | grep -E '^seed|^searched'
echo "whole day: $(ms "$s") ms wall (target < 60000); secret was $secret"
