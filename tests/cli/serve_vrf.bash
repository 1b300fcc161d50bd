# serve_vrf.bash -- helpers of the fairshuf-vrf-1 service tests
# (serve_vrf.bats on SQLite, serve_vrf_pg.bats on PostgreSQL): a VRF key
# and two players' commitments, calls that expect a JSON error, and the
# whole flow of a vrf table (vrf_flow) on the service at $URL.

vrf_setup() {
    serve_setup
    "$F" fair vrf-keygen --key-file="$T/d.vrf-key" >"$T/pk"
    PK=$(cat "$T/pk")
    C_ALICE=$(printf %s alice | sha256sum | cut -c1-64)
    C_BOB=$(printf %s bob | sha256sum | cut -c1-64)
    IPIDS=()
    LPID=
}

vrf_teardown() {
    local p
    for p in "$LPID" "${IPIDS[@]}"; do
        [ -n "$p" ] || continue
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    serve_teardown
}

# pg_db: a database of this test in the file's cluster (skips without one).
pg_db() {
    [ -n "${PGDIR:-}" ] || skip "no PostgreSQL server (initdb, pg_ctl): scripts/setup.sh installs postgresql"
    pg_as "$PG_BINDIR/createdb" -h "$PGDIR" "v$BATS_TEST_NUMBER"
    PGURL=${PGURL/\/\/\/fairshuf?/\/\/\/v$BATS_TEST_NUMBER?}
    openssl rand -hex 32 >"$T/key"
    chmod 600 "$T/key"
}

# open_vrf [GAME]: a vrf table for alice and bob (holdem, 2 players);
# prints its id.  The answer is in $T/body.
open_vrf() {
    [ "$(api POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"${1:-holdem}\",\"players\":2,\"commitments\":[\"$C_ALICE\",\"$C_BOB\"]}")" = 201 ] || {
        cat "$T/body"
        return 1
    }
    jget table
}

# record_of [FILE]: the record of an answer exactly as the service wrote it.
record_of() {
    "$PY" -c '
import sys
a = open(sys.argv[1], encoding="utf-8").read().rstrip("\n")
k = ",\"record\":"
print(a[a.index(k) + len(k):-1])' "${1:-$T/body}"
}

# code_is STATUS CODE: the last answer was a JSON error with that status.
code_is() {
    [ "$status_" = "$1" ] && [ "$(jget error.code)" = "$2" ] || {
        echo "expected $1 $2, got $status_: $(cat "$T/body")"
        return 1
    }
}
call() {
    status_=$(api "$@")
}

# vrf_flow: the flow on the service at $URL: the open's answer carries the
# table record (= log line 1), seeds, five hands answered with their
# records (each honest alone, each = its log line), the log honest,
# tampered copies dishonest.  Sets ID.
vrf_flow() {
    [ "$(curl -s -o "$T/body" -w '%{http_code}' "$URL/v1/vrf-key")" = 200 ]
    [ "$(jget public_key)" = "$PK" ]
    ID=$(open_vrf)
    [ "$(jget scheme)" = fairshuf-vrf-1 ]
    [ "$(jget next_hand)" = 0 ]
    [ "$(jget client_seeds)" = None ]
    record_of >"$T/table.rec"
    [[ $(cat "$T/table.rec") == '{"scheme":"fairshuf-vrf-1","event":"table","public_key":"'"$PK"'",'* ]]
    [[ $(cat "$T/table.rec") == *"\"commitments\":\"$C_ALICE $C_BOB\""* ]]
    call POST "/v1/tables/$ID/deals"
    code_is 409 client_seeds_required
    call POST "/v1/tables/$ID/client-seeds" '{"client_seeds":["alice","bobby"]}'
    code_is 400 seed_not_committed
    call POST "/v1/tables/$ID/client-seeds" '{"client_seeds":["bob","alice"]}'
    code_is 400 seed_not_committed
    [ "$(api POST "/v1/tables/$ID/client-seeds" '{"client_seeds":["alice","bob"]}')" = 200 ]
    [ "$(jget client_seeds)" = "['alice', 'bob']" ]
    call POST "/v1/tables/$ID/client-seeds" '{"client_seeds":["alice","bob"]}'
    code_is 409 client_seeds_already_set
    for n in 0 1 2 3 4; do
        [ "$(api POST "/v1/tables/$ID/deals")" = 200 ]
        [ "$(jget hand)" = "$n" ]
        [ "$(jget next_hand)" = "$((n + 1))" ]
        record_of >"$T/hand.$n"
        # the player checks the hand at once, with the public key alone
        run "$F" fair check --public-key="$PK" --record="$(cat "$T/hand.$n")"
        [ "$status" -eq 0 ]
        [[ $output == OK:* ]]
        cat "$T/body" >>"$T/answers"
    done
    [ "$(api GET "/v1/tables/$ID")" = 200 ]
    [ "$(jget next_hand)" = 5 ]
    [ "$(jget log_lines)" = 6 ]
    get_log "$ID"
    [ "$(wc -l <"$T/log.$ID")" -eq 6 ]
    sed -n 1p "$T/log.$ID" | cmp - "$T/table.rec"
    for n in 0 1 2 3 4; do sed -n "$((n + 2))p" "$T/log.$ID" | cmp - "$T/hand.$n"; done
    run "$F" fair check --log="$T/log.$ID" --public-key="$PK"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 1 table, 5 hands"* ]]
    run "$PY" "$BATS_TEST_DIRNAME/serve_vrf_answers.py" "$T/log.$ID" "$T/answers" 5
    [ "$status" -eq 0 ]
    # recall works for a vrf table too
    [ "$(api GET "/v1/tables/$ID/log?last=2")" = 200 ]
    tail -n 2 "$T/log.$ID" | cmp - "$T/body"
    [ "$(api GET "/v1/tables/$ID/log?since=4")" = 200 ]
    tail -n +5 "$T/log.$ID" | cmp - "$T/body"
    # tampered exports: another card, a hand dropped, another key
    "$PY" -c '
import json, sys
l = open(sys.argv[1], encoding="utf-8").read().split("\n")
r = json.loads(l[2])
first, rest = r["deal"].split("\t", 1)   # the hole cards swapped
a, b = first.split(" ")
r["deal"] = b + " " + a + "\t" + rest
l[2] = json.dumps(r, separators=(",", ":"), ensure_ascii=False)
open(sys.argv[1] + ".bad", "w", encoding="utf-8").write("\n".join(l))' "$T/log.$ID"
    mv "$T/log.$ID.bad" "$T/bad1"
    run "$F" fair check --log="$T/bad1" --public-key="$PK"
    echo "$output"
    [ "$status" -eq 3 ]
    [[ $output == *bad-deal* ]]
    sed 3d "$T/log.$ID" >"$T/bad2"
    run "$F" fair check --log="$T/bad2" --public-key="$PK"
    [ "$status" -eq 3 ]
    [[ $output == *hand-number* ]]
    other=$("$F" fair vrf-keygen --key-file="$T/other.vrf-key")
    run "$F" fair check --log="$T/log.$ID" --public-key="$other"
    [ "$status" -eq 3 ]
    [[ $output == *other-key* ]]
}

# SQL on an SQLite file ($1) through Python's sqlite3 module (the sqlite3
# shell is not a test need): sql DB STATEMENT; sql_dump DB prints its dump.
sql() {
    "$PY" -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$1" "$2"
}
sql_dump() {
    "$PY" -c 'import sqlite3, sys
for l in sqlite3.connect(sys.argv[1]).iterdump(): print(l)' "$1"
}
