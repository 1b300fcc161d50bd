#!/usr/bin/env bats
# lines_topk.bats -- `lines -n K` keeps only the lines whose key is at most
# a threshold and compacts whenever 2K + 4096 are kept (lib/lines/topk.c).
# Its output must be exactly the head of the full keyed order: at input
# sizes on every compaction boundary (2K + 4096 +- 1, and the later ones,
# every K + 4096 lines more), around the 1 MiB read buffer, for K = 1, 2,
# 5 and large K, from a file and from a pipe.

setup() {
    export LC_ALL=C
    cd "$BATS_TEST_TMPDIR"
}

# head_matches FILE K SEED: -n K equals the first K lines of the full order.
head_matches() {
    "$FS_BIN" lines --seed="$3" "$1" > full
    head -n "$2" full > want
    "$FS_BIN" lines --seed="$3" -n "$2" "$1" > got
    cmp got want || { echo "file $1 ($(wc -l < "$1") lines), K=$2, seed $3"; return 1; }
    "$FS_BIN" lines --seed="$3" -n "$2" < "$1" | cmp - want ||
        { echo "pipe $1, K=$2"; return 1; }
}

@test "seq 4098 | lines --seed=t -n 1 prints the first line of the full order" {
    want=$(seq 4098 | "$FS_BIN" lines --seed=t | head -n 1)
    got=$(seq 4098 | "$FS_BIN" lines --seed=t -n 1)
    [ -n "$got" ]
    [ "$got" = "$want" ]
}

@test "-n K at every compaction boundary, K = 1, 2, 5" {
    for k in 1 2 5; do
        first=$((2 * k + 4096)) step=$((k + 4096))
        for n in $((first - 1)) $first $((first + 1)) $((first + step - 1)) \
                 $((first + step)) $((first + step + 1)) $((first + 3 * step)); do
            seq "$n" > in
            for seed in t u v; do
                head_matches in "$k" "$seed"
            done
        done
    done
}

@test "-n K with large K at its compaction boundaries" {
    for k in 3000 20000; do
        first=$((2 * k + 4096)) step=$((k + 4096))
        for n in $((first - 1)) $first $((first + 1)) $((first + step)) \
                 $((first + 2 * step + 1)); do
            seq "$n" > in
            head_matches in "$k" big
        done
    done
    seq 5000 > in
    head_matches in 5000 all # K = n: the whole order
    head_matches in 4999 all
}

@test "-n K around the 1 MiB read buffer (lines across it, no final newline)" {
    # 100-byte lines: 10485 of them fill 1048500 bytes; pad to exactly
    # 2^20 - 1, 2^20 and 2^20 + 1 bytes, with and without a last newline.
    seq -f '%099g' 10485 > base
    for extra in 75 76 77; do
        { cat base; head -c "$((extra - 1))" /dev/zero | tr '\0' x; echo; } > in
        for k in 1 5 2000; do
            head_matches in "$k" buf
        done
        head -c -1 in > nonl
        head_matches nonl 1 buf
        head_matches nonl 5 buf
    done
    [ "$(stat -c %s in)" -eq $((1048500 + 77)) ]
}
