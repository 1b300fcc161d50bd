#!/usr/bin/env bats
# fairshuf fair vrf-*: the RFC 9381 VRF at the command line, and scheme
# fairshuf-vrf-1's records and `fair check --public-key`.

setup() {
    F="$FS_BIN"
    T="$BATS_TEST_TMPDIR"
    # RFC 9381 Example 16's secret key (docs/provably-fair.md uses it).
    echo 9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60 \
        >"$T/k.vrf-key"
    chmod 600 "$T/k.vrf-key"
    PK=d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a
}

# An honest log of table t1: the table record and hands 0..N-1.
honest_log() {
    "$F" fair vrf-table --key-file="$T/k.vrf-key" --table=t1 --game=holdem \
        --players=2 --client-seed=alice --client-seed=bob >"$T/log"
    for ((h = 0; h < $1; h++)); do
        "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=$h \
            --game=holdem --players=2 --client-seed=alice \
            --client-seed=bob >>"$T/log"
    done
}

@test "vrf-keygen: a new owner-only key, never replaced; prints the public key" {
    run "$F" fair vrf-keygen --key-file="$T/new.vrf-key"
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^[0-9a-f]{64}$ ]]
    [ "$(stat -c %a "$T/new.vrf-key")" = 600 ]
    [[ "$(cat "$T/new.vrf-key")" =~ ^[0-9a-f]{64}$ ]]
    [ "$(wc -c <"$T/new.vrf-key")" -eq 65 ]
    before=$(cat "$T/new.vrf-key")
    run "$F" fair vrf-keygen --key-file="$T/new.vrf-key"
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot create"*"File exists"* ]]
    [ "$(cat "$T/new.vrf-key")" = "$before" ]
    # a symlink is not followed or replaced
    ln -s "$T/elsewhere" "$T/link.vrf-key"
    run "$F" fair vrf-keygen --key-file="$T/link.vrf-key"
    [ "$status" -eq 1 ]
    [ ! -e "$T/elsewhere" ]
    # no temporary file left beside either
    [ -z "$(ls "$T" | grep -E 'vrf-key\.' || true)" ]
}

@test "vrf-prove and vrf-verify: RFC 9381 Examples 16-18 exactly" {
    while read -r sk alpha pi beta; do
        [ "$alpha" = - ] && alpha=
        echo "$sk" >"$T/e.vrf-key"
        chmod 600 "$T/e.vrf-key"
        run "$F" fair vrf-prove --key-file="$T/e.vrf-key" --alpha="$alpha"
        [ "$status" -eq 0 ]
        [[ "$output" == *"\"pi\":\"$pi\""* ]]
        [[ "$output" == *"\"beta\":\"$beta\""* ]]
        pk=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["public_key"])' "$output")
        run "$F" fair vrf-verify --public-key="$pk" --alpha="$alpha" --pi="$pi"
        [ "$status" -eq 0 ]
        [ "$output" = "$beta" ]
    done <<'EOF'
9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60 - 8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f26f8a57ccaed74ee1b190bed1f479d9727d2d0f9b005a6e456a35d4fb0daab1268a1b0db10836d9826a528ca76567805 90cf1df3b703cce59e2a35b925d411164068269d7b2d29f3301c03dd757876ff66b71dda49d2de59d03450451af026798e8f81cd2e333de5cdf4f3e140fdd8ae
4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb 72 f3141cd382dc42909d19ec5110469e4feae18300e94f304590abdced48aed5933bf0864a62558b3ed7f2fea45c92a465301b3bbf5e3e54ddf2d935be3b67926da3ef39226bbc355bdc9850112c8f4b02 eb4440665d3891d668e7e0fcaf587f1b4bd7fbfe99d0eb2211ccec90496310eb5e33821bc613efb94db5e5b54c70a848a0bef4553a41befc57663b56373a5031
c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7 af82 9bc0f79119cc5604bf02d23b4caede71393cedfbb191434dd016d30177ccbf8096bb474e53895c362d8628ee9f9ea3c0e52c7a5c691b6c18c9979866568add7a2d41b00b05081ed0f58ee5e31b3a970e 645427e5d00c62a23fb703732fa5d892940935942101e456ecca7bb217c61c452118fec1219202a0edcf038bb6373241578be7217ba85a2687f7a0310b2df19f
EOF
}

@test "vrf-verify: exit 3 for a changed proof, alpha or key; 2 for bad hex" {
    pi=8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f26f8a57ccaed74ee1b190bed1f479d9727d2d0f9b005a6e456a35d4fb0daab1268a1b0db10836d9826a528ca76567805
    bad=${pi:0:100}0${pi:101}
    [ "$bad" != "$pi" ]
    run "$F" fair vrf-verify --public-key=$PK --alpha= --pi="$bad"
    [ "$status" -eq 3 ]
    [[ "$output" == "fairshuf: fair vrf-verify: invalid proof"* ]]
    run "$F" fair vrf-verify --public-key=$PK --alpha=00 --pi="$pi"
    [ "$status" -eq 3 ]
    run "$F" fair vrf-verify --public-key=0100000000000000000000000000000000000000000000000000000000000000 --alpha= --pi="$pi"
    [ "$status" -eq 3 ]
    [[ "$output" == *"invalid public key"* ]]
    run "$F" fair vrf-verify --public-key=$PK --alpha=0 --pi="$pi"
    [ "$status" -eq 2 ]
    run "$F" fair vrf-verify --public-key=$PK --alpha=zz --pi="$pi"
    [ "$status" -eq 2 ]
    run "$F" fair vrf-verify --public-key=$PK --alpha=
    [ "$status" -eq 2 ]
    [[ "$output" == *"missing --pi"* ]]
}

@test "vrf-deal: the golden hand of docs/provably-fair.md" {
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=0 \
        --game=holdem --players=2 --client-seed=alice --client-seed=bob
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == '{"scheme":"fairshuf-vrf-1","event":"hand","public_key":"'$PK'","table":"t1","hand":0,"client_seeds":"alice\tbob","game":"holdem","players":2,"decks":1,"alpha":"'* ]]
    [[ "$output" == *'"pi":"4c05d4c2722fd26acd50d89769b137bd5ef4c971fe9fbb83ff21f89fbb05b2f18ad09e00ce5e41197fce1d1cf68d9d0b2dff6fd2340f899bd94b27e63a7d0b11dc218559e636f8878b357188eb05b902","deal":"5h Qs\t7d Ks\tTh As 7h\t3c\t6c"}' ]]
    # alpha is the documented bytes
    alpha=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["alpha"])' "$output")
    want=$(printf 'fairshuf-vrf-1\0%s\0t1\0holdem\0002\0001\0000\0alice\tbob' $PK | od -An -tx1 | tr -d ' \n')
    [ "$alpha" = "$want" ]
}

@test "vrf-deal, vrf-table: usage errors" {
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=0 --game=holdem
    [ "$status" -eq 2 ]
    [[ "$output" == *"missing --client-seed"* ]]
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=-1 --game=holdem --client-seed=a
    [ "$status" -eq 2 ]
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=0 --game=nope --client-seed=a
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown game"* ]]
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table="$(printf 'a\tb')" --hand=0 --game=holdem --client-seed=a
    [ "$status" -eq 2 ]
    run "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t --hand=0 --game=holdem --client-seed=
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid client seed"* ]]
    run "$F" fair vrf-table --key-file="$T/k.vrf-key" --table=t --game=holdem
    [ "$status" -eq 2 ]
    run "$F" fair vrf-table --key-file="$T/k.vrf-key" --table=t --game=holdem --commitment=abc
    [ "$status" -eq 2 ]
    run "$F" fair vrf-prove --key-file="$T/missing" --alpha=00
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot read key file"* ]]
    run "$F" fair vrf-deal --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"vrf-keygen"*"Manual:"* ]]
    run "$F" fair --help
    [[ "$output" == *"vrf-keygen|vrf-prove"* ]]
}

@test "fair check --public-key: honest, empty, and one log per threat" {
    honest_log 3
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 0 ]
    [[ "$output" == "OK: 1 table, 3 hands"* ]]
    run "$F" fair check --log="$T/log" --public-key=$PK --format=json
    [ "$status" -eq 0 ]
    [[ "$output" == *'"verdict":"honest"'*'"proven":3}' ]]
    # another key: every record is flagged where it stands
    other=$("$F" fair vrf-keygen --key-file="$T/o.vrf-key")
    run "$F" fair check --log="$T/log" --public-key="$other"
    [ "$status" -eq 3 ]
    [[ "$output" == *"DISHONEST: rule 'other-key' broken at line 1"* ]]
    # a table and no hand: nothing checked
    head -1 "$T/log" >"$T/empty"
    run "$F" fair check --log="$T/empty" --public-key=$PK
    [ "$status" -eq 4 ]
    # a hand skipped (never proven) and a hand repeated
    sed 3d "$T/log" >"$T/skip"
    run "$F" fair check --log="$T/skip" --public-key=$PK --format=json
    [ "$status" -eq 3 ]
    [[ "$output" == *'"rule":"hand-number","line":3'* ]]
    sed -n 3p "$T/log" >>"$T/log"
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 3 ]
    [[ "$output" == *"'hand-number' broken at line 5"* ]]
    # a seed chosen after the commitments (re-dealt with another seed)
    honest_log 1
    "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=1 \
        --game=holdem --players=2 --client-seed=alice --client-seed=eve >>"$T/log"
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 3 ]
    [[ "$output" == *"'seed-not-committed' broken at line 3"* ]]
    # a deal that is not beta's
    honest_log 1
    sed -i '2s/"deal":"5h Qs/"deal":"Qs 5h/' "$T/log"
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 3 ]
    [[ "$output" == *"'bad-deal' broken at line 2"* ]]
    # a void hand is honest and counted
    honest_log 1
    "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=1 --void \
        --game=holdem --players=2 --client-seed=alice --client-seed=bob >>"$T/log"
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 0 ]
    [[ "$output" == *"1 hand and 1 void hand"* ]]
    # malformed
    echo '{"scheme":"fairshuf-vrf-1"' >>"$T/log"
    run "$F" fair check --log="$T/log" --public-key=$PK
    [ "$status" -eq 3 ]
    [[ "$output" == *"'malformed' broken at line 4"* ]]
}

@test "fair check --my-hands: a hand the player received and the log lacks" {
    honest_log 2
    "$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=2 \
        --game=holdem --players=2 --client-seed=alice --client-seed=bob >"$T/mine"
    sed -n 3p "$T/log" >>"$T/mine"
    run "$F" fair check --log="$T/log" --public-key=$PK --my-hands="$T/mine"
    [ "$status" -eq 3 ]
    [[ "$output" == *"log: hand-missing: your hand 2 of table 't1' is not in the log"* ]]
    sed -n 2,3p "$T/log" >"$T/mine"
    run "$F" fair check --log="$T/log" --public-key=$PK --my-hands="$T/mine"
    [ "$status" -eq 0 ]
    [[ "$output" == *"your hands are in it"* ]]
    echo junk >>"$T/mine"
    run "$F" fair check --log="$T/log" --public-key=$PK --my-hands="$T/mine"
    [ "$status" -eq 1 ]
    [[ "$output" == *"line 3: not a hand record"* ]]
}

@test "vrf-keygen: fails closed when the OS refuses randomness, no file left" {
    [ -n "${FS_FAILRANDOM:-}" ] && [ -e "$FS_FAILRANDOM" ]
    run env LD_PRELOAD="$FS_FAILRANDOM" "$F" fair vrf-keygen --key-file="$T/no.vrf-key"
    [ "$status" -eq 1 ]
    [ ! -e "$T/no.vrf-key" ]
    [ -z "$(ls "$T" | grep -E 'no\.vrf-key' || true)" ]
}

@test "fair check --public-key --record: one hand alone" {
    rec=$("$F" fair vrf-deal --key-file="$T/k.vrf-key" --table=t1 --hand=0 \
        --game=holdem --players=2 --client-seed=alice --client-seed=bob)
    run "$F" fair check --public-key=$PK --record="$rec"
    [ "$status" -eq 0 ]
    [[ "$output" == "OK: hand 0 of table 't1'"* ]]
    run "$F" fair check --public-key=$PK --record="${rec/\"hand\":0/\"hand\":1}"
    [ "$status" -eq 3 ]
    [[ "$output" == *"rule 'bad-alpha'"* ]]
    other=$("$F" fair vrf-keygen --key-file="$T/o2.vrf-key")
    run "$F" fair check --public-key="$other" --record="$rec"
    [ "$status" -eq 3 ]
    [[ "$output" == *"rule 'other-key'"* ]]
    run "$F" fair check --public-key=$PK --record="$rec" --log="$T/log"
    [ "$status" -eq 2 ]
}
