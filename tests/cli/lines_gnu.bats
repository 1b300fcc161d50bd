#!/usr/bin/env bats
# lines_gnu.bats -- the checks of coreutils' tests/shuf/shuf.sh (not
# available offline), reproduced and run against both /usr/bin/shuf and
# fairshuf linked as `shuf`: whatever GNU's own suite demands of GNU shuf,
# fairshuf must pass too.

setup() {
    export LC_ALL=C
    SHUFS=(/usr/bin/shuf "$(dirname "$FS_BIN")/shuf")
    cd "$BATS_TEST_TMPDIR"
    seq 100 > in
}

@test "shuf.sh: output is a permutation, and not the input order" {
    for s in "${SHUFS[@]}"; do
        "$s" in > out
        ! cmp -s in out
        sort -n out | cmp - in
        "$s" -i 1-100 > out
        ! cmp -s in out
        sort -n out | cmp - in
    done
}

@test "shuf.sh: -e, and -e with -r and no operands fails" {
    for s in "${SHUFS[@]}"; do
        t=$("$s" -e a b c d e | sort | paste -s -d ' ')
        [ "$t" = "a b c d e" ]
        run "$s" -er
        [ "$status" -eq 1 ]
    done
}

@test "shuf.sh: redundant operand with -i; -e with -i" {
    for s in "${SHUFS[@]}"; do
        run "$s" -i0-0 1
        [ "$status" -eq 1 ]
        run "$s" -i 1-1 -n 1 -e A
        [ "$status" -eq 1 ]
    done
}

@test "shuf.sh: -n invalid, smallest of several, larger than input, zero" {
    for s in "${SHUFS[@]}"; do
        run "$s" -nA in
        [ "$status" -eq 1 ]
        [ "$("$s" -n10 -n3 -n7 in | wc -l)" -eq 3 ]
        [ "$("$s" -n1000 in | sort -n | cmp - in && echo ok)" = ok ]
        [ -z "$("$s" -n0 in)" ]
    done
}

@test "shuf.sh: --repeat is endless without -n, covers the range" {
    for s in "${SHUFS[@]}"; do
        c=$("$s" --rep -i 0-10 | head -n 1000 | wc -l)
        [ "$c" -eq 1000 ]
        "$s" --rep -i0-9 -n1000 > exp
        [ "$(wc -l < exp)" -eq 1000 ]
        [ "$(sort -nu exp | paste -s -d ' ')" = "0 1 2 3 4 5 6 7 8 9" ]
        run "$s" --repeat -e
        [ "$status" -eq 1 ]
        [ "$output" = "shuf: no lines to repeat" ] || [[ "$output" == *": no lines to repeat" ]]
        [ "$("$s" -r -n 5 -e A | paste -s -d ' ')" = "A A A A A" ]
        [ "$("$s" -r -n 5 -i 5-5 | paste -s -d ' ')" = "5 5 5 5 5" ]
        run "$s" -r -n 10 < /dev/null
        [ "$status" -eq 1 ]
        [ -z "$("$s" -r -n 0 < /dev/null)" ]
    done
}

@test "shuf.sh: a final line without newline gets one" {
    for s in "${SHUFS[@]}"; do
        [ "$(printf 1 | "$s" | od -An -c | tr -d ' ')" = '1\n' ]
    done
}

@test "shuf.sh: -z with -e, -i and input" {
    for s in "${SHUFS[@]}"; do
        [ "$("$s" -z -e a b | sort -z | tr '\0' ' ')" = "a b " ]
        [ "$("$s" -z -i 1-3 | sort -z | tr '\0' ' ')" = "1 2 3 " ]
        [ "$(printf 'x\0y' | "$s" -z | sort -z | tr '\0' ' ')" = "x y " ]
        # newlines are ordinary bytes with -z
        [ "$(printf 'a\nb\0' | "$s" -z | od -An -c | tr -d ' ')" = 'a\nb\0' ]
    done
}

@test "shuf.sh: --random-source: all zeros keep the order; too short fails" {
    for s in "${SHUFS[@]}"; do
        [ "$("$s" --random-source=/dev/zero -i 1-5 | paste -s -d ' ')" = "1 2 3 4 5" ]
        [ "$("$s" --random-source=/dev/zero in | cmp - in && echo same)" = same ]
        run "$s" --random-source=/dev/null -i 1-2
        [ "$status" -eq 1 ]
        [[ "$output" == *"end of file"* ]]
        # one line needs no random byte at all
        [ "$("$s" --random-source=/dev/null -e only)" = only ]
    done
}

@test "shuf.sh: -o F F reads F before writing it; a failed run leaves F" {
    for s in "${SHUFS[@]}"; do
        seq 100 > f
        "$s" -o f f
        sort -n f | cmp - in
        seq 10 > g
        run "$s" --random-source=/dev/null -o g -i 1-100
        [ "$status" -eq 1 ]
        seq 10 | cmp - g
    done
}

@test "shuf.sh: -n0 reads nothing, not even an unreadable or missing file" {
    for s in "${SHUFS[@]}"; do
        "$s" -n0 /nonexistent
        "$s" -n0 --random-source=/nonexistent -e a
    done
}

@test "shuf.sh: huge -i ranges: small -n is instant, the whole range fails" {
    for s in "${SHUFS[@]}"; do
        run timeout 10 "$s" -i 0-18446744073709551614 -n 2
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 2 ]
        run timeout 10 "$s" -n 3 -i 1-18446744073709551614
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 3 ]
        run "$s" -r -n 4 -i 0-18446744073709551614
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 4 ]
    done
    # a whole 2^64-1 range cannot be permuted: memory exhausted, exit 1
    # (not under ASan, which reserves most of the address space itself)
    if [[ "${BUILD:-}" != *san* ]]; then
        for s in "${SHUFS[@]}"; do
            run bash -c 'ulimit -v 200000; "$0" -i 0-18446744073709551614 >/dev/null' "$s"
            [ "$status" -eq 1 ]
            [[ "$output" == *"memory exhausted"* ]]
        done
    fi
}
