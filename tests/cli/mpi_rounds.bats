#!/usr/bin/env bats
# mpi_rounds.bats -- fairshuf-mpi's exchange in rounds (overlapped with
# packing and placing; docs/distributed.md) at tiny pieces (--test-piece),
# so that small inputs take many rounds: the shards still equal the
# one-machine output, and a failure injected in a round stops every rank
# with nothing left behind.  Apart from mpi.bats so that mpi/MUTANTS'
# mutants of the rounds are killed in about a minute.

load mpi_common
load long

# the rounds, not the one-node path (a single FILE read by every rank, each
# writing its key slice: mpi/lines.c whole_file), which mpi_fast.bats tests
export FAIRSHUF_MPI_SHARED=0

@test "mpi lines: the exchange in rounds, tiny pieces (P = 1..3, -n, --header, --csv, -z): = fairshuf lines" {
    need_mpi
    # lines of 1..60 bytes, a last one without its newline
    awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) { s = i; n = int(rand() * 60); for (j = 0; j < n; j++) s = s "x"; print s } printf "end" }' > in
    for args in "" "-n 1" "-n 700" "--header=5 -n 40" "--header=2999"; do
        "$FS_BIN" lines --seed=pc $args < in > ref
        for p in $(pick "1 2 3" "1 3"); do
            for piece in $(pick "1 100 4096" "1 100"); do
                rm -f out.*
                mpi "$p" lines --seed=pc $args --test-piece=$piece --stats -o out.%d in 2> stats
                shards "$p" out | cmp - ref
                if [ "$p" -gt 1 ] && [ "$piece" -eq 100 ] && [ -z "$args" ]; then
                    # many rounds (a piece of 100 bytes of a ~100 KB share)
                    [ "$(grep -c 'rounds [0-9][0-9][0-9]*;' stats)" -eq "$p" ]
                fi
            done
        done
    done
    # -z and two files (the first without a final newline joins the next)
    tr '\n' '\0' < in > in0
    printf 'a\0b' > in1
    cat in0 in1 | "$FS_BIN" lines -z --seed=pz > ref
    for p in 2 3; do
        rm -f out.*
        mpi "$p" lines -z --seed=pz --test-piece=64 -o out.%d in0 in1
        shards "$p" out | cmp - ref
    done
    # --csv: records with quoted newlines, framed, then in rounds
    python3 -c '
import random
random.seed(11)
f = ["plain", "\"quoted, comma\"", "\"two\nlines\"", "\"a \"\"q\"\" b\""]
open("in.csv", "w", newline="").write("".join("%d,%s\r\n" % (i, random.choice(f)) for i in range(800)))'
    csv_ref in.csv pv -n 300 > refc
    for p in 2 3; do
        rm -f out.*
        mpi "$p" lines --csv --seed=pv -n 300 --test-piece=50 -o out.%d in.csv
        shards "$p" out | cmp - refc
    done
}

@test "mpi array: the exchange in rounds, tiny pieces (P = 2, 3, --balanced): = P = 1" {
    need_mpi
    for n in $(pick "1 5 1000 4099" "5 4099"); do
        mpi 1 array "$n" --seed=pr -o ref.%d
        for p in 2 3; do
            for piece in $(pick "16 48 1600" "16 1600"); do
                for b in "" --balanced; do
                    rm -f q.*
                    mpi "$p" array "$n" --seed=pr $b --test-piece=$piece -o q.%d
                    shards "$p" q | cmp - ref.0
                done
            done
        done
    done
    # N = 16387 on 2 ranks: 8193 and 8194 indices, which alone would group
    # by 1 and 2 digits; every rank must use the same (the largest share's)
    mpi 1 array 16387 --seed=pr -o ref.%d
    rm -f q.*
    mpi 2 array 16387 --seed=pr --test-piece=40000 -o q.%d
    shards 2 q | cmp - ref.0
}

@test "mpi: a failure in the middle of the rounds stops every rank, no shard left" {
    need_mpi
    seq 1 3000 > in
    run env FAIRSHUF_MPI_TEST_FAIL_ROUND=1:3 mpirun -np 3 --oversubscribe "$MPI_BIN" lines --seed=1 --test-piece=500 -o out.%d in
    echo "$output"
    [ "$status" -ne 0 ]
    [[ $output == *"fairshuf-mpi: rank 1: exchange: Input/output error (injected in round 3)"* ]]
    [[ $output == *"fairshuf-mpi: rank 0: stopped: rank 1 failed: exchange: "* ]]
    [[ $output == *"fairshuf-mpi: rank 2: stopped: rank 1 failed: exchange: "* ]]
    [ -z "$(ls | grep out)" ]
    # round 0 (before anything is sent) and the last round (13.9 KB in
    # all, about 4.6 KB per rank: 10 pieces of 500 bytes)
    for j in 0 9; do
        run env FAIRSHUF_MPI_TEST_FAIL_ROUND=2:$j mpirun -np 3 --oversubscribe "$MPI_BIN" lines --seed=1 --test-piece=500 -o out.%d in
        [ "$status" -ne 0 ]
        [[ $output == *"fairshuf-mpi: rank 2: exchange: Input/output error (injected in round $j)"* ]]
        [[ $output == *"fairshuf-mpi: rank 0: stopped: rank 2 failed: "* ]]
        [ -z "$(ls | grep out)" ]
    done
    # and fs_mpi_permutation (array): every rank returns the status
    run env FAIRSHUF_MPI_TEST_FAIL_ROUND=0:2 mpirun -np 2 --oversubscribe "$MPI_BIN" array 1000 --seed=1 --test-piece=160 -o out.%d
    echo "$output"
    [ "$status" -ne 0 ]
    [[ $output == *"fairshuf-mpi: rank 1: stopped: rank 0 failed: shuffle: "* ]]
    [ -z "$(ls | grep out)" ]
}

@test "mpi lines -n in rounds: nothing is sent to a rank whose slice lies wholly past the K-th line" {
    need_mpi
    # 3000 lines on 3 ranks, -n 1500: every rank's 1000 lines are all
    # candidates, spread over the three slices; slices 0 and 1 hold about
    # 2000 of them, so slice 2 is wholly past the 1500th line
    seq 1 3000 > in
    mpi 3 lines --seed=cut -n 1500 --stats -o out.%d in 2> stats
    "$FS_BIN" lines --seed=cut -n 1500 in | cmp - <(shards 3 out)
    cat stats
    grep -q 'rank 2 of 3: .* received 0 spilled' stats
    [ ! -s out.2 ]
}
