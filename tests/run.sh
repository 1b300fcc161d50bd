#!/usr/bin/env bash
# run.sh -- runs every unit test binary (cmocka, TAP output) and every bats
# file, prints each failure, and ends with one line: "N passed, N failed".
# BUILD names the build folder; FS_TEST_FILTER limits to matching names.
set -u
BUILD=${BUILD:-build}
export BUILD FS_BIN="$PWD/$BUILD/fairshuf" FS_FAILRANDOM="$PWD/$BUILD/tests/failrandom.so"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
filter=${FS_TEST_FILTER:-}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0 failed=0 started=$SECONDS

count() { # name, tap file, exit status
    local p f secs=$((SECONDS - started))
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
    printf '%-32s %4d passed, %d failed  %4ds\n' "$1" "$p" "$f" "$secs"
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
    started=$SECONDS
    "$t" >"$log/$name" 2>&1
    count "$name" "$log/$name" $?
done

for b in tests/cli/*.bats; do
    [ -e "$b" ] || continue
    name=$(basename "$b")
    [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
    started=$SECONDS
    bats --tap "$b" >"$log/$name" 2>&1
    count "$name" "$log/$name" $?
done

# The browser verifier page's tests (node's test runner, TAP; Chromium).
for w in tests/web/*.test.mjs; do
    [ -e "$w" ] || continue
    name=web-$(basename "$w" .test.mjs)
    [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
    started=$SECONDS
    node --test --test-reporter=tap "$w" >"$log/$name" 2>&1
    count "$name" "$log/$name" $?
done

# The Python package's tests (pytest), counted like the others.
if [ -d python/tests ] && { [ -z "$filter" ] || [[ python == *$filter* ]]; }; then
    started=$SECONDS
    PYTHONPATH=$PWD/python ${PYTHON:-/usr/bin/python3} -m pytest -rA -q \
        -p no:cacheprovider python/tests >"$log/python.raw" 2>&1
    st=$?
    sed -nE 's/^PASSED /ok /p; s/^(FAILED|ERROR) /not ok /p' "$log/python.raw" >"$log/python"
    [ "$st" -ne 0 ] && grep -E -B30 '^(FAILED|ERROR) ' "$log/python.raw" | head -n 80
    count python "$log/python" "$st"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
