#!/usr/bin/env bats
# fairshuf fair: commit, deal, check (scheme fairshuf-pf-1).

setup() {
    F="$FS_BIN"
    T="$BATS_TEST_TMPDIR"
    # A fixed server seed for known-answer tests: bytes 00..1f.
    SEED=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
    COMMIT=630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd
    echo "$SEED" >"$T/fixed.hex"
    chmod 600 "$T/fixed.hex"   # a seed file readable by others is warned about
}

# The reference checker of docs/provably-fair.md into $T/check.py, and $PY.
# It needs ChaCha20 from python3-cryptography (scripts/setup.sh installs
# it); a missing module fails, never skips.
ref_checker() {
    PY=
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import cryptography' 2>/dev/null && { PY=$p; break; }
    done
    [ -n "$PY" ] || { echo "python3-cryptography is missing"; return 1; }
    awk '/^```python$/{f=1;next} /^```$/{f=0} f' \
        "$BATS_TEST_DIRNAME/../../docs/provably-fair.md" >"$T/check.py"
}

@test "fair commit: a new owner-only seed file and its SHA-256 commitment" {
    run "$F" fair commit --server-seed-file="$T/s.hex"
    [ "$status" -eq 0 ]
    [[ $output =~ ^[0-9a-f]{64}$ ]]
    [ "$(stat -c %a "$T/s.hex")" = 600 ]
    want=$(printf '%b' "$(head -c 64 "$T/s.hex" | sed 's/../\\x&/g')" | sha256sum | cut -d' ' -f1)
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
    [ "$status" -eq 3 ]
    [[ $output == *"the deal is not the one"* ]]
}

@test "fair check: rejects a wrong nonce, a wrong client seed, a wrong server seed" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=8 --deal="$d"
    [ "$status" -eq 3 ]
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=bob --nonce=7 --deal="$d"
    [ "$status" -eq 3 ]
    other=${SEED%?}0
    run "$F" fair check --server-seed=$other --commitment=$COMMIT --client-seed=alice --nonce=7 --deal="$d"
    [ "$status" -eq 3 ]
    [[ $output == *"not the commitment"* ]]
}

@test "fair check: a wrong commitment alone fails" {
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    bad=$(printf '%064d' 0)
    run "$F" fair check --server-seed=$SEED --commitment=$bad --client-seed=alice --nonce=7 --deal="$d"
    [ "$status" -eq 3 ]
    [[ $output == *"not the commitment"* ]]
    [[ $output != *"deal is not"* ]]
}

@test "fair: malformed card codes, unreadable seed file, bad hex -> exit 1" {
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=a --nonce=1 --deal="As Xx"
    [ "$status" -eq 1 ]
    [[ $output == *"malformed deal at byte 3 ('Xx'): not a card code"* ]]
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
    ref_checker
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

# --- issue 10: the claim's structure, period logs, files, escaping ---------

# The honest TSV of the test vector (doudizhu, alice, nonce 7).
vector() {
    "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv
}
chk() {
    "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7 "$@"
}

@test "fair check: a moved tab (hands 16/18/17/3) is not the deal" {
    d=$(vector)
    # hand 1's last card moved to hand 2: same card sequence, other hands
    moved=$(printf '%s' "$d" | sed 's/ \([^ ]*\)\t/\t\1 /')
    [ "$(printf '%s' "$moved" | awk -F'\t' '{for(i=1;i<=NF;i++) printf "%d ", split($i,a," ")}')" = "16 18 17 3 " ]
    [ "$(printf '%s' "$moved" | tr '\t' ' ')" = "$(printf '%s' "$d" | tr '\t' ' ')" ]
    run chk --deal="$moved"
    [ "$status" -eq 3 ]
    [[ $output == *"hand 1 differs"* ]]
    [[ $output != *OK* ]]
}

@test "fair check: tabs replaced by spaces or commas are malformed (exit 1), not OK" {
    d=$(vector)
    run chk --deal="$(printf '%s' "$d" | tr '\t' ' ')"
    [ "$status" -eq 1 ]
    [[ $output == *"malformed deal"*"fewer tab-separated parts"*"4 parts"* ]]
    run chk --deal="$(printf '%s' "$d" | tr '\t' ',')"
    [ "$status" -eq 1 ]
    [[ $output == *"malformed deal at byte 48"* ]]
    run chk --deal="$(printf '%s' "$d" | tr '\t' ' ' | tr ' ' ',')"
    [ "$status" -eq 1 ]
    run chk --deal="$d	"
    [ "$status" -eq 1 ]
    run chk --deal="$d	Ah"
    [ "$status" -eq 1 ]
    [[ $output == *"more tab-separated parts"* ]]
    run chk --deal="$(printf '%s' "$d" | sed 's/ /  /')"
    [ "$status" -eq 1 ]
    # the honest claim with a final newline (stdin) is fine
    printf '%s\n' "$d" | chk
}

@test "fair check: tampering at every position of every part is caught (exit 3)" {
    # Every card of the doudizhu deal (each hand, the kitty, the last card)
    # replaced by the card after it: a prefix-only or sequence-only check
    # fails this (issue 16).
    d=$(vector)
    read -ra cards <<<"$(printf '%s' "$d" | tr '\t' ' ')"
    [ "${#cards[@]}" -eq 54 ]
    for i in $(seq 0 53); do
        t=("${cards[@]}")
        t[$i]=${cards[$(( (i + 1) % 54 ))]}
        claim="${t[*]:0:17}	${t[*]:17:17}	${t[*]:34:17}	${t[*]:51:3}"
        run chk --deal="$claim"
        [ "$status" -eq 3 ] || { echo "position $i not caught: $output"; return 1; }
    done
    # holdem: the board (flop, turn, river) and the last card
    h=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --game=holdem --format=tsv)
    for field in 7 8 9; do
        bad=$(printf '%s' "$h" | awk -F'\t' -v OFS='\t' -v f=$field '{ $f = (substr($f, 1, 2) == "2c" ? "3c" : "2c") substr($f, 3) } 1')
        run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7 --game=holdem --deal="$bad"
        [ "$status" -eq 3 ]
        [[ $output == *"differs"* ]]
    done
}

@test "fair check: exit statuses 0 honest, 3 dishonest, 1 malformed, 2 usage, in --help and the man page" {
    run chk --deal="$(vector)"
    [ "$status" -eq 0 ]
    run chk --deal="As"
    [ "$status" -eq 1 ]
    run chk --deal="Xx"
    [ "$status" -eq 1 ]
    run "$F" fair check --server-seed=$SEED --client-seed=a --nonce=1
    [ "$status" -eq 2 ]
    run "$F" fair check --log="$T/none.log"
    [ "$status" -eq 1 ]
    run "$F" fair --help
    [[ $output == *"0 honest, 3 dishonest"*"1 error"*"2 usage"* ]]
    grep -q 'dishonest' "$BATS_TEST_DIRNAME/../../docs/man/fairshuf-fair.1"
}

@test "fair commit: a failed write of the commitment leaves no seed file; a rerun works" {
    run bash -c '"$1" fair commit --server-seed-file="$2" >&-' _ "$F" "$T/c.hex"
    [ "$status" -eq 1 ]
    [ ! -e "$T/c.hex" ]
    [ -z "$(ls "$T" | grep '^c\.hex')" ]   # no temp file either
    run "$F" fair commit --server-seed-file="$T/c.hex"
    [ "$status" -eq 0 ]
    [ "$(stat -c %a "$T/c.hex")" = 600 ]
    run bash -c '"$1" fair commit --server-seed-file="$2" --log="$3" >/dev/full' _ "$F" "$T/d.hex" "$T/d.log"
    [ "$status" -eq 1 ]
    [ ! -e "$T/d.hex" ]
    [ ! -s "$T/d.log" ]
}

@test "fair deal: a control character in the client seed cannot forge a line" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --nonce=7 \
        --client-seed="$(printf 'x\ncommitment 0000000000000000000000000000000000000000000000000000000000000000\e[2J')"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 6 ]
    [[ ${lines[1]} == 'client seed "x\u000acommitment 0000'*'\u001b[2J", nonce 7' ]]
    ! printf '%s\n' "$output" | grep -q '^commitment'
    ! printf '%s' "$output" | grep -q "$(printf '\e')"
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed='a"b\c' --nonce=7
    [[ ${lines[1]} == 'client seed "a\"b\\c", nonce 7' ]]
}

@test "fair deal: a seed file readable by group or others gets a warning" {
    cp "$T/fixed.hex" "$T/open.hex"
    chmod 644 "$T/open.hex"
    run "$F" fair deal --server-seed-file="$T/open.hex" --client-seed=a --nonce=1 --format=tsv
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "fairshuf: warning: server seed file '$T/open.hex' is readable or writable by group or others (mode 0644)"* ]]
    chmod 600 "$T/open.hex"
    run "$F" fair deal --server-seed-file="$T/open.hex" --client-seed=a --nonce=1 --format=tsv
    [[ $output != *warning* ]]
}

load stopped # wait_stopped

# A period: commit, N deals with --log, then rotate (reveal + new commit).
period() {
    local n=$1
    "$F" fair commit --server-seed-file="$T/s.hex" --log="$T/p.log" >"$T/c1"
    for i in $(seq 1 "$n"); do
        "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=alice --game=holdem --format=tsv >/dev/null
    done
}

@test "fair rotate and commit: SIGINT or SIGTERM before the log is written leave no new seed file" {
    period 1
    cp "$T/s.hex" "$T/s.before"
    cp "$T/p.log" "$T/p.before"
    for sig in INT TERM; do
        for cmd in rotate commit; do
            log=--log="$T/p.log"
            [ $cmd = rotate ] || { log=; rm -f "$T/n.hex"; }
            file=$([ $cmd = rotate ] && echo s.hex || echo n.hex)
            # stops itself once the new seed's temporary file exists
            FAIRSHUF_TEST_STOP_PENDING=1 env --default-signal=INT \
                "$F" fair $cmd --server-seed-file="$T/$file" $log > /dev/null 2>&1 &
            pid=$!
            [ "$(wait_stopped $pid)" = T ]
            [ -n "$(ls "$T/$file".?????? 2>/dev/null)" ] # the temporary file
            kill -$sig $pid
            kill -CONT $pid
            st=0
            wait $pid || st=$?
            [ "$st" = "$([ $sig = INT ] && echo 130 || echo 143)" ]
            [ -z "$(ls "$T/$file".?????? 2>/dev/null)" ] # removed
            cmp "$T/s.hex" "$T/s.before"
            cmp "$T/p.log" "$T/p.before"
            [ ! -e "$T/n.hex" ]
        done
    done
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" > /dev/null
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 0 ] # the chain of commitments is intact
    [[ $output == "OK: 2 periods, 1 deal"* ]]
}

@test "fair period log: commit, deals with nonces 0.. in order, rotate, check OK" {
    period 3
    [ "$(grep -c '"event":"deal"' "$T/p.log")" -eq 3 ]
    [ "$(grep -o '"nonce":[0-9]*' "$T/p.log" | tr '\n' ' ')" = '"nonce":0 "nonce":1 "nonce":2 ' ]
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 4 ]
    [[ ${lines[0]} == "line 1: unrevealed: the period committed here is not revealed yet: its 3 deals are not checked" ]]
    [[ ${lines[1]} == INCONCLUSIVE:*"3 deals not checked"* ]]
    old=$(cat "$T/s.hex")
    run "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "revealed server seed $old" ]
    [ "$(stat -c %a "$T/s.hex")" = 600 ]
    [ "${lines[1]}" = "commitment $(head -c 64 "$T/s.hex" | python3 -c 'import sys,hashlib; print(hashlib.sha256(bytes.fromhex(sys.stdin.read())).hexdigest())')" ]
    # the next period: a new client seed and game are allowed, nonce from 0
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob >/dev/null
    [ "$(tail -1 "$T/p.log" | grep -o '"nonce":[0-9]*')" = '"nonce":0' ]
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 3 periods, 4 deals"* ]]
    run "$F" fair check --log="$T/p.log" --commitment="$(cat "$T/c1")" --client-seed=alice
    [ "$status" -eq 0 ]
    run "$F" fair check --log="$T/p.log" --commitment="$(cat "$T/c1")" --client-seed=mallory
    [ "$status" -eq 3 ]
    run "$F" fair check --log="$T/p.log" --commitment=$COMMIT
    [ "$status" -eq 3 ]
    [[ $output == *"log: dishonest: no period has your commitment"* ]]
}

@test "fair deal --log: the period fixes the nonce, the client seed and the game" {
    period 1
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=eve
    [ "$status" -eq 1 ]
    [[ $output == *"client seed is another one"* ]]
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --game=bridge
    [ "$status" -eq 1 ]
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --nonce=138
    [ "$status" -eq 1 ]
    [[ $output == *"next nonce is 1"* ]]
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [[ $output == *"not the one committed"* ]]
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/missing.log"
    [ "$status" -eq 1 ]
    [[ $output == *"cannot open log"* ]]
    [ ! -e "$T/missing.log" ]
    run "$F" fair commit --server-seed-file="$T/s2.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [ ! -e "$T/s2.hex" ]
    [ "$(grep -c . "$T/p.log")" -eq 2 ]
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --nonce=1 >/dev/null
}

@test "fair check --log: a ground nonce (alice, nonce 138 of 0..200) is dishonest" {
    # The issue's attack: the server tries nonces 0..200 for client seed
    # alice and deals the one it likes (138).  Published as it is, the nonce
    # skips; relabelled nonce 0, the deal is not nonce 0's.
    commit=$("$F" fair commit --server-seed-file="$T/g.hex")
    d=$("$F" fair deal --server-seed-file="$T/g.hex" --client-seed=alice --nonce=138 --format=tsv)
    js=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$d")
    rec() { printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":%s,"client_seed":"alice","game":"doudizhu","players":3,"decks":1,"deal":%s}\n' "$1" "$js"; }
    head='{"scheme":"fairshuf-pf-1","event":"commit","commitment":"'$commit'"}'
    tail='{"scheme":"fairshuf-pf-1","event":"reveal","server_seed":"'$(head -c 64 "$T/g.hex")'"}'
    printf '%s\n%s\n%s\n' "$head" "$(rec 138)" "$tail" >"$T/g1.log"
    run "$F" fair check --log="$T/g1.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: dishonest: nonce 138 where 0 is due"* ]]
    printf '%s\n%s\n%s\n' "$head" "$(rec 0)" "$tail" >"$T/g2.log"
    run "$F" fair check --log="$T/g2.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: dishonest: nonce 0: hand 1 is not the one the seeds give"* ]]
    run "$F" fair check --log="$T/g2.log" --format=json
    [ "$status" -eq 3 ]
    [ "$output" = '{"scheme":"fairshuf-pf-1","verdict":"dishonest","periods":1,"deals":1,"checked":1,"findings":[{"line":2,"finding":"dishonest","message":"nonce 0: hand 1 is not the one the seeds give"}]}' ]
    # the honest period (nonce 0's own deal) passes
    d0=$("$F" fair deal --server-seed-file="$T/g.hex" --client-seed=alice --nonce=0 --format=tsv)
    js=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$d0")
    printf '%s\n%s\n%s\n' "$head" "$(rec 0)" "$tail" >"$T/g3.log"
    run "$F" fair check --log="$T/g3.log"
    [ "$status" -eq 0 ]
    run "$F" fair check --log="$T/g3.log" --format=json
    [ "$status" -eq 0 ]
    [[ $output == '{"scheme":"fairshuf-pf-1","verdict":"honest","periods":1,"deals":1,"checked":1,"findings":[]}' ]]
    # a client seed changed inside the period, a second commitment before the reveal
    sed '2{p;s/"nonce":0,"client_seed":"alice"/"nonce":1,"client_seed":"bob"/}' "$T/g3.log" >"$T/g4.log"
    run "$F" fair check --log="$T/g4.log"
    [ "$status" -eq 3 ]
    [[ $output == *"client seed changed inside a period"* ]]
    sed '2{p;s/.*/'"$head"'/}' "$T/g3.log" >"$T/g5.log"
    run "$F" fair check --log="$T/g5.log"
    [ "$status" -eq 3 ]
    [[ $output == *"a new commitment before the seed committed at line 1 was revealed"* ]]
}

@test "fair check --log: another scheme or a malformed line is refused (exit 1), never judged" {
    period 1
    sed 's/fairshuf-pf-1/fairshuf-pf-2/' "$T/p.log" >"$T/v2.log"
    run "$F" fair check --log="$T/v2.log"
    [ "$status" -eq 1 ]
    [[ $output == *"scheme 'fairshuf-pf-2' is not one this fairshuf verifies"* ]]
    head -c -5 "$T/p.log" >"$T/cut.log"
    run "$F" fair check --log="$T/cut.log"
    [ "$status" -eq 1 ]
    [[ $output == *"line 2: not a record of the log"* ]]
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/cut.log"
    [ "$status" -eq 1 ]
}

@test "fair: the reference checker of docs/provably-fair.md verifies a period log as fair check does" {
    ref_checker
    period 3
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$PY" "$T/check.py" --log "$T/p.log"
    [ "$status" -eq 0 ]
    [[ $output == OK* ]]
    sed 's/"nonce":2/"nonce":3/' "$T/p.log" >"$T/skip.log"
    run "$PY" "$T/check.py" --log "$T/skip.log"
    [ "$status" -eq 3 ]
    run "$F" fair check --log="$T/skip.log"
    [ "$status" -eq 3 ]
    # the last card of the last deal changed
    awk '/"event":"deal"/{n=NR} {l[NR]=$0} END{for(i=1;i<=NR;i++){s=l[i]; if(i==n){c=substr(s,length(s)-3,2); r=(c=="2c"?"3c":"2c"); s=substr(s,1,length(s)-4) r substr(s,length(s)-1)} print s}}' "$T/p.log" >"$T/last.log"
    ! cmp -s "$T/p.log" "$T/last.log"
    run "$PY" "$T/check.py" --log "$T/last.log"
    [ "$status" -eq 3 ]
    run "$F" fair check --log="$T/last.log"
    [ "$status" -eq 3 ]
}

@test "fair: --help and option errors in the form of every subcommand (cli_help, cli_bad_option)" {
    run "$F" fair --help
    [ "$status" -eq 0 ]
    [[ "${lines[-1]}" == "Manual: man "* ]]
    run "$F" fair check -5
    [ "$status" -eq 2 ]
    [ "${lines[0]}" = "fairshuf: invalid option -- '5'" ]
    [[ "$output" == *"a negative number is not an operand"* ]]
    [[ "${lines[-1]}" == "Try 'fairshuf fair --help' for more information." ]]
    run "$F" fair deal --bogus
    [ "$status" -eq 2 ]
    [ "${lines[0]}" = "fairshuf: unrecognized option '--bogus'" ]
    # a bad option value is a usage error (2), like everywhere else
    run "$F" fair deal --server-seed-file=x --client-seed=a --nonce=1 --players=0
    [ "$status" -eq 2 ]
    [[ "$output" == "fairshuf: invalid number of players: '0'"* ]]
}
