#!/usr/bin/env bats
# mpi_fast.bats -- fairshuf-mpi's short cuts.  At P = 1 it takes fairshuf
# lines' own paths (mpi/lines.c: whole_file for one FILE, one_rank for
# several); on one node with one FILE every rank maps the file and only
# index entries move (in_mapped).  The shards are still byte-identical to
# `fairshuf lines --seed` (and to the rounds, FAIRSHUF_MPI_SHARED=0), with
# --header, -n and -z, and the --stats counts are those of the input.

load mpi_common

@test "mpi lines, P = 1: one file and several files, --header, -n, -z" {
    need_mpi
    seq 1 2000 > f1
    printf 'no final newline' > f2 # joins f3's first line, as cat does
    seq 5000 5300 > f3
    cat f1 f2 f3 > all
    for args in "--header=3 -n 700" "-z -n 5"; do
        "$FS_BIN" lines --seed=p1 $args all > ref
        rm -f out.*
        mpi 1 lines --seed=p1 $args -o out.%d all # one FILE
        cmp out.0 ref
        rm -f out.*
        mpi 1 lines --seed=p1 $args -o out.%d f1 f2 f3 # several
        cmp out.0 ref
    done
    # the counts of the run: every line in, every line out
    "$FS_BIN" lines --seed=p1 all > ref
    rm -f out.*
    mpi 1 lines --seed=p1 --stats -o out.%d all 2> stats
    cmp out.0 ref
    grep -q "in 2301 lines $(stat -c %s all) bytes; out 2301 lines $(stat -c %s all) bytes" stats
}

@test "mpi lines, one node, one FILE (the file mapped, index entries exchanged): = the rounds = fairshuf lines" {
    need_mpi
    seq 1 3000 | sed 's/$/ some text/' > in
    for p in 2 3; do
        all=("" "--header=4 -n 1000" "-n 7" "-z" "--memory=64M")
        [ "$p" = 3 ] && all=("" "--header=4 -n 1000")
        for args in "${all[@]}"; do
            "$FS_BIN" lines --seed=m $args in > ref
            rm -f out.*
            FAIRSHUF_MPI_TEST_CHECK_INDEX=1 mpi "$p" lines --seed=m $args -o out.%d in
            shards "$p" out | cmp - ref
            rm -f out.*
            FAIRSHUF_MPI_SHARED=0 mpi "$p" lines --seed=m $args -o out.%d in
            shards "$p" out | cmp - ref
        done
    done
    # -z on a FILE that ends with NUL: mapped too
    tr '\n' '\0' < in > inz
    "$FS_BIN" lines --seed=m -z -n 2000 inz > ref
    rm -f out.*
    FAIRSHUF_MPI_TEST_CHECK_INDEX=1 mpi 2 lines --seed=m -z -n 2000 --stats -o out.%d inz 2> stats
    shards 2 out | cmp - ref
    grep -q "rounds 0" stats
    # a FILE without its last newline takes the general path: same bytes
    { cat in; printf 'no newline'; } > in2
    "$FS_BIN" lines --seed=m in2 > ref
    rm -f out.*
    mpi 2 lines --seed=m -o out.%d in2
    shards 2 out | cmp - ref
    # mapped: only items move (16 bytes a line), no rounds
    rm -f out.*
    mpi 2 lines --seed=m --stats -o out.%d in 2> stats
    grep -q "rounds 0" stats
    sent=$(sed -n 's/.*sent \([0-9]*\) .*/\1/p' stats | awk '{ s += $1 } END { print s }')
    [ $((sent % 16)) -eq 0 ] && [ "$sent" -gt 0 ] && [ "$sent" -lt $((3000 * 16)) ]
    # P = 3 with an empty share (a line longer than a share): the tie
    # rule's line numbers found across ranks, checked on every item
    { head -c 200000 /dev/zero | tr '\0' x; echo; seq 1 50; } > long
    "$FS_BIN" lines --seed=e long > ref
    rm -f out.*
    FAIRSHUF_MPI_TEST_CHECK_INDEX=1 mpi 3 lines --seed=e -o out.%d long
    shards 3 out | cmp - ref
}

@test "mpi lines, one node: a FILE changed or cut while mapped fails with its name, no shard left" {
    need_mpi
    seq 1 20000 | sed 's/$/ some text of the line/' > in
    # its last delimiter overwritten after the lines were counted
    cp in changed
    run env FAIRSHUF_MPI_TEST_CHANGE_MAPPED=1 mpirun -np 2 --oversubscribe \
        "$MPI_BIN" lines --seed=c -o out.%d changed
    [ "$status" -ne 0 ]
    [[ "$output" == *"fairshuf-mpi: rank "*": changed: file changed as we read it (while mapped)"* ]]
    [ -z "$(ls -A | grep -v -x -e in -e changed)" ] # no shard, no temporary
    # ... or once the items are made: the writing rank finds it
    cp in changed
    run env FAIRSHUF_MPI_TEST_CHANGE_MAPPED=write mpirun -np 2 --oversubscribe \
        "$MPI_BIN" lines --seed=c -o out.%d changed
    [ "$status" -ne 0 ]
    [[ "$output" == *"fairshuf-mpi: rank "*": changed: file changed as we read it (while mapped)"* ]]
    [ -z "$(ls -A | grep -v -x -e in -e changed)" ]
    # cut to half its size: the ranks that read past the end say why
    cp in cut
    run env FAIRSHUF_MPI_TEST_SHRINK_MAPPED=1 mpirun -np 2 --oversubscribe \
        "$MPI_BIN" lines --seed=c -o out.%d cut
    [ "$status" -ne 0 ]
    [[ "$output" == *"fairshuf-mpi: rank "*": cut: file changed as we read it (it shrank, or a page could not be read, while mapped)"* ]]
    [ -z "$(ls -A | grep -v -x -e in -e changed -e cut)" ]
    # the negative control: the same run, nothing changed, succeeds
    cp in cut
    mpi 2 lines --seed=c -o out.%d cut
    "$FS_BIN" lines --seed=c in > ref
    shards 2 out | cmp - ref
}
