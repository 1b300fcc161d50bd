#!/usr/bin/env bats
# fair check on a hash-chained log (fairshuf/chain.h; docs/provably-fair.md,
# "The hash chain"): a CLI log chained here by an independent writer
# (python3's hashlib), checked honest; each break of the chain caught with
# its rule and line.  (The page agrees: tests/web/chain.test.mjs.)

setup() {
    F="$FS_BIN"
    T="$BATS_TEST_TMPDIR"
    PY=/usr/bin/python3
    [ -x "$PY" ] || PY=python3
    seed="$T/seed" log="$T/plain.log"
    "$F" fair commit --game=holdem --players=3 --server-seed-file="$seed" --log="$log" >/dev/null
    for c in alice "" ""; do
        "$F" fair deal ${c:+--client-seed=$c} --server-seed-file="$seed" --log="$log" >/dev/null
    done
    "$F" fair rotate --server-seed-file="$seed" --log="$log" >/dev/null
    "$F" fair deal --client-seed=bob --server-seed-file="$seed" --log="$log" >/dev/null
    "$F" fair rotate --server-seed-file="$seed" --log="$log" >/dev/null
    # 1 commit 2 client seed 3-5 deals 6 reveal 7 commit 8 client seed
    # 9 deal 10 reveal 11 commit
    chain "$log" >"$T/chained.log"
}

# chain FILE: the lines of FILE chained (prev = SHA-256 of the line before).
chain() {
    "$PY" -c '
import hashlib, sys
prev = "0" * 64
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]:
    out = line[:-1] + ",\"prev\":\"%s\"}" % prev
    print(out)
    prev = hashlib.sha256(out.encode()).hexdigest()' "$1"
}

# verdict FILE: "VERDICT RULE LINE" of fair check --format=json.
verdict() {
    "$F" fair check --log="$1" --format=json | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
print(j["verdict"], j["rule"], j["line"])'
}

@test "fair check: a chained log is honest; the chain's breaks are caught with their line" {
    [ "$(wc -l <"$T/chained.log")" -eq 11 ]
    run "$F" fair check --log="$T/chained.log"
    [ "$status" -eq 0 ]
    [ "$(verdict "$T/chained.log")" = "honest None None" ]
    # a deal dropped at the end of the first period: the nonces still run
    sed 5d "$T/chained.log" >"$T/t1"
    [ "$(verdict "$T/t1")" = "dishonest chain-broken 5" ]
    run "$F" fair check --log="$T/t1"
    [ "$status" -eq 3 ]
    [[ $output == *"rule 'chain-broken' broken at line 5"* ]]
    # the first period dropped: the log starts at a commit, prev not zeros
    sed 1,6d "$T/chained.log" >"$T/t2"
    [ "$(verdict "$T/t2")" = "dishonest chain-broken 1" ]
    # a prev taken out of line 8
    sed '8s/,"prev":"[0-9a-f]*"}$/}/' "$T/chained.log" >"$T/t3"
    [ "$(verdict "$T/t3")" = "dishonest chain-missing 8" ]
    # a space added to line 3's deal record... caught by the chain at 4
    sed '3s/"nonce":0/"nonce": 0/' "$T/chained.log" >"$T/t4"
    [ "$(verdict "$T/t4")" = "dishonest chain-broken 4" ]
    # a deal copied after itself: the nonce rule on the same line comes first
    sed '4p' "$T/chained.log" >"$T/t5"
    [ "$(verdict "$T/t5")" = "dishonest nonce 5" ]
    # every prev taken out: an unchained log, the record rules alone
    sed 's/,"prev":"[0-9a-f]*"}$/}/' "$T/chained.log" >"$T/t6"
    cmp "$T/t6" "$T/plain.log"
    [ "$(verdict "$T/t6")" = "honest None None" ]
}

@test "fair check: a log chained from the middle (an older unchained start) is honest; breaks in the chained part are caught, the part before it is not protected" {
    head -n 6 "$T/plain.log" >"$T/mixed"
    "$PY" -c '
import hashlib, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
prev = hashlib.sha256(lines[5].encode()).hexdigest()
for line in lines[6:]:
    out = line[:-1] + ",\"prev\":\"%s\"}" % prev
    print(out)
    prev = hashlib.sha256(out.encode()).hexdigest()' "$T/plain.log" >>"$T/mixed"
    [ "$(verdict "$T/mixed")" = "honest None None" ]
    sed 3d "$T/mixed" >"$T/m1"   # before the chain: the nonce rule sees it
    [ "$(verdict "$T/m1")" = "dishonest nonce 3" ]
    sed 5d "$T/mixed" >"$T/m2"   # before the chain, unseen: it links line 6 only
    [ "$(verdict "$T/m2")" = "honest None None" ]
    sed '9s/,"prev":"[0-9a-f]*"}$/}/' "$T/mixed" >"$T/m3"
    [ "$(verdict "$T/m3")" = "dishonest chain-missing 9" ]
}
