#!/usr/bin/env bats
# mpi_fast.bats -- fairshuf-mpi's short cuts.  At P = 1 it takes fairshuf
# lines' own paths (mpi/lines.c: whole_file for one FILE, one_rank for
# several); on one node with one FILE rank r writes key slice r of P of
# fairshuf lines' output (whole_file, fs_lines_shuffle_slice), nothing
# exchanged.  The shards are still byte-identical to
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

@test "mpi lines, one node, one FILE (each rank its key slice, nothing exchanged): = the rounds = fairshuf lines" {
    need_mpi
    seq 1 3000 | sed 's/$/ some text/' > in
    for p in 2 3; do
        # -n: inside rank 0's slice, across slices, all; --memory=200K:
        # the library's out-of-core path for each slice
        all=("" "--header=4 -n 1000" "-n 7" "-z" "--memory=64M"
             "--header=2 --memory=200K" "-n 3000")
        [ "$p" = 3 ] && all=("" "--header=4 -n 1000" "-n 2100")
        for args in "${all[@]}"; do
            "$FS_BIN" lines --seed=m $args in > ref
            rm -f out.*
            mpi "$p" lines --seed=m $args --stats -o out.%d in 2> stats
            shards "$p" out | cmp - ref
            sent=$(sed -n 's/.*sent \([0-9]*\) .*/\1/p' stats | awk '{ s += $1 } END { print s }')
            [ "$sent" -eq 0 ]
            rm -f out.*
            FAIRSHUF_MPI_SHARED=0 mpi "$p" lines --seed=m $args -o out.%d in
            shards "$p" out | cmp - ref
        done
    done
    # -z on a FILE that ends with NUL; the counts: every line in once
    tr '\n' '\0' < in > inz
    "$FS_BIN" lines --seed=m -z -n 2000 inz > ref
    rm -f out.*
    mpi 2 lines --seed=m -z -n 2000 --stats -o out.%d inz 2> stats
    shards 2 out | cmp - ref
    grep -q "rounds 0" stats
    lines=$(sed -n 's/.* in \([0-9]*\) lines.*/\1/p' stats | awk '{ s += $1 } END { print s }')
    [ "$lines" -eq 3000 ]
    # a FILE without its last newline: same bytes
    { cat in; printf 'no newline'; } > in2
    "$FS_BIN" lines --seed=m in2 > ref
    rm -f out.*
    mpi 2 lines --seed=m -o out.%d in2
    shards 2 out | cmp - ref
    # P = 4 on a FILE with a line longer than a rank's share, and on an
    # empty FILE (every shard exists, empty)
    { head -c 200000 /dev/zero | tr '\0' x; echo; seq 1 50; } > long
    "$FS_BIN" lines --seed=e long > ref
    rm -f out.*
    mpi 4 lines --seed=e -o out.%d long
    shards 4 out | cmp - ref
    : > empty
    rm -f out.*
    mpi 2 lines --seed=e -o out.%d empty
    [ -e out.0 ] && [ -e out.1 ] && [ ! -s out.0 ] && [ ! -s out.1 ]
}

@test "mpi lines, one node: a FILE changed between the ranks' reads fails with its name, no shard left" {
    need_mpi
    seq 1 20000 | sed 's/$/ some text of the line/' > in
    # once rank 0 has written its slice, before rank 1 reads it, the hook
    # (mpi/lines.c, test_change_slices) makes one change to the copy:
    # changed: a delimiter in its middle overwritten, the times put back:
    #   the ranks keyed different numbers of lines;
    # cut: cut to half its size, the times put back: its size is not the
    #   one measured;
    # edit: one byte rewritten, every line end in place: the same lines are
    #   keyed, only the file's modification time tells
    for change in changed cut edit; do
        cp in "$change"
        run env FAIRSHUF_MPI_TEST_CHANGE_SLICES="$change" mpirun -np 2 \
            --oversubscribe "$MPI_BIN" lines --seed=c -o out.%d "$change"
        [ "$status" -ne 0 ]
        [[ "$output" == *"fairshuf-mpi: rank "*": $change: file changed as we read it (each rank reads it)"* ]]
        cmp -s in "$change" && false # the hook did change it
        if [ "$change" = edit ]; then # ... and kept its size and lines
            [ "$(wc -c < edit)" = "$(wc -c < in)" ]
            [ "$(wc -l < edit)" = "$(wc -l < in)" ]
        fi
        rm "$change"
        [ -z "$(ls -A | grep -v -x -e in)" ] # no shard, no temporary
    done
    # the negative control: the same run, nothing changed, succeeds
    cp in cut
    mpi 2 lines --seed=c -o out.%d cut
    "$FS_BIN" lines --seed=c in > ref
    shards 2 out | cmp - ref
}
