#!/usr/bin/env bats
# tests/run.sh itself, on a small suite of its own in a scratch tree: a file
# past FS_TEST_TIMEOUT is stopped with its processes and fails by name, the
# others' results stand, and only passing files' seconds are kept in
# $BUILD/tests/seconds.txt (what scripts/mutants.py sizes its limits from).

setup() {
    # the scratch suite runs whole, whatever filter chose this file
    unset FS_TEST_FILTER
    T=$(mktemp -d)
    mkdir -p "$T/tests/cli" "$T/b/tests"
    cp "$BATS_TEST_DIRNAME/../run.sh" "$T/tests/run.sh"
    printf '@test "quick" { true; }\n' > "$T/tests/cli/quick.bats"
    # a file that hangs, with a child of its own (marked by its argument);
    # the limit used below (15 s) leaves the quick file room on a loaded machine
    mark="4$$.25"
    printf '@test "hangs" { sleep %s 3>&- & sleep %s; }\n' "$mark" 120 > "$T/tests/cli/hang.bats"
}

teardown() {
    pkill -f "sleep $mark" 2>/dev/null || true
    rm -rf "$T"
}

@test "run.sh: a file past FS_TEST_TIMEOUT is stopped, its processes too, and fails by name" {
    cd "$T"
    status=0
    out=$(BUILD=b FS_TEST_TIMEOUT=15 bash tests/run.sh 2>&1) || status=$?
    echo "$out"
    [ "$status" -ne 0 ]
    [[ $out == *"hang.bats: timed out after 15 s (FS_TEST_TIMEOUT)"* ]]
    [[ $out == *"quick.bats"*"1 passed, 0 failed"* ]]
    [ "$(echo "$out" | tail -n 1)" = "1 passed, 1 failed" ]
    # TERM went to the file's whole process group: its child is gone too
    # (KILL follows 10 s after TERM, so at most that long)
    for _ in $(seq 60); do pgrep -f "sleep $mark" >/dev/null || break; sleep 0.25; done
    ! pgrep -f "sleep $mark"
    # the passing file's seconds are kept, the stopped one's are not
    grep -qx 'quick.bats [0-9]*' b/tests/seconds.txt
    ! grep -q hang b/tests/seconds.txt
}

@test "run.sh: control: under the limit, or with none (0), the same file passes" {
    cd "$T"
    printf '@test "hangs" { sleep %s & sleep 1; wait; }\n' "0.5" > tests/cli/hang.bats
    out=$(BUILD=b FS_TEST_TIMEOUT=0 bash tests/run.sh 2>&1)
    [ "$(echo "$out" | tail -n 1)" = "2 passed, 0 failed" ]
    out=$(BUILD=b FS_TEST_TIMEOUT=30 bash tests/run.sh 2>&1)
    [ "$(echo "$out" | tail -n 1)" = "2 passed, 0 failed" ]
    grep -qx 'hang.bats [0-9]*' b/tests/seconds.txt
}
