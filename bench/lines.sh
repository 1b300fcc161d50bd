#!/usr/bin/env bash
# lines.sh -- fairshuf lines against GNU shuf (/usr/bin/shuf) in the same
# run: wall time, CPU time (user+sys) and peak RSS, medians of RUNS runs,
# the two programs interleaved (ABBA: each goes first in every other
# round) so that machine load and what the last run left hit both alike.
#
#   bench/lines.sh                 1e7-line file and -i 1-1e8, 5 runs
#   RUNS=3 bench/lines.sh
#   FIVE=0 bench/lines.sh          skip the 5e7-line file (550 MB; GNU
#                                  needs 1.3 GB and ~10 s a run)
#   BIG=1 bench/lines.sh           also a 2 GB file with --memory=256M
#                                  (fairshuf only: GNU needs > 2 GB RAM)
#   WIDE=1 bench/lines.sh          a 1.08 GB file of ~108-byte CSV-like
#                                  lines: GNU, fairshuf in memory and
#                                  fairshuf --memory=256M (issue 27 goal 2),
#                                  then the two fairshuf runs interleaved
#                                  on their own: in memory / out of core,
#                                  with user and sys CPU and page faults
#   DATA=1 bench/lines.sh          data work: a 2 GB file of ~80-byte lines
#                                  (GNU shuf beside it), its gzip (zcat |
#                                  shuf beside fairshuf reading the .gz),
#                                  and a CSV of it with --csv; the rest is
#                                  skipped with ONLY_DATA=1
# Environment: BIN (default build/fairshuf), GNU (default /usr/bin/shuf),
# DIR for the data files (default a fresh directory under /tmp, removed
# at the end; a DIR you give is kept, with its data files for next time).
# Output: a markdown table on stdout.  Not part of the test suite.
set -eu
BIN=${BIN:-build/fairshuf}
GNU=${GNU:-/usr/bin/shuf}
RUNS=${RUNS:-5}
created=0
if [ -z "${DIR:-}" ]; then
    DIR=$(mktemp -d /tmp/fairshuf-bench.XXXXXX)
    created=1
fi
[ -x "$BIN" ] || { echo "lines.sh: build first ($BIN missing)" >&2; exit 1; }

mkdir -p "$DIR"
file="$DIR/lines-1e7.txt"
[ "${ONLY_DATA:-0}" = 1 ] || [ -s "$file" ] ||
    seq 1000000000 1009999999 > "$file"   # 1e7 lines, 110 MB

# measure CMD...: prints "wall cpu rss_kb user sys minflt" of one run,
# output discarded
measure() {
    local t
    t=$( { /usr/bin/time -f '%e %U %S %M %R' "$@" > /dev/null; } 2>&1 | tail -n 1)
    set -- $t
    awk -v w="$1" -v u="$2" -v s="$3" -v m="$4" -v f="$5" \
        'BEGIN { printf "%.2f %.2f %d %.2f %.2f %d\n", w, u + s, m, u, s, f }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# row NAME GNU-ARGS FAIRSHUF-ARGS; row_cmd NAME GNU-COMMAND FAIRSHUF-COMMAND
# (whole shell commands, e.g. a pipeline)
row() {
    row_cmd "$1" "$GNU $2" "$BIN lines $3"
}

row_cmd() {
    local name=$1 gcmd=$2 fcmd=$3 g f i
    g=$(mktemp) f=$(mktemp)
    # GNU first in odd rounds, fairshuf first in even ones: a program run
    # right after the other pays for what the other left (fairshuf's huge
    # pages are ready only after a fairshuf: docs/performance.md, "Lines")
    for i in $(seq "$RUNS"); do
        if (( i % 2 )); then
            measure bash -c "exec $gcmd" >> "$g"
            measure bash -c "exec $fcmd" >> "$f"
        else
            measure bash -c "exec $fcmd" >> "$f"
            measure bash -c "exec $gcmd" >> "$g"
        fi
    done
    local gw gc gm fw fc fm
    gw=$(cut -d' ' -f1 "$g" | median); gc=$(cut -d' ' -f2 "$g" | median)
    gm=$(cut -d' ' -f3 "$g" | median)
    fw=$(cut -d' ' -f1 "$f" | median); fc=$(cut -d' ' -f2 "$f" | median)
    fm=$(cut -d' ' -f3 "$f" | median)
    # min-max of the per-round wall ratios (rounds are interleaved)
    local rr
    rr=$(paste -d' ' "$g" "$f" | awk '{ r = ($7 > 0) ? $1 / $7 : 0; print r }' | sort -n |
         awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f-%.1f", lo, hi }')
    awk -v n="$name" -v gw="$gw" -v gc="$gc" -v gm="$gm" -v fw="$fw" \
        -v fc="$fc" -v fm="$fm" -v rr="$rr" 'BEGIN {
        printf "| %s | %.2f s | %.2f s | %.0f MB | %.2f s | %.2f s | %.0f MB | %.1fx (%s) | %.1fx | %.2fx |\n",
               n, gw, gc, gm / 1024, fw, fc, fm / 1024, gw / fw, rr, gc / fc, fm / gm }'
    rm -f "$g" "$f"
}

# fairshuf in memory and with --memory=256M on FILE, interleaved, no GNU
# between them: each run's "wall cpu rss" into the files $inmem and $spill
modes() {
    local i
    inmem=$(mktemp) spill=$(mktemp)
    for i in $(seq "$RUNS"); do # ABBA, as row_cmd
        if (( i % 2 )); then
            measure "$BIN" lines "$1" >> "$inmem"
            measure "$BIN" lines --memory=256M -T "$DIR" "$1" >> "$spill"
        else
            measure "$BIN" lines --memory=256M -T "$DIR" "$1" >> "$spill"
            measure "$BIN" lines "$1" >> "$inmem"
        fi
    done
}

echo "fairshuf lines vs GNU shuf ($($GNU --version | head -n 1)), median of $RUNS runs, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| case | GNU wall | GNU cpu | GNU RSS | fairshuf wall | fairshuf cpu | fairshuf RSS | wall speed-up (per-round min-max) | cpu speed-up | RSS ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
if [ "${ONLY_DATA:-0}" = 1 ]; then FIVE=0; fi
if [ "${ONLY_DATA:-0}" != 1 ]; then
row "1e7-line file (110 MB)" "$file" "$file"
row "-i 1-100000000" "-i 1-100000000" "-i 1-100000000"
row "1e7-line file, --seed" "$file" "--seed=bench $file"
row "-n 10 of 1e7-line file" "-n 10 $file" "-n 10 $file"
fi

if [ "${DATA:-0}" = 1 ]; then
    d80="$DIR/lines-80b-2g.txt"
    # ~80-byte lines (84 with the newline): a number, a user, text;
    # 2.1e9 bytes (1.96 GiB, 2.5e7 lines)
    [ -s "$d80" ] || awk 'BEGIN { for (i = 0; i < 25000000; i++)
        printf "%010d,user%06d,%s\n", i, (i * 7919) % 1000000,
               "lorem ipsum dolor sit amet consectetur adipiscing elit sed do" }' > "$d80"
    [ -s "$d80.gz" ] || gzip -1 -c "$d80" > "$d80.gz"
    row "2 GB of ~80-byte lines" "$d80" "$d80"
    row_cmd "the same, gzip input (zcat \| shuf)" "sh -c 'zcat $d80.gz | $GNU'" "$BIN lines $d80.gz"
    row "the same as CSV, --csv --header=1" "$d80" "--csv --header=1 $d80"
fi

if [ "${FIVE:-1}" = 1 ]; then
    file5="$DIR/lines-5e7.txt"
    [ -s "$file5" ] || seq 1000000000 1049999999 > "$file5"   # 550 MB
    row "5e7-line file (550 MB)" "$file5" "$file5"
    modes "$file5" # out of core against in memory
    a=$inmem b=$spill
    aw=$(cut -d' ' -f1 "$a" | median); bw=$(cut -d' ' -f1 "$b" | median)
    bm=$(cut -d' ' -f3 "$b" | median)
    echo
    awk -v a="$aw" -v b="$bw" -v m="$bm" -v lo="$(cut -d' ' -f1 "$b" | sort -n | head -n 1)" \
        -v hi="$(cut -d' ' -f1 "$b" | sort -n | tail -n 1)" 'BEGIN {
        printf "5e7-line file, fairshuf --memory=256M: %.2f s wall (min %.2f, max %.2f), peak RSS %.0f MB; in memory %.2f s: %.2fx\n",
               b, lo, hi, m / 1024, a, b / a }'
    rm -f "$a" "$b"
fi

if [ "${WIDE:-0}" = 1 ]; then
    wide="$DIR/lines-108b-1g.txt"
    [ -s "$wide" ] || awk 'BEGIN { for (i = 0; i < 10000000; i++)
        printf "%010d,user%06d,%s,%d\n", i, (i * 7919) % 1000000,
               "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor", i * 13 }' > "$wide"
    row "1.08 GB of ~108-byte lines" "$wide" "$wide"
    row "the same, fairshuf --memory=256M" "$wide" "--memory=256M -T $DIR $wide"
    # goal: the default (here the four reads of passes.c) never the slower
    modes "$wide"
    a=$inmem b=$spill
    aw=$(cut -d' ' -f1 "$a" | median); bw=$(cut -d' ' -f1 "$b" | median)
    rm_=$(paste -d' ' "$a" "$b" | awk '{ print $1 / $7 }' | median)
    rr=$(paste -d' ' "$a" "$b" | awk '{ print $1 / $7 }' | sort -n |
         awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')
    echo
    awk -v a="$aw" -v b="$bw" -v r="$rm_" -v rr="$rr" 'BEGIN {
        printf "1.08 GB file: default %.2f s, --memory=256M %.2f s; default / --memory=256M %.2fx (per round %s)\n",
               a, b, r, rr }'
    # counts that move less with the machine's load: CPU split, page faults
    for x in "$a default" "$b --memory=256M"; do
        set -- $x
        echo "1.08 GB file, $2: user $(cut -d' ' -f4 "$1" | median) s, sys $(cut -d' ' -f5 "$1" | median) s, peak RSS $(( $(cut -d' ' -f3 "$1" | median | cut -d. -f1) / 1024 )) MB, minor faults $(cut -d' ' -f6 "$1" | median) (medians)"
    done
    rm -f "$a" "$b"
fi

if [ "${BIG:-0}" = 1 ]; then
    big="$DIR/lines-2g.txt"
    [ -s "$big" ] || for k in $(seq 20); do cat "$file"; done | head -c 2000000000 > "$big"
    r=$(measure "$BIN" lines --memory=256M -T "$DIR" "$big")
    set -- $r
    echo
    echo "2 GB file, fairshuf lines --memory=256M: wall $1 s, cpu $2 s, peak RSS $(( $3 / 1024 )) MB"
fi
# remove only what this script created
if [ "$created" = 1 ]; then rm -rf "$DIR"; fi
