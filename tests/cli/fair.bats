#!/usr/bin/env bats
# fairshuf fair: commit, client-seed, deal, rotate, check (scheme
# fairshuf-pf-2; fairshuf-pf-1 logs and deals still check).

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
    [[ ${lines[0]} == "fairshuf-pf-2 commitment $COMMIT" ]]
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
msg = b"\0".join([b"fairshuf-pf-2", b"doudizhu", b"3", b"1", b"alice", b"7"])
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

@test "fair: the test vectors of docs/provably-fair.md (pf-2 and pf-1)" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '4c 3c 7d Jh Ac 6d 3d 4h 9h 2c RJ 5d Td Ah 2s Kh Ad\t9c 6c Jd Ks 8s Th 8d 7h Qh 4d Qd 9s Qc 6h Js Ts Qs\t2d Tc 7c 5h 2h 3s Jc 4s BJ 8c 6s As Kd Kc 7s 8h 9d\t3h 5c 5s')" ]
    grep -q "$(printf '4c 3c 7d Jh Ac 6d 3d 4h 9h 2c RJ 5d Td Ah 2s Kh Ad | 9c 6c')" \
        "$BATS_TEST_DIRNAME/../../docs/provably-fair.md"
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv --scheme=fairshuf-pf-1
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'Td 2d 7s 6h 5s Jh 4c Ks Qd 8h 9c As 8s Jc 8c Js 4d\t8d 7h Qh Jd 3h 7c 9s 5c Kh 3d Kd Qc 9h 5d 5h 3c Tc\tTh 6d Qs 2s BJ 4s 3s Ts 2c RJ 4h 2h 6c 7d 6s Ad Ah\t9d Ac Kc')" ]
    grep -q "$(printf 'Td 2d 7s 6h 5s Jh 4c Ks Qd 8h 9c As 8s Jc 8c Js 4d | 8d 7h')" \
        "$BATS_TEST_DIRNAME/../../docs/provably-fair.md"
}

@test "fair: the reference checker of docs/provably-fair.md agrees for every game" {
    ref_checker
    # check.py run as a script (its __main__, argv as given) for each deal,
    # all in one python process (a start with cryptography costs ~0.8 s)
    run_ref() { # ARGS... per deal, one deal a line: "seed client nonce game [players]"
        "$PY" -c '
import contextlib, io, runpy, sys
path = sys.argv[1]
for args in sys.argv[2:]:
    sys.argv = [path] + args.split("|")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        runpy.run_path(path, run_name="__main__")
    sys.stdout.write(out.getvalue())' "$T/check.py" "$@"
    }
    games="doudizhu holdem poker5 bridge shengji mahjong blackjack"
    want=$(run_ref $(for g in $games; do echo "$SEED|alice|7|$g"; done) "$SEED|b o b|12|holdem|9")
    got=$(for g in $games; do
        "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --game=$g --format=tsv
    done
    "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed="b o b" --nonce=12 --game=holdem --players=9 --format=tsv)
    [ "$(echo "$got" | wc -l)" -eq 8 ]
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
    [ ! -e "$T/d.log" ] # the log it would have created is not left behind
}

@test "fair deal: a control character in the client seed is refused; quotes cannot forge a line" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --nonce=7 \
        --client-seed="$(printf 'x\ncommitment 0000000000000000000000000000000000000000000000000000000000000000\e[2J')"
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: fair deal: invalid client seed: the client seed holds a control character" ]
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

# A period: commit (holdem), N deals with --log, the first recording the
# client seed alice.
period() {
    local n=$1
    "$F" fair commit --server-seed-file="$T/s.hex" --log="$T/p.log" --game=holdem >"$T/c1"
    for i in $(seq 1 "$n"); do
        "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=alice --format=tsv >>"$T/mine"
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
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob > /dev/null
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" > /dev/null
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 0 ] # the chain of commitments is intact
    [[ $output == "OK: 3 periods, 2 deals"* ]]
}

@test "fair period log: commit, client seed, deals with nonces 0.. in order, rotate, check OK" {
    period 3
    [ "$(sed -n 1p "$T/p.log" | grep -o '"game":"holdem","players":6,"decks":1')" ]
    [ "$(sed -n 2p "$T/p.log")" = '{"scheme":"fairshuf-pf-2","event":"client_seed","client_seed":"alice"}' ]
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
    # the next period: the same table, a new client seed first, nonce from 0
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [[ $output == *"the period has no client seed yet"* ]]
    "$F" fair client-seed --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    [ "$(tail -1 "$T/p.log" | grep -o '"nonce":[0-9]*,"client_seed":"bob","game":"holdem"')" = '"nonce":0,"client_seed":"bob","game":"holdem"' ]
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 3 periods, 4 deals"* ]]
    run "$F" fair check --log="$T/p.log" --commitment="$(cat "$T/c1")" --client-seed=alice --my-deals="$T/mine"
    [ "$status" -eq 0 ]
    run "$F" fair check --log="$T/p.log" --commitment="$(cat "$T/c1")" --client-seed=mallory
    [ "$status" -eq 3 ]
    [[ $output == *"client-seed-mismatch"* ]]
    run "$F" fair check --log="$T/p.log" --commitment=$COMMIT
    [ "$status" -eq 3 ]
    [[ $output == *"log: commitment-not-found: no period of the log has your commitment"* ]]
    # the reference checker agrees
    ref_checker
    run "$PY" "$T/check.py" --log "$T/p.log"
    [ "$status" -eq 0 ]
    [ "$output" = "honest - -" ]
}

@test "fair check --client-seed alone must be the log's client seed (exit 3 otherwise), and is inconclusive without the commitment (H3)" {
    period 1
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$F" fair check --log="$T/p.log" --client-seed=alice
    [ "$status" -eq 4 ]
    [[ ${lines[0]} == "log: no-commitment: without the commitment you were shown"* ]]
    [[ ${lines[-1]} == "INCONCLUSIVE: every rule of the log holds (2 periods, 1 deal checked); what you gave: your client seed is period 1's, but without the commitment"*"--commitment" ]]
    # never claims what was not given
    [[ $output != *"your commitment"*" is "* ]]
    run "$F" fair check --log="$T/p.log" --client-seed=alice --commitment="$(cat "$T/c1")"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 2 periods, 1 deal: "*"; what you gave: your commitment is period 1's, your client seed is its" ]]
    run "$F" fair check --log="$T/p.log" --client-seed=alice --format=json
    [ "$status" -eq 4 ]
    [[ $output == '{"verdict":"inconclusive","rule":"no-commitment","line":0,'* ]]
    run "$F" fair check --log="$T/p.log" --client-seed=bob
    [ "$status" -eq 3 ]
    [[ ${lines[0]} == "log: client-seed-mismatch: no period of the log has your client seed 'bob'" ]]
    [[ ${lines[-1]} == "DISHONEST: rule 'client-seed-mismatch'"* ]]
}

@test "fair check --my-deals: a deal deleted from the log or changed in it is caught" {
    period 3
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    [ "$(wc -l <"$T/mine")" -eq 3 ]
    run "$F" fair check --log="$T/p.log" --my-deals="$T/mine"
    [ "$status" -eq 4 ] # no commitment: inconclusive (H3)
    c="--commitment=$(cat "$T/c1")"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/mine" "$c"
    [ "$status" -eq 0 ]
    [[ $output == *"what you gave: your commitment is period 1's, your 3 deals are in it, the same" ]]
    # the last deal deleted: the log alone still checks, the player's deals do not
    grep -v '"nonce":2' "$T/p.log" >"$T/cut.log"
    run "$F" fair check --log="$T/cut.log"
    [ "$status" -eq 0 ]
    run "$F" fair check --log="$T/cut.log" --my-deals="$T/mine"
    [ "$status" -eq 3 ]
    [[ $output == *"log: deal-missing: your deal at nonce 2 is not in the period committed at line 1"* ]]
    # a deal the player saw that differs; NONCE<TAB>TSV lines
    printf '1\t%s\n' "$(sed -n 1p "$T/mine")" >"$T/wrong"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/wrong" "$c"
    [ "$status" -eq 3 ]
    [[ $output == *"line 4: deal-differs: nonce 1: the log's deal is not the one you saw"* ]]
    printf '2\t%s\n' "$(sed -n 3p "$T/mine")" >"$T/right"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/right" "$c"
    [ "$status" -eq 0 ]
    # M10: the two deals before nonce 2 were not the player's: said, not judged
    [[ ${lines[0]} == "note: period 1 has 2 deals you did not see (2 before your first, 0 between yours)"* ]]
    printf '0\t%s\n2\t%s\n' "$(sed -n 1p "$T/mine")" "$(sed -n 3p "$T/mine")" >"$T/gap"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/gap" "$c" --format=json
    [ "$status" -eq 0 ]
    [[ $output == *'"player_period":1,"unseen_before":0,"unseen_between":1,'* ]]
    run "$F" fair check --log="$T/p.log" --my-deals="$T/mine" "$c"
    [[ $output != *"note:"* ]]
    # M2: a nonce written with leading zeros is that nonce; one final CR is
    # the line's end, a second is part of the TSV
    printf '002\t%s\r\n' "$(sed -n 3p "$T/mine")" >"$T/zeros"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/zeros" "$c"
    [ "$status" -eq 0 ]
    printf '2\t%s\r\r\n' "$(sed -n 3p "$T/mine")" >"$T/crcr"
    run "$F" fair check --log="$T/p.log" --my-deals="$T/crcr" "$c"
    [ "$status" -eq 3 ]
    [[ $output == *"deal-differs"* ]]
    run "$F" fair check --log="$T/p.log" --my-deals="$T/none"
    [ "$status" -eq 1 ]
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=a --nonce=1 --my-deals="$T/mine"
    [ "$status" -eq 2 ]
}

@test "fair check: an empty log is inconclusive (exit 4), never OK" {
    : >"$T/empty.log"
    run "$F" fair check --log="$T/empty.log"
    [ "$status" -eq 4 ]
    [[ ${lines[-1]} == "INCONCLUSIVE: the log has no deal: nothing was checked (0 periods)" ]]
    "$F" fair commit --server-seed-file="$T/s.hex" --log="$T/c.log" >/dev/null
    run "$F" fair check --log="$T/c.log"
    [ "$status" -eq 4 ]
    [[ $output == *"empty-log"* ]]
}

@test "fair check: every rule of docs/vectors.md's provably-fair rows, by fairshuf and by the reference checker" {
    ref_checker
    run "$PY" "$BATS_TEST_DIRNAME/fair_vectors.py" "$F" "$T/check.py" "$BATS_TEST_DIRNAME/../../docs/vectors.md"
    echo "$output"
    [ "$status" -eq 0 ]
    # every rule slug has a row that names it
    for slug in malformed order nonce client-seed-changed table-changed bad-reveal bad-deal \
        empty-period client-seed-reused recommitted commitment-not-found client-seed-mismatch \
        deal-missing deal-differs empty-log unrevealed; do
        grep -q "| \`$slug\` |" "$BATS_TEST_DIRNAME/../../docs/vectors.md"
        grep -q "\`$slug\`" "$BATS_TEST_DIRNAME/../../docs/provably-fair.md"
    done
    # a negative control: a changed row is caught
    sed 's/| `dishonest` | `nonce` | `4` |/| `dishonest` | `nonce` | `3` |/' \
        "$BATS_TEST_DIRNAME/../../docs/vectors.md" >"$T/v.md"
    ! cmp -s "$T/v.md" "$BATS_TEST_DIRNAME/../../docs/vectors.md"
    run "$PY" "$BATS_TEST_DIRNAME/fair_vectors.py" "$F" "$T/check.py" "$T/v.md"
    [ "$status" -eq 1 ]
}

@test "fair check --log: a fairshuf-pf-1 log still checks; a ground nonce (alice, 138 of 0..200) is dishonest" {
    # The attack on pf-1: the server tries nonces 0..200 for client seed
    # alice and deals the one it likes (138).  Published as it is, the nonce
    # skips; relabelled nonce 0, the deal is not nonce 0's.
    commit=$("$F" fair commit --server-seed-file="$T/g.hex")
    d=$("$F" fair deal --server-seed-file="$T/g.hex" --client-seed=alice --nonce=138 --format=tsv --scheme=fairshuf-pf-1)
    js=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$d")
    rec() { printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":%s,"client_seed":"alice","game":"doudizhu","players":3,"decks":1,"deal":%s}\n' "$1" "$js"; }
    head='{"scheme":"fairshuf-pf-1","event":"commit","commitment":"'$commit'"}'
    tail='{"scheme":"fairshuf-pf-1","event":"reveal","server_seed":"'$(head -c 64 "$T/g.hex")'"}'
    printf '%s\n%s\n%s\n' "$head" "$(rec 138)" "$tail" >"$T/g1.log"
    run "$F" fair check --log="$T/g1.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: nonce: nonce 138 where 0 is due"* ]]
    printf '%s\n%s\n%s\n' "$head" "$(rec 0)" "$tail" >"$T/g2.log"
    run "$F" fair check --log="$T/g2.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: bad-deal: nonce 0: hand 1 is not the one the seeds give"* ]]
    run "$F" fair check --log="$T/g2.log" --format=json
    [ "$status" -eq 3 ]
    [ "$output" = '{"verdict":"dishonest","rule":"bad-deal","line":2,"message":"nonce 0: hand 1 is not the one the seeds give","periods":1,"deals":1,"checked":1,"player_period":0,"unseen_before":0,"unseen_between":0,"findings":[{"line":2,"verdict":"dishonest","rule":"bad-deal","message":"nonce 0: hand 1 is not the one the seeds give"}]}' ]
    # the honest pf-1 period (nonce 0's own deal) passes
    d0=$("$F" fair deal --server-seed-file="$T/g.hex" --client-seed=alice --nonce=0 --format=tsv --scheme=fairshuf-pf-1)
    js=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$d0")
    printf '%s\n%s\n%s\n' "$head" "$(rec 0)" "$tail" >"$T/g3.log"
    run "$F" fair check --log="$T/g3.log" --client-seed=alice --commitment=$commit
    [ "$status" -eq 0 ]
    # a new period may not deal into pf-1: the CLI writes pf-2 only
    printf '%s\n%s\n' "$head" "$(rec 0)" >"$T/g4.log"
    run "$F" fair deal --server-seed-file="$T/g.hex" --log="$T/g4.log"
    [ "$status" -eq 1 ]
    [[ $output == *"is fairshuf-pf-1: new deals go to a fairshuf-pf-2 period"* ]]
    # the pf-1 period rotates into a pf-2 one, and the whole log checks
    "$F" fair rotate --server-seed-file="$T/g.hex" --log="$T/g4.log" --game=bridge >/dev/null
    "$F" fair deal --server-seed-file="$T/g.hex" --log="$T/g4.log" --client-seed=bob >/dev/null
    "$F" fair rotate --server-seed-file="$T/g.hex" --log="$T/g4.log" >/dev/null
    run "$F" fair check --log="$T/g4.log"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 3 periods, 2 deals"* ]]
}

@test "fair check --log: another scheme or a malformed line is dishonest 'malformed' (exit 3), never judged OK" {
    period 1
    sed 's/fairshuf-pf-2/fairshuf-pf-9/' "$T/p.log" >"$T/v9.log"
    run "$F" fair check --log="$T/v9.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 1: malformed: scheme 'fairshuf-pf-9' is not one this fairshuf verifies"* ]]
    head -c -5 "$T/p.log" >"$T/cut.log"
    run "$F" fair check --log="$T/cut.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 3: malformed: not a record of the log"* ]]
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/cut.log"
    [ "$status" -eq 1 ]
    cmp "$T/cut.log" <(head -c -5 "$T/p.log")
}

@test "fair check: log fields are escaped in text output, no terminal escape gets through (M4)" {
    esc='\u001b[2J\u001b[1;1HOK'
    printf '{"scheme":"fairshuf-pf-1","event":"commit","commitment":"%s"}\n' $COMMIT >"$T/e.log"
    printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":0,"client_seed":"a","game":"%s","players":3,"decks":1,"deal":"As"}\n' "$esc" >>"$T/e.log"
    run "$F" fair check --log="$T/e.log"
    [ "$status" -eq 3 ]
    ! printf '%s' "$output" | grep -q "$(printf '\e')"
    [[ $output == *"'\\x1b[2J\\x1b[1;1HOK'"* ]]
    # a client seed with escapes in a pf-1 log (pf-1 allowed them)
    printf '{"scheme":"fairshuf-pf-1","event":"commit","commitment":"%s"}\n' $COMMIT >"$T/e2.log"
    for n in 0 1; do
        printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":0,"client_seed":"%s","game":"bridge","players":4,"decks":1,"deal":"As\\tKs\\tQs\\tJs"}\n' "$esc$n" >>"$T/e2.log"
    done
    run "$F" fair check --log="$T/e2.log"
    [ "$status" -eq 3 ]
    [[ $output == *"client-seed-changed"* ]]
    ! printf '%s' "$output" | grep -q "$(printf '\e')"
    run "$F" fair check --log="$T/e2.log" --format=json
    ! printf '%s' "$output" | grep -q "$(printf '\e')"
}

@test "fair: the client seed's encoding is enforced on the way in (M5)" {
    period 0
    cp "$T/p.log" "$T/p.before"
    for bad in "$(printf 'x\xffy')" "$(printf '\xc0\xaf')" "$(printf 'a\tb')" "$(printf '\x7f')" ""; do
        run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed="$bad"
        [ "$status" -eq 2 ]
        [[ $output == "fairshuf: fair deal: invalid client seed: "* ]]
        run "$F" fair client-seed --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed="$bad"
        [ "$status" -eq 2 ]
        cmp "$T/p.log" "$T/p.before"
    done
    long=$(printf 'x%.0s' $(seq 257))
    run "$F" fair client-seed --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed="$long"
    [ "$status" -eq 2 ]
    [[ $output == *"longer than 256 bytes"* ]]
    # UTF-8 is fine, and the reference checker reads it
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed="é🂡 中" >/dev/null
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$F" fair check --log="$T/p.log" --client-seed="é🂡 中" --commitment="$(cat "$T/c1")"
    [ "$status" -eq 0 ]
    ref_checker
    run "$PY" "$T/check.py" --log "$T/p.log" --client-seed "é🂡 中" --commitment "$(cat "$T/c1")"
    [ "$status" -eq 0 ]
    [ "$output" = "honest - -" ]
    run "$PY" "$T/check.py" --log "$T/p.log" --client-seed "é🂡 中"
    [ "$status" -eq 4 ]
    [ "$output" = "inconclusive no-commitment 0" ]
}

@test "fair commit --log: a failed append leaves no seed file and no log, and prints nothing (M8)" {
    # the seed file exists: nothing is created, no empty log either
    "$F" fair commit --server-seed-file="$T/x.hex" >/dev/null
    run "$F" fair commit --server-seed-file="$T/x.hex" --log="$T/new.log"
    [ "$status" -eq 1 ]
    [ ! -e "$T/new.log" ]
    # the append fails (a file size limit of 512 bytes, the log is longer):
    # the commitment is not printed and its seed file is removed
    period 2
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob >/dev/null
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    # an open period cannot get another commitment: use a closed log
    grep -v "$(tail -1 "$T/p.log")" "$T/p.log" >"$T/q.log"
    cp "$T/q.log" "$T/q.before"
    [ "$(stat -c %s "$T/q.log")" -gt 600 ]
    run bash -c 'trap "" XFSZ; ulimit -f 1; "$1" fair commit --server-seed-file="$2" --log="$3" 2>&1 >"$4"' \
        _ "$F" "$T/y.hex" "$T/q.log" "$T/out"
    [ "$status" -eq 1 ]
    [[ $output == *"cannot append to log"*"removed '$T/y.hex'"* ]]
    [ ! -s "$T/out" ]
    [ ! -e "$T/y.hex" ]
    cmp "$T/q.log" "$T/q.before"
    # deal --log: a failed append changes nothing and shows nothing
    cp "$T/p.log" "$T/p.before"
    run bash -c 'trap "" XFSZ; ulimit -f 1; "$1" fair deal --server-seed-file="$2" --log="$3" --client-seed=carol 2>&1 >"$4"' \
        _ "$F" "$T/s.hex" "$T/p.log" "$T/out"
    [ "$status" -eq 1 ]
    [ ! -s "$T/out" ]
    cmp "$T/p.log" "$T/p.before"
}

@test "fair check: the low items (deal count, unknown game, a trailing newline in a deal)" {
    # the unrevealed message counts the deals, not the next nonce
    printf '{"scheme":"fairshuf-pf-1","event":"commit","commitment":"%s"}\n' $COMMIT >"$T/u.log"
    for n in 0 5; do
        d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=a --nonce=$n --format=tsv --scheme=fairshuf-pf-1)
        printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":%s,"client_seed":"a","game":"doudizhu","players":3,"decks":1,"deal":%s}\n' \
            $n "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$d")" >>"$T/u.log"
    done
    run "$F" fair check --log="$T/u.log"
    [ "$status" -eq 3 ]
    [[ $output == *"its 2 deals are not checked"* ]]
    # an unknown game is named so
    sed '2s/"doudizhu"/"chess"/' "$T/u.log" >"$T/g.log"
    run "$F" fair check --log="$T/g.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: malformed: the deal is not a deal of 'chess' for 3 players, 1 decks: unknown game"* ]]
    [[ $output != *"at byte"* ]]
    # a deal field with a trailing newline is not the deal's TSV
    d=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=a --nonce=0 --format=tsv --scheme=fairshuf-pf-1)
    printf '{"scheme":"fairshuf-pf-1","event":"commit","commitment":"%s"}\n' $COMMIT >"$T/n.log"
    printf '{"scheme":"fairshuf-pf-1","event":"deal","nonce":0,"client_seed":"a","game":"doudizhu","players":3,"decks":1,"deal":%s}\n' \
        "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1] + "\n"))' "$d")" >>"$T/n.log"
    printf '{"scheme":"fairshuf-pf-1","event":"reveal","server_seed":"%s"}\n' $SEED >>"$T/n.log"
    run "$F" fair check --log="$T/n.log"
    [ "$status" -eq 3 ]
    [[ $output == *"line 2: malformed"* ]]
    sed 's/\\n"}/"}/' "$T/n.log" >"$T/n2.log"
    run "$F" fair check --log="$T/n2.log"
    [ "$status" -eq 0 ]
}

@test "fair deal --log: never appends after a forged record (its own seed checks the open period)" {
    period 2
    # the last deal replaced by another deal (its nonce and format intact)
    other=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=1 --game=holdem --format=tsv)
    python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[-1]); r["deal"] = sys.argv[2]
lines[-1] = json.dumps(r, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")' "$T/p.log" "$other"
    cp "$T/p.log" "$T/p.before"
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 4 ] # a player cannot tell before the reveal
    run "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [[ $output == *"line 4: bad-deal: nonce 1"*"breaks the rule 'bad-deal' at line 4: not appending to it"* ]]
    cmp "$T/p.log" "$T/p.before"
    run "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    cmp "$T/p.log" "$T/p.before"
}

@test "fair rotate: killed between the log and the seed file, the surviving seed file is named" {
    period 1
    cp "$T/s.hex" "$T/s.old"
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    # the state a SIGKILL after the append leaves: the log has the new
    # commitment, the new seed is still in its temporary file
    mv "$T/s.hex" "$T/s.hex.Ab12Cd"
    cp "$T/s.old" "$T/s.hex"
    for cmd in deal client-seed rotate; do
        run "$F" fair $cmd --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob
        [ "$status" -eq 1 ]
        [[ $output == *"that one is in '$T/s.hex.Ab12Cd', left by an interrupted 'fair rotate': mv '$T/s.hex.Ab12Cd' '$T/s.hex'"* ]]
    done
    mv "$T/s.hex.Ab12Cd" "$T/s.hex"
    "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" --client-seed=bob >/dev/null
}

@test "fair rotate: a pf-2 period with no deal is not rotated (empty-period)" {
    period 0
    run "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [[ $output == *"the period has no deal yet"*"empty-period"* ]]
    [ "$(wc -l <"$T/p.log")" -eq 1 ]
}

@test "fair deal --log: kill -9 at random moments never leaves a half record" {
    period 1
    for i in $(seq 1 20); do
        "$F" fair deal --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null 2>&1 &
        pid=$!
        sleep "0.00$((RANDOM % 10))"
        kill -9 $pid 2>/dev/null || true
        wait $pid 2>/dev/null || true
        [ "$(tail -c 1 "$T/p.log" | od -An -c | tr -d ' ')" = '\n' ]
        run "$F" fair check --log="$T/p.log"
        [ "$status" -eq 4 ] # honest so far, the period not revealed
    done
    n=$(grep -c '"event":"deal"' "$T/p.log")
    [ "$(grep -o '"nonce":[0-9]*' "$T/p.log" | tail -1)" = "\"nonce\":$((n - 1))" ]
    "$F" fair rotate --server-seed-file="$T/s.hex" --log="$T/p.log" >/dev/null
    run "$F" fair check --log="$T/p.log"
    [ "$status" -eq 0 ]
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

@test "fair check --log: endless input is refused with a clear error, never read into memory (M11)" {
    # /dev/zero: one endless line, refused at 1 MiB
    run timeout 20 "$F" fair check --log=/dev/zero
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: fair check: log '/dev/zero': line 1 is longer than 1 MiB: not a log of fairshuf-pf-2 records (nothing checked)" ]
    # endless short lines: refused at --max-log-size
    run bash -c "yes '{\"scheme\":\"x\"}' | timeout 20 '$F' fair check --log=- --max-log-size=1M"
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: fair check: log '-' is larger than 1048576 bytes (--max-log-size; nothing checked)" ]
    # a 2 MiB line is refused the same way, a line of exactly 1 MiB is read
    # (and judged: not a record)
    head -c 2097152 /dev/zero | tr '\0' ' ' >"$T/huge.log"
    run "$F" fair check --log="$T/huge.log"
    [ "$status" -eq 1 ]
    [[ $output == *"line 1 is longer than 1 MiB"* ]]
    head -c 1048576 /dev/zero | tr '\0' ' ' >"$T/big.log"
    run "$F" fair check --log="$T/big.log"
    [ "$status" -eq 3 ]
    [[ ${lines[-1]} == "DISHONEST: rule 'malformed' broken at line 1"* ]]
    run "$F" fair check --log="$T/big.log" --max-log-size=0
    [ "$status" -eq 2 ]
}

@test "fair rotate: a seed file that is a symbolic link is refused, the link kept (never replaced)" {
    "$F" fair commit --server-seed-file="$T/real.hex" --log="$T/p.log" >/dev/null
    ln -s real.hex "$T/link.hex"
    "$F" fair deal --server-seed-file="$T/link.hex" --log="$T/p.log" --client-seed=x >/dev/null
    cp "$T/p.log" "$T/p.before"
    run "$F" fair rotate --server-seed-file="$T/link.hex" --log="$T/p.log"
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: fair rotate: '$T/link.hex' is a symbolic link: rotate replaces the seed file by renaming a new one over it; give the seed file itself" ]
    [ -L "$T/link.hex" ]
    cmp "$T/p.log" "$T/p.before"
    # the file itself rotates
    run "$F" fair rotate --server-seed-file="$T/real.hex" --log="$T/p.log"
    [ "$status" -eq 0 ]
}

@test "fair deal and check: --nonce=2^64-1 is refused (no period reaches it); 2^64-2 deals" {
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=18446744073709551615
    [ "$status" -eq 2 ]
    [[ $output == "fairshuf: fair deal: invalid nonce: '18446744073709551615': 0 to 2^64-2"* ]]
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=18446744073709551615 --deal=x
    [ "$status" -eq 2 ]
    run "$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=18446744073709551614 --format=tsv
    [ "$status" -eq 0 ]
    # a leading zero is the same nonce
    a=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=07 --format=tsv)
    b=$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=7 --format=tsv)
    [ "$a" = "$b" ]
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=07 --deal="$b"
    [ "$status" -eq 0 ]
}

@test "fair check --deal=MALFORMED: an error naming the byte, nothing leaked (the sanitizer build checks)" {
    run "$F" fair check --server-seed=$SEED --commitment=$COMMIT --client-seed=alice --nonce=7 --deal='As Kx'
    [ "$status" -eq 1 ]
    [[ $output == "fairshuf: fair check: malformed deal at byte 3 ('Kx'): not a card code of this game;"* ]]
}

@test "fair: poker5 for one player (video poker) is dealt, logged and checked honest by fairshuf and the reference checker (M5)" {
    c=$("$F" fair commit --server-seed-file="$T/v.hex" --log="$T/v.log" --game=poker5 --players=1)
    "$F" fair deal --server-seed-file="$T/v.hex" --log="$T/v.log" --client-seed=solo --format=tsv >"$T/v.mine"
    "$F" fair rotate --server-seed-file="$T/v.hex" --log="$T/v.log" >/dev/null
    run "$F" fair check --log="$T/v.log" --commitment="$c" --my-deals="$T/v.mine"
    [ "$status" -eq 0 ]
    ref_checker
    run "$PY" "$T/check.py" --log "$T/v.log" --commitment "$c" --my-deals "$T/v.mine"
    [ "$status" -eq 0 ]
    [ "$output" = "honest - -" ]
    # and the reference deals it as the CLI does
    ref=$("$PY" "$T/check.py" $SEED alice 3 poker5 1 2>/dev/null)
    [ "$ref" = "$("$F" fair deal --server-seed-file="$T/fixed.hex" --client-seed=alice --nonce=3 --game=poker5 --players=1 --format=tsv)" ]
}
