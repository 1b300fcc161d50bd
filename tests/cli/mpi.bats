#!/usr/bin/env bats
# mpi.bats -- fairshuf-mpi under mpirun -np 1..4 on this machine: the
# shards concatenated in rank order equal `fairshuf lines --seed` byte for
# byte, positions are uniform (with a negative control that must fail),
# and a failure on one rank stops every rank with nothing left behind.
#
# Open MPI is a test need (scripts/setup.sh installs it, so `make check`
# has it): these tests fail, never skip, when fairshuf-mpi is not built.
# Each mpirun costs about half a second, so runs are few and small.

load mpi_common
load long

@test "mpi: built and runnable (Open MPI is a test need)" {
    need_mpi
    run mpi 1 --version
    [ "$status" -eq 0 ]
    [[ $output == "fairshuf-mpi (fairshuf) "* ]]
    run mpi 1 --help
    [ "$status" -eq 0 ]
    [[ $output == *"--output=PATTERN"* ]]
}

@test "mpi: usage errors exit 2 with one message" {
    need_mpi
    run "$MPI_BIN" lines a
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: missing --output=PATTERN"* ]]
    run "$MPI_BIN" lines -o 'x.%d.%d' a
    [ "$status" -eq 2 ]
    [[ $output == *"invalid --output pattern"* ]]
    run "$MPI_BIN" lines -o 'x.%d' -
    [ "$status" -eq 2 ]
    run "$MPI_BIN" frob -o 'x.%d'
    [ "$status" -eq 2 ]
    [[ $output == *"unknown command 'frob'"* ]]
    run "$MPI_BIN" lines --seed= -o 'x.%d' a
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: invalid seed: '': empty"* ]]
}

@test "mpi lines: several files, P = 1..4: byte-identical to fairshuf lines --seed" {
    need_mpi
    seq 1 3000 > f1
    printf 'no final newline' > f2 # cat joins it with f3's first line
    awk 'BEGIN { for (i = 0; i < 500; i++) printf "%s line %d\n", substr("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 1, i % 30), i }' > f3
    : > f4
    printf 'last, unterminated' > f5
    cat f1 f2 f3 f4 f5 | "$FS_BIN" lines --seed=corpus > ref
    cat f1 f2 f3 f4 f5 | sort > sorted
    for p in $(pick "1 2 3 4" "1 3 4"); do
        rm -f out.*
        mpi "$p" lines --seed=corpus -o out.%d f1 f2 f3 f4 f5
        shards "$p" out | cmp - ref
        shards "$p" out | sort | cmp - sorted # a permutation
        [ "$(ls out.* | wc -l)" -eq "$p" ]   # no temporary file left
    done
}

@test "mpi lines: one file split by byte ranges, long lines, tiny exchange chunks" {
    need_mpi
    # a line longer than a rank's share: that rank gets no line, none is split
    { seq 1 2000; head -c 300000 /dev/zero | tr '\0' 'L'; echo; seq 2001 2100; } > big
    "$FS_BIN" lines --seed=7 big > ref
    for p in 2 4; do
        rm -f out.*
        mpi "$p" lines --seed=7 --test-chunk=1000 -o out.%d big
        shards "$p" out | cmp - ref
    done
    # the long line arrived whole in exactly one shard
    [ "$(grep -l LLLL out.* | wc -l)" -eq 1 ]
}

@test "mpi lines: -z, P = 3" {
    need_mpi
    printf 'a\0b b\0c\nc\0d\0e\0f\0g' > z
    "$FS_BIN" lines -z --seed=zz z > ref
    mpi 3 lines -z --seed=zz -o 'o%%.%d' z
    cat o%.0 o%.1 o%.2 | cmp - ref
}

@test "mpi lines: without --seed, a key from rank 0 shared by all ranks" {
    need_mpi
    seq 1 200 > in
    mpi 3 lines -o a.%d in
    mpi 3 lines -o b.%d in
    shards 3 a | sort -n | cmp - in
    shards 3 b | sort -n | cmp - in
    ! shards 3 a | cmp -s - <(shards 3 b) # 200! orders: equal means a fixed key
}

# The array entry points (fs_mpi_permutation; fs_mpi_shuffle with
# --test-elements) through `fairshuf-mpi array N`.
@test "mpi array: equals the keyed order; --balanced gives equal shard sizes" {
    need_mpi
    seq 0 999 > in
    "$FS_BIN" lines --seed=arr in > ref
    mpi 3 array 1000 --seed=arr --test-chunk=64 -o m.%d
    shards 3 m | cmp - ref
    mpi 3 array 1000 --seed=arr --balanced -o b.%d
    shards 3 b | cmp - ref
    [ "$(wc -l < b.0)" -eq 333 ] && [ "$(wc -l < b.1)" -eq 333 ] && [ "$(wc -l < b.2)" -eq 334 ]
}

# `array` runs fs_mpi_permutation (no element array); --test-elements
# holds the integers and runs fs_mpi_shuffle: the same shards, any P.
@test "mpi array: fs_mpi_permutation gives fs_mpi_shuffle's shards (P = 1..3, N = 0, 1, 5, 1000, --balanced)" {
    need_mpi
    # make check: N = 0 at P = 1, 1 at P = 2 (fewer elements than ranks),
    # 5 at P = 3; 1000 at every P; --balanced at P = 1 and 3 (1000 and 5);
    # the last run of each P has N = 1000 (checked against lines below)
    for p in 1 2 3; do
        short=("" "0:- 1000:--balanced" "1:- 1000:-" "5:--balanced 1000:-")
        for nb in $(pick "0:- 0:--balanced 1:- 1:--balanced 5:- 5:--balanced 1000:- 1000:--balanced" "${short[$p]}"); do
            n=${nb%%:*} b=${nb#*:}
            [ "$b" = - ] && b=
            rm -f e.* q.*
            mpi "$p" array "$n" --seed=pe $b --test-elements -o e.%d
            mpi "$p" array "$n" --seed=pe $b --test-chunk=48 -o q.%d
            for ((r = 0; r < p; r++)); do cmp "e.$r" "q.$r"; done
        done
        seq 0 999 | "$FS_BIN" lines --seed=pe | cmp - <(shards "$p" q)
    done
}

# uniformity RUNS_FILE: chi-square of the position matrix (6 values x 6
# positions across the three shards, 600 runs, df 25) must lie in
# [11.524, 52.620] (chi-square quantiles 0.001 and 0.999), and the size of
# shard 0 over the runs must follow Binomial(6, 1/3) (5 classes after
# pooling 5 and 6, df 5: at most 20.515, the 0.999 quantile).
uniformity() {
    awk '
    { pos = n[$1]++; c[$2, pos]++; if (FILENAME == ARGV[1]) s0[$1]++ }
    END {
        R = 600; E = R / 6; x = 0
        for (v = 0; v < 6; v++) for (p = 0; p < 6; p++) x += (c[v, p] - E) ^ 2 / E
        for (j = 0; j < R; j++) if (n[j] != 6) { print "run " j " has " n[j] " values"; exit 1 }
        split("0.087791495 0.263374486 0.329218107 0.219478738 0.082304527 0.017832647", pk, " ")
        for (j = 0; j < R; j++) { k = s0[j] + 0; if (k > 5) k = 5; h[k]++ }
        y = 0
        for (k = 0; k <= 5; k++) { e = R * pk[k + 1]; if (k == 5) e = R * (1 - 0.087791495 - 0.263374486 - 0.329218107 - 0.219478738 - 0.082304527); y += (h[k] - e) ^ 2 / e }
        printf "positions chi2 = %.3f (band 11.524..52.620), shard-0 size chi2 = %.3f (<= 20.515)\n", x, y
        exit !(x >= 11.524 && x <= 52.620 && y <= 20.515)
    }' u.0 u.1 u.2
}

@test "mpi array: positions across shards uniform at P = 3 (600 seeded runs)" {
    need_mpi
    mpi 3 array 6 --seed=uni --test-runs=600 -o u.%d
    run uniformity
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "mpi array: negative control (elements kept on their rank) fails the same test" {
    need_mpi
    mpi 3 array 6 --seed=uni --test-runs=600 --test-local-only -o u.%d
    run uniformity
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == "positions chi2 = "* ]] # failed on the statistic, not on input
}

@test "mpi: a read failure on one rank stops every rank, no shard left" {
    need_mpi
    seq 1 1000 > in
    run mpi 3 lines --seed=1 --test-fail-read=1 -o out.%d in
    [ "$status" -ne 0 ]
    [[ $output == *"fairshuf-mpi: rank 1: in: Input/output error"* ]]
    [[ $output == *"fairshuf-mpi: rank 0: stopped: rank 1 failed: in: "* ]]
    [[ $output == *"fairshuf-mpi: rank 2: stopped: rank 1 failed: in: "* ]]
    [ -z "$(ls | grep out)" ]
}

@test "mpi: a missing input or an unwritable shard fails cleanly on all ranks" {
    need_mpi
    seq 1 100 > in
    run mpi 2 lines --seed=1 -o out.%d in missing
    [ "$status" -ne 0 ]
    [[ $output == *"fairshuf-mpi: rank 0: missing: No such file or directory"* ]]
    [[ $output == *"fairshuf-mpi: rank 1: stopped: rank 0 failed: missing: No such file or directory"* ]]
    [ -z "$(ls | grep out)" ]
    mkdir out.2 # rank 2's shard cannot be written
    run mpi 3 lines --seed=1 -o out.%d in
    [ "$status" -ne 0 ]
    [[ $output == *"fairshuf-mpi: rank 2: out.2: Is a directory"* ]]
    [[ $output == *"fairshuf-mpi: rank 0: stopped: rank 2 failed: out.2: Is a directory"* ]]
    [ "$(ls | grep out)" = "out.2" ] && [ -z "$(ls out.2)" ]
}

@test "mpi lines: out of core (--memory, -T): same bytes, P = 1 and 3" {
    need_mpi
    { seq 1 60000; head -c 100000 /dev/zero | tr '\0' 'L'; echo; seq 1 5000; } > in1
    seq 70000 90000 > in2
    cat in1 in2 | "$FS_BIN" lines --seed=ooc > ref
    mkdir tmp
    for p in 1 3; do
        rm -f out.*
        mpi "$p" lines --seed=ooc --memory=1500K -T tmp --stats -o out.%d in1 in2 2> stats
        shards "$p" out | cmp - ref
        grep -q "spilled [1-9]" stats # it did go through bucket files
    done
    [ -z "$(ls tmp)" ]
}

@test "mpi lines: a bucket over --memory is split further (P = 1 and 3, with -n)" {
    need_mpi
    seq 1 200000 > in # 4.6 MB of records: top-level buckets of 24-72 KB
    for p in 1 3; do
        # make check: -n at P = 3 only
        for args in "" $(pick "-n:150000" "$([ "$p" -eq 3 ] && echo -n:150000)"); do
            args=${args//:/ }
            rm -f out.*
            "$FS_BIN" lines --seed=split $args in > ref
            mpi "$p" lines --seed=split $args --memory=16K --stats -o out.%d in 2> "stats$p$args"
            shards "$p" out | cmp - ref
        done
        # split: the temporary files took every record (its line and 16
        # bytes) at least twice: once into a bucket, once into a part
        awk '{ for (i = 1; i < NF; i++) { if ($i == "in") n += $(i + 1); if ($i == "lines" && $(i - 2) == "in") b += $(i + 1); if ($i == "spilled") s += $(i + 1) } }
             END { print n, b, s; exit !(n == 200000 && s >= 2 * (b + 16 * n)) }' "stats$p"
    done
}

@test "mpi: one line over --memory fails cleanly on every rank in rounds; one node, one FILE: out of core as fairshuf lines" {
    need_mpi
    { seq 1 10000; head -c 300000 /dev/zero | tr '\0' 'L'; echo; } > in # one line of 3 budgets
    # in rounds (the one-node path of one FILE is the library's: below)
    run env FAIRSHUF_MPI_SHARED=0 mpirun -np 2 --oversubscribe "$MPI_BIN" \
        lines --seed=1 --memory=100K -o out.%d in
    [ "$status" -ne 0 ]
    [[ $output == *"rank "?": a line this rank received needs about"*"more than --memory=100 KiB"* ]]
    [[ $output == *"stopped: rank "?" failed: a line this rank received"* ]]
    [ -z "$(ls | grep out)" ]
    # each rank's key slice of one FILE on one node: fairshuf lines's out
    # of core path, which writes a line longer than the budget as it is
    mpi 2 lines --seed=1 --memory=100K -o out.%d in
    "$FS_BIN" lines --seed=1 --memory=100K in | cmp - <(shards 2 out)
}

# ---- -n/--head-count and --header=N: byte-identical to fairshuf lines ----

# opts_input: 401 lines in four files (two without a final newline, which
# cat joins with the next file's first line or terminates at the end)
opts_input() {
    seq 1 300 > f1
    printf 'no final newline ' > f2
    awk 'BEGIN { for (i = 0; i < 100; i++) printf "%s %d\n", substr("yyyyyyyyyyyyyyyyyyyy", 1, i % 20), i }' > f3
    printf 'last, unterminated' > f4
    { cat f1 f2 f3 f4; echo; } > all # the last line terminated, as output
    [ "$(wc -l < all)" -eq 401 ]
}

# same P ARGS...: fairshuf-mpi lines on P ranks against
# `cat f1 f2 f3 f4 | fairshuf lines`, both with --seed=opts ARGS; every
# shard exists, their concatenation equals the reference byte for byte
same() {
    local p=$1
    shift
    rm -f out.*
    mpi "$p" lines --seed=opts "$@" -o out.%d f1 f2 f3 f4
    cat f1 f2 f3 f4 | "$FS_BIN" lines --seed=opts "$@" > ref
    [ "$(ls out.* | wc -l)" -eq "$p" ]
    if ! shards "$p" out | cmp - ref; then
        echo "differs: P = $p, $*" >&2
        return 1
    fi
}

@test "mpi lines -n: P = 1..4, K = 0, 1, inside rank 0, spanning ranks, all, more" {
    need_mpi
    opts_input
    cat all | "$FS_BIN" lines --seed=opts > full
    for p in $(pick "1 2 3 4" "1 3"); do
        # make check: at P = 1 (no rank boundary to span) K = 0, 250, 5000
        for k in $(pick "0 1 9 250 401 5000" "$([ "$p" -eq 1 ] && echo 0 250 5000 || echo 0 1 9 250 401 5000)"); do
            same "$p" -n "$k"
            # the documented meaning: the head of the full order
            head -n "$k" full | cmp - ref
            [ "$(shards "$p" out | wc -l)" -eq $((k < 401 ? k : 401)) ]
            if [ "$p" -gt 1 ] && [ "$k" -eq 9 ]; then # all in rank 0's shard
                [ "$(wc -l < out.0)" -eq 9 ] && [ ! -s "out.$((p - 1))" ]
            fi
            if [ "$p" -gt 1 ] && [ "$k" -eq 250 ]; then # spans ranks
                [ "$(wc -l < out.0)" -lt 250 ] && [ -s out.1 ]
            fi
            [ "$k" -ne 0 ] || [ -z "$(shards "$p" out)" ]
        done
    done
    same 3 --head-count=20 -n 30 # the smallest count wins, as in lines
    [ "$(wc -l < ref)" -eq 20 ]
}

@test "mpi lines --header: P = 1..4, N = 0, 1, 3, spanning ranks, all, more; with -n" {
    need_mpi
    opts_input
    # make check: P = 1 (several files: fairshuf lines' own path, which
    # mpi_fast.bats also runs with --header -n) N = 0, 999, 3 with -n 0 and
    # 401 with -n 5; P = 4 every case below
    for p in $(pick "1 2 3 4" "1 4"); do
        for n in $(pick "0 1 3 350 401 999" "$([ "$p" -eq 1 ] && echo 0 999 || echo 0 1 350 999)"); do
            same "$p" --header="$n"
            head -n "$n" all | cmp - <(head -n "$n" ref) # unshuffled, first
        done
        if [ "$p" -gt 1 ] || [ -n "${FS_TEST_LONG:-}" ]; then same "$p" --header=3 -n 7; fi
        same "$p" --header=3 -n 0 # the header only
        [ "$(wc -l < ref)" -eq 3 ] && [ "$(wc -l < out.0)" -eq 3 ]
        if [ "$p" -gt 1 ] || [ -n "${FS_TEST_LONG:-}" ]; then same "$p" --header=350 -n 40; fi
        same "$p" --header=401 -n 5 # nothing left to shuffle
    done
    # 350 lines reach past rank 0's byte range: rank 0 still writes them
    [ "$(head -c 1000 all | wc -l)" -lt 350 ]
}

@test "mpi lines -n and --header with -z, P = 3" {
    need_mpi
    printf 'h1\0h2\0a\0b b\0c\nc\0d\0e\0f\0g' > z
    for args in "-n 2" "--header=2" "--header=2 -n 3" "--header=9 -n 1"; do
        rm -f o.*
        "$FS_BIN" lines -z --seed=zz $args z > ref
        mpi 3 lines -z --seed=zz $args -o o.%d z
        cat o.0 o.1 o.2 | cmp - ref
    done
}

@test "mpi lines -n and --header out of core (--memory), P = 1 and 3" {
    need_mpi
    { seq 1 60000; head -c 100000 /dev/zero | tr '\0' 'L'; echo; seq 1 5000; } > in1
    seq 70000 90000 > in2
    for p in 1 3; do
        # make check: P = 1 with the header and -n together, P = 3 each
        for args in $(pick "-n:30000 --header=2:-n:45000 --header=5000" \
                           "$([ "$p" -eq 1 ] && echo --header=2:-n:45000 || echo -n:30000 --header=2:-n:45000 --header=5000)"); do
            args=${args//:/ }
            rm -f out.*
            cat in1 in2 | "$FS_BIN" lines --seed=ooc $args > ref
            mpi "$p" lines --seed=ooc $args --memory=1500K --stats -o out.%d in1 in2 2> stats
            shards "$p" out | cmp - ref
            grep -q "spilled [1-9]" stats # it did go through bucket files
        done
    done
}

@test "mpi lines: in memory, more received than --memory holds is bucketed, not fatal" {
    need_mpi
    # three lines of 100 KB, one per rank's share; --memory=300003 keeps
    # every share in memory, and with this seed rank 2 receives two of
    # the lines: its share and what it received exceed the budget
    for i in 0 1 2; do head -c 99999 /dev/zero | tr '\0' "$i"; echo; done > in
    mpi 3 lines --seed=3 --memory=300003 --stats -o out.%d in 2> stats
    "$FS_BIN" lines --seed=3 in | cmp - <(shards 3 out)
    grep -q "rank 2 of 3: .* spilled [1-9]" stats
}

@test "mpi lines: the bucketed fallback walks each rank's kept lines in input order (P = 1..3, -n, --header, --csv)" {
    need_mpi
    # the test hook sends every in-memory run down the path above, with
    # thousands of lines kept on each rank (their items grouped by key)
    seq 1 30000 | awk '{ printf "%d,\"a\nb\",%s\n", $1, substr("xxxxxxxxxxxxxxxxxxxx", 1, $1 % 17) }' > in
    # make check: P = 1 -n; P = 2 --header and --csv; P = 3 plain and -n
    short=("" "-n:777" "--header=3 --csv" ": -n:777")
    for p in 1 2 3; do
        for args in $(pick ": -n:777 --header=3 --csv" "${short[$p]}"); do
            args=${args//:/ }
            rm -f out.*
            FAIRSHUF_MPI_TEST_SPILL_ALL=1 mpi "$p" lines --seed=w $args --memory=64M --stats -o out.%d in 2> stats
            grep -q "spilled [1-9]" stats
            "$FS_BIN" lines --seed=w $args in | cmp - <(shards "$p" out)
        done
    done
}


@test "mpi lines --csv: quoted records stay whole, = fairshuf lines --csv (P = 1..3, in memory and out of core, -n, --header)" {
    need_mpi
    python3 -c '
import random
random.seed(7)
f = ["plain", "\"quoted, comma\"", "\"two\nlines\"", "\"a \"\"q\"\" b\"", "\"x\r\ny\""]
rows = ["id,text\r\n"] + ["%d,%s\r\n" % (i, random.choice(f)) for i in range(3000)]
open("in.csv", "w", newline="").write("".join(rows) + "3000,\"last\nno end\"")' 
    csv_ref in.csv c > ref
    [ "$(grep -c . ref)" -gt 3001 ] # records hold newlines ...
    for p in $(pick "1 2 3" "2 3"); do # make check: P = 1 in the loop below
        rm -f out.*
        mpi "$p" lines --csv --seed=c -o out.%d in.csv
        shards "$p" out | cmp - ref
    done
    # ... and the whole records are what moved: a quoted newline split
    # would not give these bytes; with -n and --header, out of core
    head -c 9 in.csv > ref2 # the header record "id,text\r\n"
    csv_ref <(tail -c +10 in.csv) c -n 40 >> ref2
    for p in 1 3; do
        rm -f out.*
        mpi "$p" lines --csv --seed=c --header=1 -n 40 -o out.%d in.csv
        shards "$p" out | cmp - ref2
        rm -f out.*
        mpi "$p" lines --csv --seed=c --memory=16K --stats -o out.%d in.csv 2> stats
        shards "$p" out | cmp - ref
        grep -q "spilled [1-9]" stats
    done
    # the seeded definitions agree: fairshuf lines --csv, where it exists
    if "$FS_BIN" lines --help | grep -q -- --csv; then
        "$FS_BIN" lines --csv --seed=c in.csv | cmp - ref
    fi
    # the negative control: split as plain lines, the order differs
    rm -f out.*
    mpi 2 lines --seed=c -o out.%d in.csv
    ! shards 2 out | cmp -s - ref
}

@test "mpi lines --csv: input ending inside quotes fails on every rank; --csv with -z or array is a usage error" {
    need_mpi
    printf 'a,"open\nb,c\nd,e\n' > bad.csv
    run mpi 2 lines --csv --seed=1 -o out.%d bad.csv
    [ "$status" -ne 0 ]
    [[ $output == *"bad.csv: CSV input ends inside a quoted field"* ]]
    [ -z "$(ls | grep out)" ]
    run "$MPI_BIN" lines --csv -z -o out.%d bad.csv
    [ "$status" -eq 2 ]
    run "$MPI_BIN" array 5 --csv -o out.%d
    [ "$status" -eq 2 ]
}

@test "mpi lines -n: lines that cannot be in the head are not sent" {
    need_mpi
    seq 1 20000 > in
    # in rounds: on one node one FILE sends nothing at all (mpi_fast.bats)
    FAIRSHUF_MPI_SHARED=0 mpi 4 lines --seed=cut -n 10 --stats -o out.%d in 2> stats
    "$FS_BIN" lines --seed=cut -n 10 in | cmp - <(shards 4 out)
    cat stats
    # at most 10 lines (each a 20-byte head + 6 bytes) leave each rank ...
    [ "$(grep -c 'sent \(0\|[1-9][0-9]\|1[0-9][0-9]\|2[0-5][0-9]\|260\) received' stats)" -eq 4 ]
    # ... and, with this seed, all ten are in rank 0's slice: no other rank
    # receives a line
    [ "$(grep -c 'received 0 spilled' stats)" -eq 3 ]
}

@test "mpi lines: bad -n or --header values are usage errors (exit 2)" {
    need_mpi
    seq 1 10 > in
    run "$MPI_BIN" lines -n x -o 'o.%d' in
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: invalid line count: 'x'"* ]]
    run "$MPI_BIN" lines --head-count=-1 -o 'o.%d' in
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: invalid line count: '-1'"* ]]
    run "$MPI_BIN" lines --header=1x -o 'o.%d' in
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: invalid header line count: '1x'"* ]]
    run "$MPI_BIN" lines -o 'o.%d' in -n
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: option '-n' requires an argument"* ]]
    run "$MPI_BIN" array 10 -n 3 -o 'o.%d'
    [ "$status" -eq 2 ]
    [[ $output == *"fairshuf-mpi: array: -n and --header apply to lines"* ]]
    [ -z "$(ls | grep '^o\.')" ]
    # a count past 2^64 - 1 is no limit, as in fairshuf lines
    mpi 2 lines --seed=1 -n 99999999999999999999999 -o o.%d in
    cat o.0 o.1 | sort -n | cmp - in
}

@test "mpi: a rank that dies (SIGKILL or SIGTERM) leaves no shard and no temporary file" {
    need_mpi
    seq 1 1000 > in
    for term in "" 1; do
        st=0
        FAIRSHUF_MPI_TEST_DIE_RANK=1 FAIRSHUF_MPI_TEST_DIE_TERM=$term \
            mpi 3 lines --seed=1 -o out.%d in > /dev/null 2>&1 || st=$?
        [ "$st" -ne 0 ] || { echo "term=$term: status 0"; return 1; }
        [ -z "$(ls -A | grep out)" ] || { echo "term=$term: left:"; ls -A; return 1; }
    done
    mpi 3 lines --seed=1 -o out.%d in # and without the hook, whole shards
    [ "$(ls -A | grep -c out)" = 3 ] && cat out.0 out.1 out.2 | sort -n | cmp - in
}

