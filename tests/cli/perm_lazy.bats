#!/usr/bin/env bats
# `fairshuf perm --lazy`, --at, --inverse, --range: the keyed permutation
# through the CLI (docs/keyed.md), checked against an independent
# implementation of the specification (keyed_spec.py), and its errors.

setup() {
    bats_require_minimum_version 1.5.0
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    SPEC=$BATS_TEST_DIRNAME/keyed_spec.py
}

@test "perm --lazy: a permutation of 0..N-1 for awkward N" {
    for n in 1 2 3 4 5 16 17 100 257 1000; do
        got=$("$B" perm "$n" --lazy --seed=s | tr ' ' '\n' | sort -n | tr '\n' ' ')
        want=$(seq 0 $((n - 1)) | tr '\n' ' ')
        [ "$got" = "$want" ]
    done
}

@test "perm --lazy: the listing is the sequence of --at answers" {
    list=$("$B" perm 37 --lazy --seed=abc)
    ats=$(for i in $(seq 0 36); do "$B" perm 37 --at="$i" --seed=abc; done | tr '\n' ' ')
    [ "$list " = "$ats" ]
}

@test "perm --inverse undoes --at, --range is a slice of the listing" {
    for i in 0 5 99; do
        j=$("$B" perm 100 --at=$i --seed=q)
        [ "$("$B" perm 100 --inverse=$j --seed=q)" = "$i" ]
    done
    list=($("$B" perm 100 --lazy --seed=q))
    [ "$("$B" perm 100 --range=10-14 --seed=q)" = "${list[*]:10:5}" ]
}

@test "perm --at on 2^64-1 answers at once and matches the specification" {
    run "$B" perm 18446744073709551615 --at=12345 --seed=fairshuf --count=8
    [ "$status" -eq 0 ]
    [ "${lines[7]}" = 12913200428144469631 ]
    [ "$(python3 "$SPEC" fairshuf 7 18446744073709551615 12345)" = "${lines[7]}" ]
    run "$B" perm 18446744073709551615 --inverse=12913200428144469631 --seed=fairshuf --count=8
    [ "${lines[7]}" = 12345 ]
}

@test "perm --lazy: golden outputs equal the independent specification" {
    for n in 10 1000 65537; do
        for e in 0 1 2; do
            got=$("$B" perm $n --lazy --count=3 --seed=golden | sed -n "$((e + 1))p" | cut -d' ' -f1-8)
            want=$(python3 "$SPEC" golden $e $n 0 1 2 3 4 5 6 7)
            [ "$got" = "$want" ]
        done
    done
    [ "$("$B" perm 10 --lazy --seed=fairshuf)" = "1 6 0 9 3 5 2 7 4 8" ]
}

@test "perm --lazy --count=K: K different orders; --one-based shifts by one" {
    run "$B" perm 20 --lazy --count=3 --seed=k
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[0]}" != "${lines[1]}" ]
    zero=$("$B" perm 20 --lazy --seed=k | tr ' ' '\n' | awk '{print $1 + 1}' | tr '\n' ' ')
    one=$("$B" perm 20 --lazy --seed=k --one-based)
    [ "$one " = "$zero" ]
    [ "$("$B" perm 20 --at=1 --one-based --seed=k)" = "$(echo $zero | cut -d' ' -f1)" ]
}

@test "perm --lazy without --seed: a valid permutation from an OS key" {
    got=$("$B" perm 50 --lazy | tr ' ' '\n' | sort -n | tr '\n' ' ')
    [ "$got" = "$(seq 0 49 | tr '\n' ' ')" ]
}

@test "perm --lazy: errors name the problem, status 2, nothing on stdout" {
    for args in "10 --at=10" "10 --inverse=x" "10 --range=5-2" "10 --range=3" \
                "10 --range=2-10" "0 --lazy" "10 --at=1 --range=1-2" \
                "10 --lazy --rng=pcg64" "10 --at=0 --one-based" \
                "18446744073709551616 --lazy"; do
        run --separate-stderr "$B" perm $args --seed=e
        [ "$status" -eq 2 ]
        [ -z "$output" ]
        [[ $stderr == fairshuf:* ]]
    done
}

@test "perm --at: a position >= N is exit 2 with nothing printed; --count=K answers in epochs 0..K-1 (docs/cli.md)" {
    run "$FS_BIN" perm 10 --at=10 --seed=a
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: invalid position: '10': must be below N" ]
    run "$FS_BIN" perm 10 -1 --at=11 --seed=a
    [ "$status" -eq 2 ]
    run "$FS_BIN" perm 10 -1 --at=10 --seed=a
    [ "$status" -eq 0 ]
    # line e of --at=3 --count=4 is position 3 of epoch e's whole order
    want=$("$FS_BIN" perm 10 --lazy --count=4 --seed=a | cut -d ' ' -f 4)
    [ "$("$FS_BIN" perm 10 --at=3 --count=4 --seed=a)" = "$want" ]
    [ "$("$FS_BIN" perm 10 --at=3 --seed=a)" = "$(echo "$want" | head -n 1)" ]
}
