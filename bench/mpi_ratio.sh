#!/usr/bin/env bash
# mpi_ratio.sh -- fairshuf-mpi against one machine, as ratios measured in
# one run: `fairshuf-mpi lines` at P = 1 and 2 against `fairshuf lines` on
# the same file, and `fairshuf-mpi array N` at P = 1 and 2 against
# `fairshuf perm N` (and at P = 1 the element path, fs_mpi_shuffle, with
# --test-elements; and P = 2 with FAIRSHUF_MPI_SHARED=0, the rounds that
# ranks on different nodes use).  ROUNDS interleaved rounds (the order rotates every
# round); per round the ratio of CPU time (perf stat task-clock of the
# whole process tree, mpirun and its daemon included), of its user part
# alone, and of wall time; printed: the median ratio and its min-max, with
# the load average.  The user column is there for VMs whose fresh pages
# (new memory, new page cache) cost system time that changes from run to
# run by whole seconds on a 1 GB file (docs/performance.md, "The machine").
# The kind `a0` (mpirun -np 1 fairshuf-mpi array 1) is the fixed cost of a
# job: the launcher, MPI_Init and the program's start; the rows "less
# start-up" take it off the P = 1 runs round by round, which is what the
# work itself costs beside the one-machine command (on the 133 MB file the
# start-up is about a third of the P = 1 job).
# Every MPI run's shards are checked against the one-machine output.
#
#   bench/mpi_ratio.sh                       3e6 lines (133 MB), 1e7, 5 rounds
#   LINES=1e6 N=1e6 ROUNDS=3 bench/mpi_ratio.sh
#   FILE=/var/tmp/fsb/lines-108b-1g.txt KINDS="lines l1 l2" bench/mpi_ratio.sh
# Environment: BIN (build/fairshuf), MPI_BIN (build/fairshuf-mpi), DIR;
# FILE: an existing file to shuffle instead of the generated one; KINDS:
# the runs to make (default: all, "lines l1 l2 l2r perm a0 a1 a2 e1").
# Not part of the test suite; needs perf (linux-perf).
set -eu
BIN=${BIN:-build/fairshuf}
MPI_BIN=${MPI_BIN:-build/fairshuf-mpi}
ROUNDS=${ROUNDS:-5}
LINES=${LINES:-3e6}
FILE=${FILE:-}
KINDS=${KINDS:-lines l1 l2 l2r perm a0 a1 a2 e1}
N=${N:-1e7}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
created=0
if [ -z "${DIR:-}" ]; then
    DIR=$(mktemp -d /tmp/fairshuf-mpi-ratio.XXXXXX)
    created=1
fi
trap '[ "$created" = 1 ] && rm -rf "$DIR"' EXIT
na=$(awk -v x="$N" 'BEGIN { printf "%d", x }')
if [ -n "$FILE" ]; then
    file=$FILE
    nl=$(wc -l < "$file")
else
    nl=$(awk -v x="$LINES" 'BEGIN { printf "%d", x }')
    file="$DIR/in.txt"
    seq 1 "$nl" | awk '{ print $1 "\tsome text of the line number " $1 }' > "$file"
fi
"$BIN" lines --seed=bench "$file" > "$DIR/ref.lines"

# one timed run: "cpu_s wall_s user_s" of the command's whole process tree
timed() {
    local t0 t1 cpu
    t0=$(date +%s.%N)
    cpu=$(perf stat -x, -e task-clock,user_time -o "$DIR/perf" -- "$@" > "$DIR/out" 2>/dev/null &&
          awk -F, '/task-clock/ { c = $1 / 1000 } /user_time/ { u = $1 / 1e9 }
                   END { printf "%.4f %.4f", c, u }' "$DIR/perf")
    t1=$(date +%s.%N)
    set -- $cpu
    echo "$1 $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $2"
}
check() { # shards of a P-rank run against the reference
    local p=$1 ref=$2
    for ((r = 0; r < p; r++)); do cat "$DIR/o.$r"; done | cmp -s - "$ref" ||
        { echo "mpi_ratio.sh: P = $p output differs from $ref" >&2; exit 1; }
}
run() {
    case $1 in
    lines) timed "$BIN" lines --seed=bench "$file" ;;
    l1) rm -f "$DIR"/o.*; timed mpirun -np 1 "$MPI_BIN" lines --seed=bench -o "$DIR/o.%d" "$file"; check 1 "$DIR/ref.lines" ;;
    l2) rm -f "$DIR"/o.*; timed mpirun -np 2 "$MPI_BIN" lines --seed=bench -o "$DIR/o.%d" "$file"; check 2 "$DIR/ref.lines" ;;
    # P = 2 without the one-node path (each rank reads the file and
    # writes its key slice): the lines exchanged in rounds, as between nodes
    l2r) rm -f "$DIR"/o.*; FAIRSHUF_MPI_SHARED=0 timed mpirun -np 2 "$MPI_BIN" lines --seed=bench -o "$DIR/o.%d" "$file"; check 2 "$DIR/ref.lines" ;;
    perm) timed "$BIN" perm "$na" --seed=bench ;;
    a0) rm -f "$DIR"/o.*; timed mpirun -np 1 "$MPI_BIN" array 1 --seed=bench -o "$DIR/o.%d" ;;
    a1) rm -f "$DIR"/o.*; timed mpirun -np 1 "$MPI_BIN" array "$na" --seed=bench -o "$DIR/o.%d"; cat "$DIR/o.0" > "$DIR/ref.array" ;;
    a2) rm -f "$DIR"/o.*; timed mpirun -np 2 "$MPI_BIN" array "$na" --seed=bench -o "$DIR/o.%d"; check 2 "$DIR/ref.array" ;;
    # the element path of the library (fs_mpi_shuffle on an array of the
    # integers) that `array` used before fs_mpi_permutation
    e1) rm -f "$DIR"/o.*; timed mpirun -np 1 "$MPI_BIN" array "$na" --seed=bench --test-elements -o "$DIR/o.%d"; check 1 "$DIR/ref.array" ;;
    esac
}
kinds=$KINDS
loads=()
for ((i = 0; i < ROUNDS; i++)); do
    loads+=("$(cut -d' ' -f1 /proc/loadavg)")
    # rotate the order by one every round
    order=$(echo $kinds | awk -v s="$i" '{ for (j = 0; j < NF; j++) { f = (j + s) % NF + 1; printf "%s ", $f } }')
    # a2 and e1 check against a1's output: keep a1 before them every round
    order=$(echo $order | tr ' ' '\n' | awk '$1 != "a2" && $1 != "e1" { print } $1 == "a1" { print "a2"; print "e1" }' | tr '\n' ' ')
    for k in $order; do
        run "$k" > "$DIR/one"
        read -r c w u < "$DIR/one"
        echo "$i $k $c $w $u" >> "$DIR/times"
    done
done
echo "lines: $nl lines, $(stat -c %s "$file") bytes; array/perm N = $na; $ROUNDS rounds; $(nproc) vCPUs; load average per round: ${loads[*]}"
echo
echo "| run | against | CPU ratio median (min-max) | user CPU ratio | wall ratio median (min-max) | CPU s median | wall s median |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
python3 - "$DIR/times" <<'PY'
import sys, statistics
t = {}
for line in open(sys.argv[1]):
    r, k, c, w, u = line.split()
    t.setdefault(k, {})[int(r)] = (float(c), float(w), float(u))
def row(name, k, base):
    if k not in t or base not in t:
        return
    cr = [t[k][r][0] / t[base][r][0] for r in t[k] if r in t[base]]
    wr = [t[k][r][1] / t[base][r][1] for r in t[k] if r in t[base]]
    ur = [t[k][r][2] / t[base][r][2] for r in t[k] if r in t[base]]
    c = statistics.median(v[0] for v in t[k].values())
    w = statistics.median(v[1] for v in t[k].values())
    print(f"| {name} | {base} | {statistics.median(cr):.2f} ({min(cr):.2f}-{max(cr):.2f}) "
          f"| {statistics.median(ur):.2f} ({min(ur):.2f}-{max(ur):.2f}) "
          f"| {statistics.median(wr):.2f} ({min(wr):.2f}-{max(wr):.2f}) | {c:.2f} | {w:.2f} |")
def less_startup(name, k, base):
    # per round: (k - a0) / base, CPU, user and wall
    if k not in t or base not in t or "a0" not in t:
        return
    rs = [r for r in t[k] if r in t[base] and r in t["a0"]]
    cols = []
    for i in range(3):
        v = [(t[k][r][i] - t["a0"][r][i]) / t[base][r][i] for r in rs]
        cols.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})")
    c = statistics.median(t[k][r][0] - t["a0"][r][0] for r in rs)
    w = statistics.median(t[k][r][1] - t["a0"][r][1] for r in rs)
    print(f"| {name} | {base} | {cols[0]} | {cols[1]} | {cols[2]} | {c:.2f} | {w:.2f} |")
row("fairshuf-mpi lines P=1", "l1", "lines")
less_startup("fairshuf-mpi lines P=1, less start-up (a0)", "l1", "lines")
row("fairshuf-mpi lines P=2", "l2", "lines")
row("fairshuf-mpi lines P=2", "l2", "l1")
row("fairshuf-mpi lines P=2, rounds", "l2r", "l1")
row("fairshuf-mpi lines P=2, rounds", "l2r", "l2")
row("start-up alone: fairshuf-mpi array 1, P=1 (a0)", "a0", "lines")
row("fairshuf-mpi array P=1", "a1", "perm")
less_startup("fairshuf-mpi array P=1, less start-up (a0)", "a1", "perm")
row("fairshuf-mpi array P=2", "a2", "perm")
row("fairshuf-mpi array P=2", "a2", "a1")
row("fairshuf-mpi array P=1, element path", "e1", "perm")
PY
