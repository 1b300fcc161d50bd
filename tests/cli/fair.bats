#!/usr/bin/env bats
# fairshuf fair: commit, deal, check (scheme fairshuf-pf-1).

setup() {
    F="$FS_BIN"
    T="$BATS_TEST_TMPDIR"
    # A fixed server seed for known-answer tests: bytes 00..1f.
    SEED=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
    COMMIT=630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd
    echo "$SEED" >"$T/fixed.hex"
}

@test "fair commit: a new owner-only seed file and its SHA-256 commitment" {
    run "$F" fair commit --server-seed-file="$T/s.hex"
    [ "$status" -eq 0 ]
    [[ $output =~ ^[0-9a-f]{64}$ ]]
    [ "$(stat -c %a "$T/s.hex")" = 600 ]
    want=$(head -c 64 "$T/s.hex" | xxd -r -p | sha256sum | cut -d' ' -f1)
    [ "$output" = "$want" ]
}

@test "fair commit: never overwrites an existing seed file" {
    "$F" fair commit --server-seed-file="$T/s.hex" >/dev/null
    before=$(cat "$T/s.hex")
    run "$F" fair commit --server-seed-file="$T/s.hex"
    [ "$status" -eq 1 ]
    [[ $output == *"cannot create"* ]]
    [ "$(cat "$T/s.hex")" = "$before" ]
}

@test "fair deal: prints the commitment and is reproducible" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "fairshuf-pf-1 commitment $COMMIT" ]]
    a=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    b=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    [ "$a" = "$b" ]
    c=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=8 --format=tsv)
    [ "$a" != "$c" ]
}

@test "fair deal: an independent re-implementation of the scheme agrees" {
    # HMAC-SHA256 with Python's hmac, then the chacha20 + Durstenfeld of the
    # spec through 'fairshuf perm' keyed with that key (stream v1).
    key=$(python3 -c '
import hmac, hashlib, sys
seed = bytes(range(32))
msg = b"\0".join([b"fairshuf-pf-1", b"doudizhu", b"3", b"1", b"alice", b"7"])
print(hmac.new(seed, msg, hashlib.sha256).hexdigest())')
    perm=$("$F" perm 54 --algorithm=durstenfeld --seed="$key")
    deck="As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ad 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc BJ RJ"
    want=$(python3 -c '
import sys
deck = sys.argv[1].split(); p = [int(x) for x in sys.argv[2].split()]
c = [deck[i] for i in p]
print(" ".join(c[0:17]) + "\t" + " ".join(c[17:34]) + "\t" + " ".join(c[34:51]) + "\t" + " ".join(c[51:54]))' "$deck" "$perm")
    got=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    [ "$got" = "$want" ]
}

@test "fair check: accepts an honest deal (--deal and stdin)" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7 --deal="$d"
    [ "$status" -eq 0 ]
    [[ $output == OK:* ]]
    echo "$d" | "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7
}

@test "fair check: rejects a changed card" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    first=$(echo "$d" | cut -c1-2)
    last=$(echo "$d" | rev | cut -c1-2 | rev)
    swapped="$last${d:2:${#d}-4}$first"
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7 --deal="$swapped"
    [ "$status" -eq 1 ]
    [[ $output == *"the deal is not the one"* ]]
}

@test "fair check: rejects a wrong nonce, a wrong client seed, a wrong server seed" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=8 --deal="$d"
    [ "$status" -eq 1 ]
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=bob --nonce=7 --deal="$d"
    [ "$status" -eq 1 ]
    other=${SEED%?}0
    run "$F" fair check --server-seed=$other --commitment=$COMMIT --client-seed=alice --nonce=7 --deal="$d"
    [ "$status" -eq 1 ]
    [[ $output == *"not the commitment"* ]]
}

@test "fair check: a wrong commitment alone fails" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    bad=$(printf '%064d' 0)
    run "$F" fair check --server-seed=$SEED --commitment=$bad --client-seed=alice --nonce=7 --deal="$d"
    [ "$status" -eq 1 ]
    [[ $output == *"not the commitment"* ]]
    [[ $output != *"deal is not"* ]]
}

@test "fair: malformed card codes, unreadable seed file, bad hex -> exit 1" {
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=a --nonce=1 --deal="As Xx"
    [ "$status" -eq 1 ]
    [[ $output == *"malformed card code 'Xx'"* ]]
    run "$F" fair deal --server-seed-file="$T/missing.hex" --client-seed=a --nonce=1
    [ "$status" -eq 1 ]
    [[ $output == *"cannot read server seed file"* ]]
    [ -z "$("$F" fair deal --server-seed-file="$T/missing.hex" --client-seed=a --nonce=1 2>/dev/null)" ]
    echo nothex >"$T/bad.hex"
    run "$F" fair deal --server-seed-file="$T/bad.hex" --client-seed=a --nonce=1
    [ "$status" -eq 1 ]
    [[ $output == *"not 64 hex digits"* ]]
    run "$F" fair check --server-seed=123 --commitment=$COMMIT --client-seed=a --nonce=1 --deal=As
    [ "$status" -eq 1 ]
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=a --nonce=x
    [ "$status" -eq 2 ]
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=a --nonce=1 --game=uno
    [ "$status" -eq 2 ]
}

@test "fair: missing options and actions are usage errors" {
    run "$F" fair
    [ "$status" -eq 2 ]
    run "$F" fair shuffle
    [ "$status" -eq 2 ]
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --nonce=1
    [ "$status" -eq 2 ]
    [[ $output == *"missing --client-seed"* ]]
    run "$F" fair --help
    [ "$status" -eq 0 ]
    run "$F" fair --version
    [ "$status" -eq 0 ]
}

@test "fair: mahjong deals check too (tile codes)" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=c --nonce=1 --game=mahjong --format=tsv)
    "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=c --nonce=1 --game=mahjong --deal="$d"
}

@test "fair: the test vector of docs/provably-fair.md" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'Td 2d 7s 6h 5s Jh 4c Ks Qd 8h 9c As 8s Jc 8c Js 4d\t8d 7h Qh Jd 3h 7c 9s 5c Kh 3d Kd Qc 9h 5d 5h 3c Tc\tTh 6d Qs 2s BJ 4s 3s Ts 2c RJ 4h 2h 6c 7d 6s Ad Ah\t9d Ac Kc')" ]
    grep -q "$(printf 'Td 2d 7s 6h 5s Jh 4c Ks Qd 8h 9c As 8s Jc 8c Js 4d | 8d 7h')" \
        "$BATS_TEST_DIRNAME/../../docs/provably-fair.md"
}

@test "fair: the reference checker of docs/provably-fair.md agrees for every game" {
    # The reference checker needs ChaCha20 from python3-cryptography
    # (scripts/setup.sh installs it); a missing module fails, never skips.
    PY=
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import cryptography' 2>/dev/null && { PY=$p; break; }
    done
    [ -n "$PY" ] || { echo "python3-cryptography is missing"; return 1; }
    awk '/^```python$/{f=1;next} /^```$/{f=0} f' \
        "$BATS_TEST_DIRNAME/../../docs/provably-fair.md" >"$T/check.py"
    for g in doudizhu holdem poker5 bridge shengji mahjong blackjack; do
        want=$("$PY" "$T/check.py" $SEED alice 7 $g 2>/dev/null)
        got=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --game=$g --format=tsv)
        [ "$want" = "$got" ]
    done
    want=$("$PY" "$T/check.py" $SEED "b o b" 12 holdem 9 2>/dev/null)
    got=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed="b o b" --nonce=12 --game=holdem --players=9 --format=tsv)
    [ "$want" = "$got" ]
}

@test "fair commit: fails closed when the OS refuses randomness, no file left" {
    [ -n "${FS_FAILRANDOM:-}" ] && [ -e "$FS_FAILRANDOM" ]
    run env LD_PRELOAD="$FS_FAILRANDOM" "$F" fair commit --server-seed-file="$T/no.hex"
    [ "$status" -eq 1 ]
    [ ! -e "$T/no.hex" ]
}
