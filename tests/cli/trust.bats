#!/usr/bin/env bats
# trust.bats -- issue 30 ("Trust, round three"): whole records when the
# generator fails in mid-stream, fs_rng_error, error messages that say
# what and why, and the small promises of the docs.

setup() {
    FS=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    FR=${FS_FAILRANDOM:-$BATS_TEST_DIRNAME/../../build/tests/failrandom.so}
    T=$(mktemp -d)
    cd "$T"
}

teardown() {
    cd /
    rm -rf "$T"
}

# dry CMD...: CMD with the OS refusing randomness after its third call
# (in mid-stream: the first records are made, then a re-key fails).
dry() {
    LD_PRELOAD="$FR" FS_FAILRANDOM_AFTER=3 "$@"
}

@test "M9: perm --count ends with whole permutations when the generator fails" {
    [ -e "$FR" ]
    run dry "$FS" perm 1000 --count=2000
    [ "$status" -eq 1 ]
    [[ "$output" == *"fairshuf: shuffle: the operating system refused randomness" ]]
    dry "$FS" perm 1000 --count=2000 > out 2>/dev/null || true
    [ -s out ] && [ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ]
    lines=$(wc -l < out)
    [ "$lines" -gt 0 ] && [ "$lines" -lt 2000 ]
    # every line a permutation of 0..999
    awk '{ if (NF != 1000) exit 1; delete s; for (i = 1; i <= NF; i++) s[$i] = 1;
           for (i = 0; i < 1000; i++) if (!(i in s)) exit 1 }' out
}

@test "M9: deal --count ends with whole deals when the generator fails" {
    [ -e "$FR" ]
    for args in "--format=tsv" "--format=jsonl" "--hands=5,5 --format=tsv" \
                "--game=bridge --format=jsonl"; do
        st=0
        dry "$FS" deal --count=30000 $args > out 2>/dev/null || st=$?
        [ "$st" -eq 1 ] || { echo "$args: status $st"; return 1; }
        [ -s out ] && [ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ] \
            || { echo "$args: ends in mid-record"; tail -c 80 out; return 1; }
        # every record whole: the same number of fields on every line
        case $args in
        *jsonl*) python3 -c 'import json, sys
n = {len(json.loads(l)["hands"]) for l in open(sys.argv[1])}
assert len(n) == 1, n' out || { echo "$args"; return 1; } ;;
        *) [ "$(awk -F'\t' '{print NF}' out | sort -u | wc -l)" = 1 ] \
               || { echo "$args: uneven records"; return 1; }
           [ "$(awk '{print NF}' out | sort -u | wc -l)" = 1 ] \
               || { echo "$args: a short last record"; return 1; } ;;
        esac
    done
}
