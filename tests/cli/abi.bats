#!/usr/bin/env bats
# The shared library exports exactly the public API: every function the
# headers declare with FS_API, and nothing else (no internal fs__* names,
# no test hooks).

setup() {
    so="$BATS_TEST_DIRNAME/../../${BUILD:-build}/libfairshuf.so"
    hdrs=("$BATS_TEST_DIRNAME"/../../include/fairshuf.h "$BATS_TEST_DIRNAME"/../../include/fairshuf/*.h)
}

@test "nm -D of libfairshuf.so equals the FS_API declarations of the headers" {
    [ -e "$so" ]
    exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
    declared=$(grep -hE '^FS_API ' "${hdrs[@]}" | grep -oE '\bfs_[a-z0-9_]+\(' | tr -d '(' | sort)
    [ -n "$declared" ]
    diff <(echo "$exported") <(echo "$declared")
}

@test "every public function declaration in the headers is marked FS_API" {
    unmarked=$(grep -hE '^[a-z].*\bfs_[a-z0-9_]+\(' "${hdrs[@]}" | grep -vE '^(typedef|static)' || true)
    [ -z "$unmarked" ]
}

@test "no internal fs__ symbol and no writable test hook is exported" {
    run bash -c "nm -D --defined-only '$so' | grep -E ' (fs__|[DB] )'"
    [ "$status" -ne 0 ]
}
