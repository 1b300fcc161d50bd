#!/usr/bin/env bash
# vrf.sh -- the cost of scheme fairshuf-vrf-1 per hand:
#   1. instructions per fs_vrf_prove and fs_vrf_verify (valgrind
#      --tool=cachegrind: counts that do not move with the machine's load);
#   2. microseconds per prove, verify, whole hand and hand check in C
#      (bench/vrf.c, median and min-max of 9 rounds);
#   3. milliseconds per hand check in the page (Chromium, web/src/vrf.js).
# Usage: bench/vrf.sh [BUILD]   (after make all and make web)
set -eu
BUILD=${1:-${BUILD:-build}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Ibench bench/vrf.c "$BUILD/libfairshuf.a" \
    $(pkg-config --libs libsodium libcrypto 2>/dev/null || echo -lsodium) -lpthread -lm -o "$tmp/vrf"
if command -v valgrind >/dev/null; then
    echo "== instructions per operation (cachegrind; (count(1001) - count(1)) / 1000)"
    for op in prove verify; do
        n() { valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
                  "$tmp/vrf" "$op" "$1" 2>&1 | awk '/I *refs/ {gsub(",", "", $4); print $4}'; }
        a=$(n 1); b=$(n 1001)
        echo "fs_vrf_$op: $(( (b - a) / 1000 )) instructions"
    done
fi
echo
echo "== C, one core, $(${CC:-cc} --version | head -1)"
"$tmp/vrf"
echo
echo "== the page (Chromium), web/src/vrf.js"
BUILD=$BUILD node bench/vrf_page.mjs
