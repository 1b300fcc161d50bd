#!/usr/bin/env bash
# counts.sh -- counts per element that do not move with the VM's load:
# instructions, simulated first-level and last-level data-cache misses
# (valgrind --tool=cachegrind --cache-sim=yes, the host's cache sizes) and
# page faults, for one shuffle of n 8-byte elements by fairshuf (default
# generator, seeded chacha20, xoshiro256ss) and by rip_shuffle: each
# program runs with one shuffle and with two, and the difference is one
# shuffle without the process's start, the fill and the exit (the second
# shuffle starts from a shuffled array, as any shuffle of a shuffled deck).
# Page faults are the whole one-shuffle process's.
# The last level simulated is LL (default 2 MiB, 16-way: this VM's private
# L2 per core).  The VM reports a 480 MiB L3 shared with the host's other
# tenants; simulated whole, it holds a 1e7 array after one pass and hides
# the misses that cost time.  LL=host uses cachegrind's own choice.
# docs/performance.md "Counts" reads them.
#   bench/counts.sh                      SIZES="1e5 1e6 1e7"
#   SIZES="1e7 1e8" RIP=/var/tmp/rip/ripbench bench/counts.sh
# RIP: rip_shuffle's driver (bench/README.md; skipped when absent).
# Output: one row per program and size, then one summary line per size
# with fairshuf's ratios to rip_shuffle.
set -euo pipefail
BUILD=${BUILD:-build}
SIZES=${SIZES:-1e5 1e6 1e7}
LL=${LL:-2097152,16,64}
LLOPT=--LL=$LL
[ "$LL" = host ] && LLOPT=
RIP=${RIP:-$BUILD/bench/ripbench}
[ -x "$RIP" ] || RIP=/var/tmp/rip/ripbench
C=$BUILD/bench/counts
[ -x "$C" ] || make -s -C bench counts BUILD="$(cd "$BUILD" && pwd)" >/dev/null
command -v valgrind >/dev/null || { echo "counts.sh: valgrind is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# counts of one run: "Ir D1mr D1mw DLmr DLmw"
grind() {
    valgrind --tool=cachegrind --cache-sim=yes --trace-children=yes $LLOPT --cachegrind-out-file="$tmp/cg" \
        "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
         /^summary:/ { print $(col["Ir"] + 1), $(col["D1mr"] + 1), $(col["D1mw"] + 1),
                             $(col["DLmr"] + 1), $(col["DLmw"] + 1) }' "$tmp/cg"
}

# command-with-REPS (a function of REPS): prints one shuffle's
# "Ir D1mr D1mw DLm" and the one-shuffle process's page faults
measure() {
    local one two faults
    one=$(grind $($1 1))
    two=$(grind $($1 2))
    faults=$(/usr/bin/time -f '%R' $($1 1) 2>&1 >/dev/null | tail -n 1)
    # a difference below zero is the second run's noise around nothing
    echo "$one $two $faults" | awk 'function z(x) { return x < 0 ? 0 : x }
        { print z($6 - $1), z($7 - $2), z($8 - $3), z(($9 + $10) - ($4 + $5)), $11 }'
}
cmd_default() { echo "$C $n default $1"; }
cmd_chacha20() { echo "$C $n chacha20 $1 counts"; }
cmd_xoshiro256ss() { echo "$C $n xoshiro256ss $1 counts"; }
cmd_rip_shuffle() { echo "$RIP $n 0 $1"; }

printf '%-6s %-14s %9s %9s %9s %9s %12s\n' n program "Ir/elem" "D1r/elem" "D1w/elem" "LLd/elem" "faults/Kelem"
for s in $SIZES; do
    n=$(awk -v s="$s" 'BEGIN { printf "%d", s }')
    progs=(default chacha20 xoshiro256ss)
    [ -x "$RIP" ] && progs+=(rip_shuffle)
    declare -A ir=() ll=()
    for name in "${progs[@]}"; do
        read -r Ir D1r D1w LL F < <(measure "cmd_$name")
        awk -v n="$n" -v s="$s" -v name="$name" -v Ir="$Ir" -v D1r="$D1r" -v D1w="$D1w" \
            -v LL="$LL" -v F="$F" 'BEGIN {
            printf "%-6s %-14s %9.2f %9.3f %9.3f %9.4f %12.2f\n", s, name, Ir / n, D1r / n,
                   D1w / n, LL / n, 1000 * F / n }'
        ir[$name]=$Ir
        ll[$name]=$LL
    done
    if [ -n "${ir[rip_shuffle]:-}" ]; then
        awk -v s="$s" -v d="${ir[default]}" -v c="${ir[chacha20]}" -v x="${ir[xoshiro256ss]}" \
            -v r="${ir[rip_shuffle]}" -v ld="${ll[default]}" -v lx="${ll[xoshiro256ss]}" \
            -v lr="${ll[rip_shuffle]}" 'function f(x) { return sprintf("%.3f", x) }
            BEGIN {
            printf "summary %s: instructions / rip_shuffle: default %.2f, chacha20 %.2f, xoshiro256ss %.2f; LL misses / rip_shuffle: default %s, xoshiro256ss %s\n",
                   s, d / r, c / r, x / r, (lr > 0 ? f(ld / lr) : "n/a"), (lr > 0 ? f(lx / lr) : "n/a") }'
    fi
    unset ir ll
done
