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

@test "perm: golden outputs of every algorithm (stream version 2)" {
    for a in auto durstenfeld inside-out fisher-yates sattolo rejection sort-key naive-swap swap-any mod-bias asf-1999 random-comparator; do
        echo "== $a"; "$B" perm 12 --count=3 --seed=golden --algorithm=$a
    done > "$BATS_TEST_TMPDIR/perm.txt"
    diff -u "$GOLDEN/perm-algorithms.txt" "$BATS_TEST_TMPDIR/perm.txt"
}

@test "perm/rng: golden outputs of every generator (stream version 2)" {
    for r in chacha20 xoshiro256ss pcg64 mt19937 mt19937_64 splitmix64 rand delphi; do
        echo "== $r"
        "$B" perm 10 --count=2 --seed=golden --rng=$r --algorithm=durstenfeld
        "$B" rng --rng=$r --seed=golden --count=3
        "$B" rng --rng=$r --seed=golden --format=hex --bytes=24
    done > "$BATS_TEST_TMPDIR/rng.txt"
    diff -u "$GOLDEN/rng-generators.txt" "$BATS_TEST_TMPDIR/rng.txt"
}

# docs/vectors.md: every row recomputed from the specification alone
# (stream_spec.py, written from docs/stream.md) and every row run through
# the binary; both must equal the table.
@test "docs/vectors.md: the spec re-implementation and the binary agree with every row" {
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" check "$BATS_TEST_DIRNAME/../../docs/vectors.md"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *" rows checked, 0 mismatches"* ]]
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" cli "$B" "$BATS_TEST_DIRNAME/../../docs/vectors.md"
    echo "$output"
    [ "$status" -eq 0 ]
    # the checker can fail: a changed row is a mismatch (in the row's own
    # section: the whole file was checked above)
    V="$BATS_TEST_DIRNAME/../../docs/vectors.md"
    sed -n '/^## Permutations/,/^## The bucket/p' "$V" | sed '$d' |
        sed 's/`0` <br> `0`/`1` <br> `0`/' > "$BATS_TEST_TMPDIR/v.md"
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" cli "$B" "$BATS_TEST_TMPDIR/v.md"
    [ "$status" -eq 1 ]
    [[ "$output" == *"1 mismatches"* ]]
    # a --split row with one record moved from part 1 to part 2: both fail
    sed -n '/^## `fairshuf lines`/,/^## Playlist/p' "$V" | sed '$d' |
        sed 's/`3,ann,1,"say ""hi"""` <br> `==> part-2 <==` <br> `id,user,score,note`/`==> part-2 <==` <br> `id,user,score,note` <br> `3,ann,1,"say ""hi"""`/' \
        > "$BATS_TEST_TMPDIR/s.md"
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" check "$BATS_TEST_TMPDIR/s.md"
    [ "$status" -eq 1 ]
    [[ "$output" == *"1 mismatches"* ]]
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" cli "$B" "$BATS_TEST_TMPDIR/s.md"
    [ "$status" -eq 1 ]
    [[ "$output" == *"1 mismatches"* ]]
}

spec_or_binary() {
    if [ "$1" = spec ]; then
        run python3 "$BATS_TEST_DIRNAME/stream_spec.py" check "$2"
    else
        run python3 "$BATS_TEST_DIRNAME/stream_spec.py" cli "$B" "$2"
    fi
}

# The playlist rows (stream.md §6) read lists defined in the table itself:
# both checkers must notice a changed list (all 5 rows of songs.tsv) and a
# changed row, so the lists and the rows are really what is checked.
@test "docs/vectors.md: playlist rows fail when their list or their output changes" {
    V="$BATS_TEST_DIRNAME/../../docs/vectors.md"
    sed -n '/^## Playlist orders/,$p' "$V" > "$BATS_TEST_TMPDIR/p.md"
    run python3 "$BATS_TEST_DIRNAME/stream_spec.py" check "$BATS_TEST_TMPDIR/p.md"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"7 rows checked, 0 mismatches"* ]]
    sed 's/^eight\t7\tAbba$/eight\t7\tAbbb/' "$BATS_TEST_TMPDIR/p.md" > "$BATS_TEST_TMPDIR/list.md"
    run cmp -s "$BATS_TEST_TMPDIR/p.md" "$BATS_TEST_TMPDIR/list.md"
    [ "$status" -eq 1 ]
    sed 's/<br> `ten\t.75\tCher` <br> `five\t0.5\tDido`/<br> `five\t0.5\tDido` <br> `ten\t.75\tCher`/' \
        "$BATS_TEST_TMPDIR/p.md" > "$BATS_TEST_TMPDIR/row.md"
    run cmp -s "$BATS_TEST_TMPDIR/p.md" "$BATS_TEST_TMPDIR/row.md"
    [ "$status" -eq 1 ]
    for by in spec binary; do
        spec_or_binary "$by" "$BATS_TEST_TMPDIR/list.md"
        [ "$status" -eq 1 ]
        [[ "$output" == *"7 rows checked, 5 mismatches"* ]]
        spec_or_binary "$by" "$BATS_TEST_TMPDIR/row.md"
        [ "$status" -eq 1 ]
        [[ "$output" == *"7 rows checked, 1 mismatches"* ]]
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
    expect_error 2 "invalid thread count: '0' (1 to 256)" perm 5 --threads=0
    expect_error 2 "invalid thread count: '257' (1 to 256)" perm 5 --threads=257
    expect_error 2 "invalid thread count: 'x'" perm 5 --threads=x
    expect_error 2 "--threads works with --algorithm=auto only" perm 5 --threads=2 --algorithm=durstenfeld
    expect_error 2 "--threads works with --algorithm=auto only" perm 5 --threads=2 --lazy
}

@test "perm --threads: the same permutations with 1, 2 and 3 threads (bucket path)" {
    # 2^21 + 3 numbers = 16 MiB + 24 bytes: auto takes the threaded bucket
    # shuffle; two permutations, so the second draws after the first
    local n=2097155 one two three
    one=$("$B" perm $n --count=2 --seed=thr --threads=1 | sha256sum)
    two=$("$B" perm $n --count=2 --seed=thr --threads=2 | sha256sum)
    three=$("$B" perm $n --count=2 --seed=thr --threads=3 | sha256sum)
    [ "$one" = "$two" ] && [ "$one" = "$three" ]
    [ "$one" = "$("$B" perm $n --count=2 --seed=thr | sha256sum)" ]
    # and it is a permutation, not the identity
    "$B" perm $n --seed=thr --threads=2 | tr ' ' '\n' | sort -n | awk -v n=$n '$1 != NR - 1 {exit 1} END {exit NR != n}'
    [ "$("$B" perm $n --seed=thr --threads=2 | cut -d' ' -f1-3)" != "0 1 2" ]
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

# Issue 15: glibc rand's 31-bit outputs are packed without gaps (stream
# version 2), so its words use all 64 bits: each bit is set in 4096 words
# within the exact binomial band [1878, 2218] (tail 1e-7 per bit).
@test "rng: --rng=rand words use all 64 bits" {
    "$B" rng --rng=rand --seed=1 --count=4096 --format=u64 | python3 -c '
import sys
w = [int(x) for x in sys.stdin]
assert len(w) == 4096
bad = [b for b in range(64) if not 1878 <= sum(x >> b & 1 for x in w) <= 2218]
sys.exit("bits not uniform: %s" % bad if bad else 0)'
    [ "$("$B" rng --rng=rand --seed=1 --count=1 --format=u64)" = 6430456248902829415 ]
}

# Issue 15: no algorithm loops forever on any generator.  `timeout` is a
# hang guard (a generous bound, never reached), not a timed assertion.
@test "every algorithm x generator finishes (perm 5 and deal)" {
    for r in $("$B" perm --rng=list | cut -d' ' -f1); do
        for a in $("$B" perm --algorithm=list | cut -d' ' -f1); do
            timeout ${FS_HANG_GUARD:-60} "$B" perm 5 --count=200 --rng=$r --algorithm=$a --seed=hang >/dev/null ||
                { echo "perm $a --rng=$r: status $?"; return 1; }
        done
        timeout ${FS_HANG_GUARD:-60} "$B" deal --algorithm=rejection --rng=$r --seed=hang >/dev/null ||
            { echo "deal rejection --rng=$r: status $?"; return 1; }
    done
    run timeout ${FS_HANG_GUARD:-60} "$B" perm 5 --algorithm=rejection --rng=rand
    [ "$status" -eq 0 ]
}

# Issue 10: a count whose byte total does not fit in 64 bits (2^61 words of
# 8 bytes) is still a count of words, not 0 bytes or 8.
@test "rng: --format=raw --count=2^61 and 2^61+1 do not overflow" {
    [ "$("$B" rng --format=raw --count=2305843009213693952 --seed=x | head -c 4096 | wc -c)" -eq 4096 ]
    [ "$("$B" rng --format=raw --count=2305843009213693953 --seed=x | head -c 4096 | wc -c)" -eq 4096 ]
    [ "$("$B" rng --format=raw --count=3 --rng=mt19937 --seed=1 | wc -c)" -eq 12 ]
}

# Issue 10: hex of a word is its value (most significant digit first, as
# u64 in base 16); hex of --bytes is the stream in order.
@test "rng: --format=hex prints word values; --bytes prints stream order" {
    v=$("$B" rng --rng=splitmix64 --seed=1234567 --count=1)
    [ "$("$B" rng --rng=splitmix64 --seed=1234567 --count=1 --format=hex)" = "$(printf '%016x' "$v")" ]
    le=$(printf '%016x' "$v" | sed 's/../& /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}')
    [ "$("$B" rng --rng=splitmix64 --seed=1234567 --bytes=8)" = "$le" ]
    [ "$("$B" rng --rng=mt19937 --seed=5489 --count=1 --format=hex)" = "$(printf '%08x' 3499211612)" ]
}

# Issue 10: the OS refusing the 1 MiB re-seed (getrandom failing after
# libsodium's initialisation and our first key: FS_FAILRANDOM_AFTER=3) must
# not turn into zeros: every printed word is a real one, then exit 1.
@test "fails closed mid-stream: a refused re-seed prints no zero word" {
    bats_require_minimum_version 1.5.0
    [ -n "${FS_FAILRANDOM:-}" ] && [ -r "$FS_FAILRANDOM" ]
    for f in u64 hex; do
        run --separate-stderr env FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FS_FAILRANDOM" "$B" rng --count=300000 --format=$f
        [ "$status" -eq 1 ]
        [[ "$stderr" == *"refused randomness"* ]]
        [ "${#lines[@]}" -le 131072 ]
        [ "${#lines[@]}" -gt 0 ]
        [ "$(printf '%s\n' "${lines[@]}" | grep -cx '0*')" -eq 0 ]
    done
    n=$(env FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FS_FAILRANDOM" "$B" rng --format=raw --count=300000 2>/dev/null | wc -c)
    [ "$n" -le 1048576 ]
    run --separate-stderr env FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FS_FAILRANDOM" "$B" perm 1000 --count=3000
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"refused randomness"* ]]
    [ "$(printf '%s\n' "${lines[@]}" | grep -c '^0 1 2 3 4 5 6')" -eq 0 ]
}

# Issue 10: libsodium initialises before our first draw, so a refusal of a
# later draw is an error (exit 1, a message), never SIGABRT in sodium_init.
@test "fails closed: getrandom refused after the first calls -> exit 1, no abort" {
    bats_require_minimum_version 1.5.0
    for after in 2 3 4; do
        run --separate-stderr env FS_FAILRANDOM_AFTER=$after LD_PRELOAD="$FS_FAILRANDOM" "$B" lines -e a b
        [ "$status" -eq 0 ] || { [ "$status" -eq 1 ] && [[ "$stderr" == *"refused randomness"* ]] && [ -z "$output" ]; } ||
            { echo "after $after: status $status"; return 1; }
        run --separate-stderr env FS_FAILRANDOM_AFTER=$after LD_PRELOAD="$FS_FAILRANDOM" "$B" rng --count=2
        [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "rng after $after: $status"; return 1; }
    done
    run --separate-stderr env FS_FAILRANDOM_AFTER=2 LD_PRELOAD="$FS_FAILRANDOM" "$B" lines -e a b
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"refused randomness"* ]]
}

# Issue 15: one rule for an empty seed: a usage error with one message,
# status 2 -- `lines` keeps GNU shuf's status 1 for its usage errors.
@test "empty seed: one message in every subcommand" {
    bats_require_minimum_version 1.5.0
    expect_error 2 "invalid seed: '': empty" rng --seed=
    expect_error 2 "invalid seed: '': empty" perm 3 --seed=
    expect_error 2 "invalid seed: '': empty" deal --seed=
    expect_error 2 "invalid seed: '': empty" verify --seed=
    expect_error 1 "invalid seed: '': empty" lines --seed= -e a
}
