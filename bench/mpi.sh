#!/usr/bin/env bash
# mpi.sh -- fairshuf-mpi lines on P = 1..4 ranks of this machine: per-rank
# throughput and peak memory, from the ranks' own --stats lines, medians
# of RUNS runs; fairshuf lines on the same file as the one-process
# reference.  Every run's shards are checked against the reference.
#
#   bench/mpi.sh                 3e6-line file (133 MB), 3 runs, P = 1..4
#   LINES=1e7 RUNS=5 PS="1 2 4" bench/mpi.sh
#   MEMORY=32M bench/mpi.sh      out of core: pieces and bucket files
# Environment: BIN (default build/fairshuf), MPI_BIN (build/fairshuf-mpi),
# DIR for the data (default a fresh directory under /tmp, removed at the
# end).  Output: a markdown table on stdout.  Not part of the test suite.
#
# Columns: wall = mpirun start to end (includes its ~0.5 s start-up);
# work = the slowest rank's time from reading to its shard's rename;
# per-rank MB/s = (input MB / P) / work, the rate one rank sustains;
# RSS = the largest rank's peak resident memory.
set -eu
BIN=${BIN:-build/fairshuf}
MPI_BIN=${MPI_BIN:-build/fairshuf-mpi}
RUNS=${RUNS:-3}
PS=${PS:-1 2 3 4}
LINES=${LINES:-3e6}
[ -x "$BIN" ] && [ -x "$MPI_BIN" ] || {
    echo "mpi.sh: build first ($BIN, $MPI_BIN; fairshuf-mpi needs Open MPI)" >&2
    exit 1
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
created=0
if [ -z "${DIR:-}" ]; then
    DIR=$(mktemp -d /tmp/fairshuf-mpi-bench.XXXXXX)
    created=1
fi
trap '[ "$created" = 1 ] && rm -rf "$DIR"' EXIT
n=$(awk -v x="$LINES" 'BEGIN { printf "%d", x }')
file="$DIR/in.txt"
seq 1 "$n" | awk '{ print $1 "\tsome text of the line number " $1 }' > "$file"
bytes=$(stat -c %s "$file")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ref_wall=() ref_rss=()
for ((i = 0; i < RUNS; i++)); do
    t=$( { /usr/bin/time -f '%e %M' "$BIN" lines --seed=bench "$file" > "$DIR/ref"; } 2>&1 | tail -n 1)
    set -- $t
    ref_wall+=("$1") ref_rss+=("$2")
done

echo "input: $n lines, $mb MB; $(nproc) vCPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| P | wall s | work s | per-rank MB/s | total MB/s | sent per rank MB | peak RSS per rank MB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '| fairshuf lines | %s | | | | | %s |\n' \
    "$(printf '%s\n' "${ref_wall[@]}" | median)" \
    "$(printf '%s\n' "${ref_rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')"
for p in $PS; do
    walls=() works=() rss=() sent=()
    for ((i = 0; i < RUNS; i++)); do
        rm -f "$DIR"/out.*
        t0=$(date +%s.%N)
        mpirun -np "$p" --oversubscribe "$MPI_BIN" lines --seed=bench --stats \
            ${MEMORY:+--memory=$MEMORY} \
            -o "$DIR/out.%d" "$file" 2> "$DIR/stats"
        t1=$(date +%s.%N)
        for ((r = 0; r < p; r++)); do cat "$DIR/out.$r"; done | cmp - "$DIR/ref"
        walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
        # "... total T s; peak RSS K KiB"
        set -- $(awk '/ rank [0-9]+ of / {
                for (i = 1; i <= NF; i++) {
                    if ($i == "total") w = $(i+1)
                    if ($i == "RSS") r = $(i+1)
                    if ($i == "sent") s = $(i+1)
                }
                if (w > W) W = w; if (r > R) R = r; S += s; n++
            } END { printf "%.3f %d %.1f\n", W, R, S / n / 1e6 }' "$DIR/stats")
        works+=("$1") rss+=("$2") sent+=("$3")
    done
    w=$(printf '%s\n' "${works[@]}" | median)
    printf '| %d | %s | %s | %s | %s | %s | %s |\n' "$p" \
        "$(printf '%s\n' "${walls[@]}" | median)" "$w" \
        "$(awk -v m="$mb" -v p="$p" -v w="$w" 'BEGIN { printf "%.0f", m / p / w }')" \
        "$(awk -v m="$mb" -v w="$w" 'BEGIN { printf "%.0f", m / w }')" \
        "$(printf '%s\n' "${sent[@]}" | median)" \
        "$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')"
done
