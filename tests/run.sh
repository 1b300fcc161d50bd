#!/usr/bin/env bash
# run.sh -- runs every unit test binary (cmocka, TAP output), every bats
# file, the browser page's tests and the Python package's tests, prints each
# file's result (in a fixed order, with its seconds) and each failure, and
# ends with one line: "N passed, N failed".
# BUILD names the build folder; FS_TEST_FILTER limits to matching names;
# FS_TEST_JOBS files run at once (default: one more than the number of
# CPUs, at least 3: much of the suite waits on process starts, mpirun,
# fsync and curl, not on a CPU);
# FS_TEST_LONG=1 (make check-long) runs the long matrices the suite samples;
# FS_TEST_TIMEOUT: seconds a file may take before it is stopped and counted
# as failed (default 1800, 3600 with FS_TEST_LONG=1; 0: no limit), so that a
# hang is a named failure, not a CI run cut off at its limit.
# Each passing file's seconds are kept in $BUILD/tests/seconds.txt ("name
# seconds", its latest passing run): scripts/mutants.py sizes its time
# limits from them.
set -u
BUILD=${BUILD:-build}
export BUILD FS_BIN="$PWD/$BUILD/fairshuf" FS_FAILRANDOM="$PWD/$BUILD/tests/failrandom.so"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
filter=${FS_TEST_FILTER:-}
jobs=$(( $(nproc 2>/dev/null || echo 2) + 1 ))
[ "$jobs" -ge 3 ] || jobs=3
jobs=${FS_TEST_JOBS:-$jobs}
limit=1800
[ "${FS_TEST_LONG:-0}" = 1 ] && limit=3600
limit=${FS_TEST_TIMEOUT:-$limit}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
# The tests' `python3` (a reference tool in many bats files) is $PYTHON,
# the interpreter scripts/setup.sh equips and the Python tests use -- not
# whatever PATH finds first: a pyenv shim there costs about 0.7 s a call
# (a third of trust.bats' time on the machine that found it).
PYTHON=$(command -v "${PYTHON:-/usr/bin/python3}") || PYTHON=/usr/bin/python3
mkdir -p "$log/bin"
ln -s "$PYTHON" "$log/bin/python3"
export PATH="$log/bin:$PATH" PYTHON
passed=0 failed=0

# The test files: "name command..." per line, the slowest first so that the
# pool ends together (the order of the report is fixed: see below).
names=() cmds=()
add() { # name, command...
    local name=$1
    shift
    [ -n "$filter" ] && [[ $name != *$filter* ]] && return
    names+=("$name")
    cmds+=("$(printf '%q ' "$@")")
}
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && add "$(basename "$t")" "$t"
done
for b in tests/cli/*.bats; do
    [ -e "$b" ] && add "$(basename "$b")" bats --tap "$b"
done
# The browser verifier page's tests (node's test runner, TAP; Chromium).
for w in tests/web/*.test.mjs; do
    [ -e "$w" ] && add "web-$(basename "$w" .test.mjs)" node --test --test-reporter=tap "$w"
done
# The Python package's tests (pytest), turned into TAP lines by run_python.
[ -d python/tests ] && add python bash -c run_python

run_python() {
    local st
    PYTHONPATH=$PWD/python ${PYTHON:-/usr/bin/python3} -m pytest -rA -q \
        -p no:cacheprovider python/tests >"$log/python.raw" 2>&1
    st=$?
    sed -nE 's/^PASSED /ok /p; s/^(FAILED|ERROR) /not ok /p' "$log/python.raw"
    [ "$st" -ne 0 ] && grep -E -B30 '^(FAILED|ERROR) ' "$log/python.raw" | head -n 80 >&2
    return "$st"
}
export -f run_python
export log

# one file: its output in $log/NAME, its status in NAME.rc, seconds in NAME.s;
# past the time limit, timeout(1) stops its whole process group (TERM, then
# KILL 10 s later) and a failing line says so
run_one() { # index
    local name=${names[$1]} start=$SECONDS st
    if [ "$limit" -gt 0 ]; then
        eval "timeout -k 10 $limit ${cmds[$1]}" >"$log/$name" 2>&1
    else
        eval "${cmds[$1]}" >"$log/$name" 2>&1
    fi
    st=$?
    # (a second's slack: timeout(1) keeps its own clock, and bash's whole
    # SECONDS read 14 after a 15 s limit on a loaded VM)
    if [ "$limit" -gt 0 ] && { [ "$st" -eq 124 ] || [ "$st" -eq 137 ]; } &&
       [ $((SECONDS - start)) -ge $((limit - 1)) ]; then
        echo "not ok 1 $name: timed out after $limit s (FS_TEST_TIMEOUT)" >>"$log/$name"
    fi
    echo $((SECONDS - start)) >"$log/$name.s"
    echo "$st" >"$log/$name.rc"
}

# slowest first: the files known to take longest, largest first (so that
# no long file starts last and runs alone), then the rest
order=()
for slow in mpi.bats python web-deals playlist_player.bats lines.bats perm_rng.bats \
            fair.bats serve.bats web-tamper trust.bats lines_data.bats web-vectors \
            newcomer.bats serve_crash.bats web-page verify.bats playlist.bats \
            verify_holm.bats mpi_rounds.bats; do
    for i in "${!names[@]}"; do [ "${names[$i]}" = "$slow" ] && order+=("$i"); done
done
for i in "${!names[@]}"; do
    [[ " ${order[*]} " == *" $i "* ]] || order+=("$i")
done

running=0
for i in "${order[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    run_one "$i" &
    running=$((running + 1))
done
wait

count() { # name, tap file, exit status, seconds
    local p f
    p=$(grep -cE '^ok ' "$2")
    f=$(grep -cE '^not ok ' "$2")
    if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1 # crashed or exited non-zero without a failing test line
        echo "FAIL $1: exited with status $3"
        tail -n 20 "$2" | sed 's/^/    /'
    fi
    if [ "$f" -gt 0 ]; then
        grep -E -A8 '^not ok ' "$2" | sed "s/^/    [$1] /" | head -n 60
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    printf '%-32s %4d passed, %d failed  %4ds\n' "$1" "$p" "$f" "$4"
}

for name in "${names[@]}"; do
    if [ ! -e "$log/$name.rc" ]; then # killed before it could say
        echo "not ok 1 $name: did not finish" >>"$log/$name"
        echo 1 >"$log/$name.rc"
        echo 0 >"$log/$name.s"
    fi
    count "$name" "$log/$name" "$(cat "$log/$name.rc")" "$(cat "$log/$name.s")"
done

# each passing file's seconds, this run's replacing the last
secs="$BUILD/tests/seconds.txt"
if [ -d "$BUILD/tests" ]; then
    {
        for name in "${names[@]}"; do
            [ "$(cat "$log/$name.rc")" = 0 ] && echo "$name $(cat "$log/$name.s")"
        done
        [ -e "$secs" ] && cat "$secs"
    } | awk '!seen[$1]++' | sort >"$secs.tmp" && mv "$secs.tmp" "$secs"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
