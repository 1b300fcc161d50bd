#!/usr/bin/env bats
# verify_dieharder.bats -- a quick generator battery in the regular suite:
# two fast dieharder tests (count-the-1s stream, 6x8 binary rank; < 0.5 s each)
# on the raw stream of a seeded generator.  chacha20 must pass, the 1999
# Delphi LCG (the negative control) must fail.  Input comes from stdin
# (-g 200) and the generators are seeded, so every run sees the same bytes
# and gets the same p-values.  The full battery is `make battery`.

setup() {
    FS=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    command -v dieharder >/dev/null || { echo "dieharder is missing: run scripts/setup.sh"; return 1; }
}

quick() { # generator, dieharder test number -> PASSED/WEAK/FAILED
    "$FS" rng --rng="$1" --seed=1 --format=raw 2>/dev/null |
        dieharder -g 200 -d "$2" -p 10 -S 1 2>/dev/null |
        awk -F'|' '/PASSED|WEAK|FAILED/ { gsub(/ /, "", $6); print $6 }'
}

@test "dieharder quick subset: chacha20 passes" {
    [ "$(quick chacha20 8)" = PASSED ]
    [ "$(quick chacha20 3)" = PASSED ]
}

@test "dieharder quick subset: the delphi LCG fails (negative control)" {
    [ "$(quick delphi 8)" = FAILED ]
    [ "$(quick delphi 3)" = FAILED ]
}
