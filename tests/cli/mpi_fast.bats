#!/usr/bin/env bats
# mpi_fast.bats -- fairshuf-mpi at P = 1 takes fairshuf lines' own paths
# (mpi/lines.c: whole_file for one FILE, one_rank for several): the shard
# is still byte-identical to `fairshuf lines --seed`, with --header, -n and
# -z, and the --stats counts are those of the input.  A few mpirun calls.

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
