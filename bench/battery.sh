#!/usr/bin/env bash
# battery.sh -- `make battery`: every generator's raw stream through
# dieharder, then one summary line per generator.  Opt-in and long:
# `dieharder -a` takes about 30 minutes per generator on a 2-core machine.
#
#   BUILD=build bench/battery.sh                # dieharder -a, all generators
#   BATTERY_TESTS="3 8 9 15" bench/battery.sh   # only these test numbers
#   BATTERY_RNGS="chacha20 delphi" ...          # only these generators
#   BATTERY_SEED=1 (default)                    # fairshuf --seed
#
# Expect chacha20, xoshiro256ss, pcg64, mt19937(_64) and splitmix64 to pass
# (an occasional WEAK is normal: 1 in 200 p-values falls outside
# [0.005, 0.995]); the legacy `delphi` LCG and glibc `rand` (31-bit
# outputs, so every fourth byte has a zero top bit) fail.  Full logs go to
# $BATTERY_LOG (default $BUILD/battery).
set -u
BUILD=${BUILD:-build}
FS=$BUILD/fairshuf
SEED=${BATTERY_SEED:-1}
LOG=${BATTERY_LOG:-$BUILD/battery}
command -v dieharder >/dev/null || { echo "battery: dieharder is not installed (apt-get install dieharder)" >&2; exit 1; }
[ -x "$FS" ] || { echo "battery: $FS not built (run make)" >&2; exit 1; }
mkdir -p "$LOG"
rngs=${BATTERY_RNGS:-$("$FS" rng --rng=list | awk '{ print $1 }')}

run_one() { # rng, dieharder args...
    local rng=$1
    shift
    "$FS" rng --rng="$rng" --seed="$SEED" --format=raw 2>/dev/null |
        dieharder -g 200 -S 1 "$@" 2>&1
}

printf '%-14s %7s %5s %7s  %s\n' generator passed weak failed "log"
status=0
for rng in $rngs; do
    out=$LOG/$rng.txt
    : > "$out"
    if [ -n "${BATTERY_TESTS:-}" ]; then
        for d in $BATTERY_TESTS; do
            run_one "$rng" -d "$d" >> "$out"
        done
    else
        run_one "$rng" -a > "$out"
    fi
    p=$(grep -c 'PASSED' "$out")
    w=$(grep -c 'WEAK' "$out")
    f=$(grep -c 'FAILED' "$out")
    printf '%-14s %7d %5d %7d  %s\n' "$rng" "$p" "$w" "$f" "$out"
    [ $((p + w + f)) -gt 0 ] || status=1
done
exit $status
