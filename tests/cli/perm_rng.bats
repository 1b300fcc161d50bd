#!/usr/bin/env bats
# `fairshuf perm` and `fairshuf rng`: vectors, golden outputs, statistics
# through the CLI, and every error path (message, status, empty stdout).

setup() {
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    GOLDEN=$BATS_TEST_DIRNAME/../golden
    ZERO_KEY=$(printf '0%.0s' $(seq 64))
}

@test "rng: MT19937 10000th output is 4123659995" {
    run "$B" rng --rng=mt19937 --seed=5489 --count=10000
    [ "$status" -eq 0 ]
    [ "${lines[9999]}" = 4123659995 ]
}

@test "rng: MT19937-64 10000th output is 9981545732273789042" {
    [ "$("$B" rng --rng=mt19937_64 --seed=5489 --count=10000 | tail -1)" = 9981545732273789042 ]
}

@test "rng: ChaCha20 zero key gives the RFC 7539 A.1 vector" {
    run "$B" rng --rng=chacha20 --seed=$ZERO_KEY --format=hex --bytes=64
    [ "$output" = 76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586 ]
}

@test "rng: raw output equals hex output, and is endless without a count" {
    a=$("$B" rng --seed=x --format=raw --bytes=100 | od -An -tx1 | tr -d ' \n')
    b=$("$B" rng --seed=x --format=hex --bytes=100)
    [ "$a" = "$b" ]
    n=$("$B" rng --format=raw | head -c 5000000 | wc -c)
    [ "$n" -eq 5000000 ]
}

@test "rng: default format is u32 for 32-bit generators, u64 otherwise" {
    run "$B" rng --rng=delphi --seed=0 --count=2
    [ "${lines[0]}" = 1 ] && [ "${lines[1]}" = 134775814 ]
    run "$B" rng --rng=splitmix64 --seed=1234567 --count=1
    [ "$output" = 6457827717110365317 ]
}

@test "rng: without --seed, two runs differ" {
    [ "$("$B" rng --count=4)" != "$("$B" rng --count=4)" ]
}

@test "perm: golden outputs of every algorithm (stream version 1)" {
    for a in auto durstenfeld inside-out fisher-yates sattolo rejection sort-key naive-swap swap-any mod-bias asf-1999 random-comparator; do
        echo "== $a"; "$B" perm 12 --count=3 --seed=golden --algorithm=$a
    done > "$BATS_TEST_TMPDIR/perm.txt"
    diff -u "$GOLDEN/perm-algorithms.txt" "$BATS_TEST_TMPDIR/perm.txt"
}

@test "perm/rng: golden outputs of every generator (stream version 1)" {
    for r in chacha20 xoshiro256ss pcg64 mt19937 mt19937_64 splitmix64 rand delphi; do
        echo "== $r"
        "$B" perm 10 --count=2 --seed=golden --rng=$r --algorithm=durstenfeld
        "$B" rng --rng=$r --seed=golden --count=3
        "$B" rng --rng=$r --seed=golden --format=hex --bytes=24
    done > "$BATS_TEST_TMPDIR/rng.txt"
    diff -u "$GOLDEN/rng-generators.txt" "$BATS_TEST_TMPDIR/rng.txt"
}

@test "perm: an independent implementation of docs/stream.md agrees" {
    for seed in 42 golden 18446744073709551615; do
        want=$(python3 "$BATS_TEST_DIRNAME/stream_spec.py" "$seed" 30 5)
        got=$("$B" perm 30 --count=5 --seed="$seed" --rng=xoshiro256ss --algorithm=durstenfeld)
        [ "$want" = "$got" ]
    done
}

@test "perm: --one-based, sizes 0 and 1, same seed same output" {
    [ "$("$B" perm 3 --one-based --seed=1 | tr ' ' '\n' | sort | tr '\n' ' ')" = "1 2 3 " ]
    run "$B" perm 0 --count=2
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 0 ] && [ "$output" = "$(printf '\n')" ]
    [ "$("$B" perm 1)" = 0 ]
    [ "$("$B" perm 50 --seed=s)" = "$("$B" perm 50 --seed=s)" ]
}

# 240,000 permutations of 4 through the CLI: every order within the exact
# binomial band [9483, 10526] (tail 1e-7 per cell); swap-any must leave it.
perm4_in_band() {
    "$B" perm 4 --count=240000 --seed=cli-perm4 --algorithm="$1" |
        sort | uniq -c | awk 'BEGIN{ok=1} {n++; if ($1 < 9483 || $1 > 10526) ok=0} END{exit !(ok && n==24)}'
}

@test "perm 4 --count=240000 is uniform (durstenfeld, auto); swap-any is not" {
    perm4_in_band durstenfeld
    perm4_in_band auto
    ! perm4_in_band swap-any
}

@test "perm: --algorithm=list and --rng=list mark the negative controls" {
    run "$B" perm --algorithm=list
    [ "$status" -eq 0 ]
    [[ "$output" == *"asf-1999"*"NEGATIVE CONTROL"* ]]
    run "$B" perm --rng=list
    [[ "$output" == *"delphi"*"LEGACY"* ]]
}

expect_error() { # status, message pattern, command...
    local want=$1 pat=$2; shift 2
    run --separate-stderr "$B" "$@"
    [ "$status" -eq "$want" ] || { echo "status $status"; return 1; }
    [ -z "$output" ] || { echo "stdout: $output"; return 1; }
    [[ "$stderr" == fairshuf:* ]] || { echo "stderr: $stderr"; return 1; }
    [[ "$stderr" == *$pat* ]] || { echo "stderr: $stderr"; return 1; }
}

@test "perm: errors name the problem, print nothing on stdout" {
    bats_require_minimum_version 1.5.0
    expect_error 2 "invalid option -- '5'" perm -5
    expect_error 2 "missing N" perm -1
    expect_error 2 "invalid size: 'abc'" perm abc
    expect_error 2 "invalid count: '0x'" perm 5 --count=0x
    expect_error 2 "unknown algorithm: 'bogus'" perm 5 --algorithm=bogus
    expect_error 2 "unknown generator: 'bogus'" perm 5 --rng=bogus
    expect_error 2 "invalid seed" perm 5 --seed=
    expect_error 2 "missing N" perm
    expect_error 2 "extra operand '6'" perm 5 6
    expect_error 2 "out of range" perm 99999999999999999999
}

@test "rng: errors" {
    bats_require_minimum_version 1.5.0
    expect_error 2 "unknown generator" rng --rng=nope
    expect_error 2 "invalid format" rng --format=oct
    expect_error 2 "invalid count" rng --count=-3
    expect_error 2 "exclusive" rng --count=1 --bytes=1
    expect_error 2 "invalid seed" rng --seed=
}

@test "write errors are reported: /dev/full, closed stdout" {
    run bash -c "'$B' perm 100000 --count=3 > /dev/full"
    [ "$status" -eq 1 ] && [[ "$output" == *"write error: No space left on device"* ]]
    run bash -c "'$B' perm 10 >&-"
    [ "$status" -eq 1 ] && [[ "$output" == *"write error"* ]]
    run bash -c "'$B' perm --help > /dev/full"
    [ "$status" -eq 1 ]
}

@test "fails closed: getrandom refused -> exit 1, a message, no output" {
    bats_require_minimum_version 1.5.0
    [ -n "${FS_FAILRANDOM:-}" ] && [ -r "$FS_FAILRANDOM" ]
    run --separate-stderr env LD_PRELOAD="$FS_FAILRANDOM" "$B" perm 10
    [ "$status" -eq 1 ] && [ -z "$output" ]
    [[ "$stderr" == *"the operating system refused randomness"* ]]
    run --separate-stderr env LD_PRELOAD="$FS_FAILRANDOM" "$B" rng --count=3
    [ "$status" -eq 1 ] && [ -z "$output" ]
    # a seeded run needs no OS entropy
    run env LD_PRELOAD="$FS_FAILRANDOM" "$B" perm 3 --seed=1
    [ "$status" -eq 0 ]
}

@test "every subcommand has --help and --version; the top level too" {
    for c in perm rng lines deal fair attack verify bench; do
        "$B" $c --help | grep -q "Usage: " || { echo "no help: $c"; return 1; }
        "$B" $c --version | grep -q "fairshuf" || { echo "no version: $c"; return 1; }
    done
    "$B" --help | grep -q "Commands:"
    "$B" --version | grep -q "$("$B" --version | head -1 | awk '{print $NF}')"
    run "$B" bogus
    [ "$status" -eq 2 ] && [[ "$output" == *"unknown command: 'bogus'"* ]]
}
