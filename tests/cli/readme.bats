#!/usr/bin/env bats
# readme.bats -- every command of README.md runs as typed.  The README's
# `sh` and `python` blocks (tests/cli/readme_blocks.py states the
# convention: `no-run` blocks are skipped, a comment ending "exit N" is
# the status a command must give) run in README order in one scratch
# folder, with the build's fairshuf, fairshuf-mpi and python package first
# on the paths and HOME in the folder; each block in its own process
# group (timeout's), stopped (servers included) when it ends, and under a
# time limit.

setup() {
    R=$BATS_TEST_DIRNAME/../..
    F=${FS_BIN:-$R/build/fairshuf}
    T=$(mktemp -d)
    B=$T/blocks
    mkdir -p "$B" "$T/run"
}

teardown() {
    rm -rf "$T"
}

# Runs script $1 (bash or python) in $T/run; its output in $T/out.
run_block() {
    local pid
    (
        cd "$T/run" || exit 1
        export HOME=$T/run PATH="$(dirname "$F"):$PATH" PYTHONPATH=$R/python
        # Open MPI as the suite runs it (tests/cli/mpi_common.bash)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
        export OMPI_MCA_pml=ob1 OMPI_MCA_mtl='^ofi,psm2,psm' OMPI_MCA_osc='^ucx'
        export PMIX_MCA_gds=hash HWLOC_COMPONENTS=-linuxio,-pci
        export OMPI_MCA_orte_tmpdir_base=$T
        export LSAN_OPTIONS="suppressions=$R/mpi/lsan.supp:print_suppressions=0"
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
        case $1 in
        # timeout(1) makes itself the leader of a process group
        *.py) exec timeout -k 5 600 "${PYTHON:-/usr/bin/python3}" "$1" ;;
        *) exec timeout -k 5 600 bash "$1" ;;
        esac
    ) >"$T/out" 2>&1 &
    pid=$!
    st=0
    wait "$pid" || st=$?
    kill -- -"$pid" 2>/dev/null || : # what the block left running (a server)
    return "$st"
}

@test "readme: every sh and python block runs as typed" {
    run python3 "$BATS_TEST_DIRNAME/readme_blocks.py" "$R/README.md" "$B"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "${#lines[@]}" -ge 8 ] # the blocks are found (no silent empty run)
    local line name at ran=0 st
    for line in "${lines[@]}"; do
        read -r name at <<< "$line"
        if grep -q '^mpirun ' "$B/$name" &&
           { [ ! -x "$(dirname "$F")/fairshuf-mpi" ] || ! command -v mpirun >/dev/null; }; then
            echo "# README.md:$at: skipped, no fairshuf-mpi or mpirun (Open MPI is a" \
                 "test need: scripts/setup.sh)" >&3
            continue
        fi
        if [[ $name == *.py ]] &&
           ! "${PYTHON:-/usr/bin/python3}" -c 'import numpy, torch' 2>/dev/null; then
            echo "# README.md:$at: skipped, no numpy or torch (scripts/setup.sh)" >&3
            continue
        fi
        if ! run_block "$B/$name"; then
            echo "README.md:$at: the block failed (status $st; 124: over 600 s); its output:"
            tail -n 30 "$T/out"
            false
        fi
        ran=$((ran + 1))
    done
    [ "$ran" -ge 6 ]
}

@test "readme: a failing command fails the block (negative control)" {
    printf '```sh\ntrue\nfalse   # must fail\n```\n```sh\nfalse   # expected: exit 1\n```\n' > "$T/R.md"
    printf '```sh no-run\nfalse\n```\n```python\nraise SystemExit(3)\n```\n' >> "$T/R.md"
    run python3 "$BATS_TEST_DIRNAME/readme_blocks.py" "$T/R.md" "$B"
    [ "$status" -eq 0 ]
    [ "${lines[*]}" = "01.sh 2 02.sh 6 03.py 12" ]
    ! run_block "$B/01.sh"
    grep -q 'README.md:3: exit 1, expected 0' "$T/out"
    run_block "$B/02.sh"
    ! run_block "$B/03.py"
    printf '```console\n$ true\n```\n' > "$T/C.md"
    run python3 "$BATS_TEST_DIRNAME/readme_blocks.py" "$T/C.md" "$B"
    [ "$status" -eq 1 ]
    [[ $output == *"console block"* ]]
}

@test "readme: a server a block leaves running is stopped with it" {
    printf 'sleep 300 &\necho $! > pid\n' > "$B/s.sh"
    run_block "$B/s.sh"
    local p
    p=$(cat "$T/run/pid")
    sleep 0.2
    # gone, or a zombie its new parent has not reaped yet
    ! kill -0 "$p" 2>/dev/null || [[ $(ps -o stat= -p "$p") == Z* ]]
}
