# mpi_common.bash -- what tests/cli/mpi.bats and mpi_rounds.bats share:
# setup (Open MPI as root, shared memory only, ASan's leak suppressions),
# need_mpi, mpi P ARGS..., shards P PREFIX, csv_ref FILE SEED ARGS...

setup() {
    export LC_ALL=C
    MPI_BIN="$(dirname "$FS_BIN")/fairshuf-mpi"
    T="$BATS_TEST_TMPDIR"
    cd "$T"
    # as root Open MPI wants these; shared memory only, no network probing
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    # no probing for network transports, PCI devices or a PMIx data store
    # that one machine does not use: each mpirun starts in about 0.2 s
    # instead of 0.5 (docs/distributed.md's start-up variables)
    export OMPI_MCA_pml=ob1 OMPI_MCA_mtl='^ofi,psm2,psm' OMPI_MCA_osc='^ucx'
    export PMIX_MCA_gds=hash HWLOC_COMPONENTS=-linuxio,-pci
    # a session directory of the test's own: mpiruns of other test files
    # running at once (tests/run.sh) race on the shared /tmp/ompi.HOST.UID
    export OMPI_MCA_orte_tmpdir_base="$T"
    # under ASan: Open MPI's own allocations at exit are not ours to report
    # (full stacks, so that frames in its plugins name their library)
    export LSAN_OPTIONS="suppressions=$BATS_TEST_DIRNAME/../../mpi/lsan.supp:print_suppressions=0"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
}

need_mpi() {
    if [ ! -x "$MPI_BIN" ] || ! command -v mpirun >/dev/null; then
        echo "fairshuf-mpi or mpirun missing: Open MPI is a test need" \
             "(scripts/setup.sh installs openmpi-bin libopenmpi-dev)" >&2
        return 1
    fi
}

# mpi P ARGS...: fairshuf-mpi on P ranks
mpi() {
    local p=$1
    shift
    mpirun -np "$p" --oversubscribe "$MPI_BIN" "$@"
}

# shards P PREFIX: the shards PREFIX.0 .. PREFIX.P-1 concatenated
shards() {
    local r
    for ((r = 0; r < $1; r++)); do cat "$2.$r"; done
}

# csv_ref FILE SEED ARGS...: `fairshuf lines --csv` by its definition
# (docs/stream.md: record i has the key of line i): the records framed
# with a NUL after each, shuffled by `fairshuf lines -z`, NULs removed
csv_ref() {
    local f=$1 seed=$2
    shift 2
    python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
out, q, start, end = bytearray(), 0, 0, None
for i, c in enumerate(d):
    if c == 34: q ^= 1
    elif c == 10 and not q:
        if end is None: end = b"\r\n" if i and d[i - 1] == 13 else b"\n"
        out += d[start:i + 1] + b"\0"; start = i + 1
# a last record without its end gets the first record'"'"'s end
if start < len(d): out += d[start:] + (end or b"\n") + b"\0"
sys.stdout.buffer.write(out)' "$f" | "$FS_BIN" lines -z --seed="$seed" "$@" | tr -d '\0'
}
