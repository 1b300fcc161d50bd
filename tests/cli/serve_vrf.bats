#!/usr/bin/env bats
# fairshuf serve's fairshuf-vrf-1 tables (docs/service.md, "Tables of
# scheme fairshuf-vrf-1"): the VRF key file's rules; a table's life on
# SQLite and on PostgreSQL (the table record in the open's answer, the
# players' seeds checked against their commitments, hands 0, 1, 2, ...
# each answered with its record, which `fair check --public-key --record`
# calls honest at once); the exported log honest with every answered hand,
# tampered copies dishonest; every bad input a JSON error; kill -9 during
# a load run, the log still honest with every answered hand in it; an
# existing pf-2 database opens unchanged.

load serve
load pg

setup_file() {
    pg_bin_dir >/dev/null || return 0
    pg_start
    export PGDIR PGURL PG_BINDIR
}

teardown_file() {
    pg_stop
}

setup() {
    serve_setup
    "$F" fair vrf-keygen --key-file="$T/d.vrf-key" >"$T/pk"
    PK=$(cat "$T/pk")
    C_ALICE=$(printf %s alice | sha256sum | cut -c1-64)
    C_BOB=$(printf %s bob | sha256sum | cut -c1-64)
    IPIDS=()
    LPID=
}

teardown() {
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

@test "serve --help names --vrf-key-file; the key file is refused when open to others, a symlink, missing or not a key; without a key vrf tables are refused (409 no_vrf_key) and GET /v1/vrf-key is 404" {
    run "$F" serve --help
    [ "$status" -eq 0 ]
    [[ $output == *"--vrf-key-file=F"* ]]
    [[ $output == *"GET /v1/vrf-key"* ]]
    [[ $output == *"client-seeds"* ]]
    chmod 640 "$T/d.vrf-key"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --vrf-key-file="$T/d.vrf-key"
    [ "$status" -eq 1 ]
    [[ $output == *"open to its group or others (chmod 600)"* ]]
    chmod 600 "$T/d.vrf-key"
    ln -s "$T/d.vrf-key" "$T/link.vrf-key"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --vrf-key-file="$T/link.vrf-key"
    [ "$status" -eq 1 ]
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --vrf-key-file="$T/none"
    [ "$status" -eq 1 ]
    [[ $output == *"No such file"* ]]
    head -c 63 "$T/d.vrf-key" >"$T/short.vrf-key"
    chmod 600 "$T/short.vrf-key"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --vrf-key-file="$T/short.vrf-key"
    [ "$status" -eq 1 ]
    [[ $output == *"the VRF key must be 64 hex digits on the first line"* ]]
    start_serve
    [ "$(curl -s -o "$T/body" -w '%{http_code}' "$URL/v1/vrf-key")" = 404 ]
    [ "$(jget error.code)" = no_vrf_key ]
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":[\"$C_ALICE\"]}"
    code_is 409 no_vrf_key
    [ "$(api POST /v1/tables '{"game":"holdem"}')" = 201 ]   # pf-2 tables as before
}

@test "a vrf table on SQLite: the table record, seeds checked against their commitments, five hands each answered with its record (honest alone, = its log line), the log honest, tampered copies dishonest; pf-2 tables beside it keep their own ids and logs" {
    start_serve --vrf-key-file="$T/d.vrf-key"
    vrf_flow
    [ "$ID" = 1 ]   # a fresh database: the vrf table takes id 1 ...
    pf=$(new_table holdem carol)
    [ "$pf" = 2 ]   # ... and the next pf-2 table the next one
    [ "$(api POST "/v1/tables/$pf/deals")" = 200 ]
    [ "$(jget nonce)" = 0 ]
    id2=$(open_vrf)
    [ "$id2" = 3 ]
    get_log "$pf"
    run "$F" fair check --log="$T/log.$pf" --commitment="$(head -1 "$T/log.$pf" | jq -r .commitment)" --client-seed=carol
    [ "$status" -eq 4 ] || [ "$status" -eq 0 ]   # unrevealed: inconclusive, never dishonest
    # the table names differ (never one name twice with one key)
    [ "$(api GET "/v1/tables/$ID")" = 200 ]; n1=$(jget name)
    [ "$(api GET "/v1/tables/$id2")" = 200 ]; n2=$(jget name)
    [[ $n1 =~ ^t1-[0-9a-f]{16}$ ]]
    [ "$n1" != "$n2" ]
    # a restart with another key: the table cannot be dealt; without a key: refused
    kill "$SPID"; wait "$SPID"; SPID=
    start_serve --vrf-key-file="$T/other.vrf-key"
    call POST "/v1/tables/$ID/deals"
    code_is 409 vrf_key_changed
    kill "$SPID"; wait "$SPID"; SPID=
    start_serve
    call POST "/v1/tables/$ID/deals"
    code_is 409 no_vrf_key
    [ "$(api GET "/v1/tables/$ID/log")" = 200 ]   # the log stays public
    cmp "$T/body" "$T/log.$ID"
}

@test "a vrf table: every bad input is a JSON error and writes nothing (scheme, commitments, seeds, unknown table, a pf-2 route on a vrf table and the reverse)" {
    start_serve --vrf-key-file="$T/d.vrf-key"
    call POST /v1/tables '{"scheme":"fairshuf-vrf-2","game":"holdem"}'
    code_is 400 bad_scheme
    call POST /v1/tables '{"scheme":7,"game":"holdem"}'
    code_is 400 bad_scheme
    call POST /v1/tables '{"scheme":"fairshuf-vrf-1","game":"holdem"}'
    code_is 400 bad_commitments
    call POST /v1/tables '{"scheme":"fairshuf-vrf-1","game":"holdem","commitments":[]}'
    code_is 400 bad_commitments
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":\"$C_ALICE\"}"
    code_is 400 bad_commitments
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":[\"${C_ALICE:1}\"]}"
    code_is 400 bad_commitments
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":[\"${C_ALICE:1}g\"]}"
    code_is 400 bad_commitments
    many=$(for i in $(seq 11); do printf '"%s",' "$C_ALICE"; done)
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":[${many%,}]}"
    code_is 400 bad_commitments
    call POST /v1/tables "{\"game\":\"holdem\",\"commitments\":[\"$C_ALICE\"]}"
    code_is 400 unknown_field
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"nogame\",\"commitments\":[\"$C_ALICE\"]}"
    code_is 400 bad_game
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"players\":99,\"commitments\":[\"$C_ALICE\"]}"
    code_is 400 bad_players
    call POST /v1/tables "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"commitments\":[\"$C_ALICE\"],\"client_seeds\":[\"alice\"]}"
    code_is 400 unknown_field
    [ "$(api GET /v1/tables/1)" = 404 ]   # nothing was opened
    id=$(open_vrf)
    for body in '{}' '{"client_seeds":"alice"}' '{"client_seeds":[]}' '{"client_seeds":["alice"]}' \
        '{"client_seeds":["alice","bob","carol"]}' '{"client_seeds":["alice",""]}' \
        '{"client_seeds":["alice","b\tob"]}' '{"client_seeds":["alice",7]}'; do
        call POST "/v1/tables/$id/client-seeds" "$body"
        code_is 400 bad_client_seeds
    done
    call POST "/v1/tables/$id/client-seeds" '{"client_seeds":["alice","bob"],"x":1}'
    code_is 400 unknown_field
    call POST "/v1/tables/$id/client-seeds" 'nope'
    code_is 400 bad_json
    call POST "/v1/tables/$id/client-seed" '{"client_seed":"alice"}'
    code_is 409 wrong_scheme
    [ "$(api POST "/v1/tables/$id/client-seeds" '{"client_seeds":["alice","bob"]}')" = 200 ]
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    call POST "/v1/tables/$id/rotate"
    code_is 409 wrong_scheme
    call POST "/v1/tables/$id/deals" '{"hand":7}'
    code_is 400 unknown_field
    pf=$(new_table holdem)
    call POST "/v1/tables/$pf/client-seeds" '{"client_seeds":["alice"]}'
    code_is 409 wrong_scheme
    call POST /v1/tables/999/client-seeds '{"client_seeds":["alice"]}'
    code_is 404 unknown_table
    call POST /v1/tables/999/deals
    code_is 404 unknown_table
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST -d '{"client_seeds":["alice","bob"]}' "$URL/v1/tables/$id/client-seeds")" = 401 ]
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST "$URL/v1/vrf-key")" = 405 ]
    # nothing but the open and the one hand was written
    get_log "$id"
    [ "$(wc -l <"$T/log.$id")" -eq 2 ]
    run "$F" fair check --log="$T/log.$id" --public-key="$PK"
    [ "$status" -eq 0 ]
}

@test "a vrf table survives kill -9 during a load run: restarted six times, the log honest, hands gap-free, every answered hand in it once" {
    start_serve --vrf-key-file="$T/d.vrf-key"
    ids=()
    for t in 1 2; do
        id=$(open_vrf)
        [ "$(api POST "/v1/tables/$id/client-seeds" '{"client_seeds":["alice","bob"]}')" = 200 ]
        ids+=("$id")
    done
    "$LOAD" --port="$PORT" --token-file="$T/token" --tables="${ids[0]},${ids[1]}" --clients=4 \
        --seconds=60 --record="$T/answers" >"$T/load.out" 2>&1 &
    LPID=$!
    for i in 1 2 3 4 5 6; do
        sleep "0.$((RANDOM % 30 + 20))"
        kill -9 "$SPID"
        wait "$SPID" 2>/dev/null || true
        start_serve --vrf-key-file="$T/d.vrf-key" --sync=normal
    done
    sleep 0.3
    kill "$LPID"
    wait "$LPID" || true
    LPID=
    cat "$T/load.out"
    : >"$T/all.log"
    for id in "${ids[@]}"; do
        get_log "$id"
        run "$F" fair check --log="$T/log.$id" --public-key="$PK"
        echo "table $id: $output"
        [ "$status" -eq 0 ]
        cat "$T/log.$id" >>"$T/all.log"
    done
    run "$PY" "$BATS_TEST_DIRNAME/serve_vrf_answers.py" "$T/all.log" "$T/answers" 20
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "an existing pf-2 database (made before vrf tables) opens unchanged: its tables, ids and logs as they were, dealing goes on; vrf tables take new ids" {
    start_serve
    a=$(new_table holdem alice)
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    b=$(new_table doudizhu)
    kill "$SPID"; wait "$SPID"; SPID=
    # the schema of a database made before vrf tables
    sqlite3 "$DB" 'DROP TABLE vrf_tables'
    sqlite3 "$DB" .dump | grep -v '^INSERT INTO sqlite_stat' >"$T/before.sql"
    start_serve --vrf-key-file="$T/d.vrf-key"
    kill "$SPID"; wait "$SPID"; SPID=
    sqlite3 "$DB" .dump | grep -v 'vrf_tables' >"$T/after.sql"
    diff "$T/before.sql" "$T/after.sql"   # only vrf_tables was added
    start_serve --vrf-key-file="$T/d.vrf-key"
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(jget nonce)" = 1 ]
    v=$(open_vrf)
    [ "$v" = 3 ]
    c=$(new_table holdem)
    [ "$c" = 4 ]
    [ "$(api POST "/v1/tables/$a/rotate")" = 200 ]
    get_log "$a"
    run "$F" fair check --log="$T/log.$a"
    [ "$status" -eq 0 ]
}

@test "a vrf table on PostgreSQL: the same flow; two instances deal it in turn, one killed with kill -9 between deals; the log the same through both, honest, every answered hand in it" {
    pg_db
    pg_serve 1 --vrf-key-file="$T/d.vrf-key"
    pg_serve 2 --vrf-key-file="$T/d.vrf-key"
    URL=${URLS[1]}
    pf=$(new_table holdem carol)   # a pf-2 table first: ids are shared
    vrf_flow
    [ "$ID" = $((pf + 1)) ]
    [ "$(new_table holdem)" = $((pf + 2)) ]
    for n in 5 6 7 8 9 10; do
        k=$(( n % 2 + 1 ))
        URL=${URLS[k]}
        [ "$(api POST "/v1/tables/$ID/deals")" = 200 ]
        [ "$(jget hand)" = "$n" ]
        cat "$T/body" >>"$T/answers"
        if [ "$n" = 7 ]; then
            kill -9 "${IPIDS[1]}"; wait "${IPIDS[1]}" 2>/dev/null || true
            pg_serve 1 --vrf-key-file="$T/d.vrf-key"
        fi
    done
    curl -sf "${URLS[1]}/v1/tables/$ID/log" >"$T/log.1"
    curl -sf "${URLS[2]}/v1/tables/$ID/log" >"$T/log.2"
    cmp "$T/log.1" "$T/log.2"
    [ "$(wc -l <"$T/log.1")" -eq 12 ]
    run "$F" fair check --log="$T/log.1" --public-key="$PK"
    echo "$output"
    [ "$status" -eq 0 ]
    run "$PY" "$BATS_TEST_DIRNAME/serve_vrf_answers.py" "$T/log.1" "$T/answers" 11
    echo "$output"
    [ "$status" -eq 0 ]
    URL=${URLS[2]}
    call POST "/v1/tables/$ID/rotate"
    code_is 409 wrong_scheme
    call POST "/v1/tables/$pf/client-seeds" '{"client_seeds":["carol"]}'
    code_is 409 wrong_scheme
    [ "$(api GET "/v1/tables/$ID")" = 200 ]
    [ "$(jget next_hand)" = 11 ]
}

@test "an existing pf-2 PostgreSQL database (made before vrf tables) opens unchanged and gains the vrf tables" {
    pg_db
    pg_serve 1
    URL=${URLS[1]}
    a=$(new_table holdem alice)
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}"
    pg_sql 'DROP TABLE fairshuf_vrf_log; DROP TABLE fairshuf_vrf_tables'
    pg_sql 'SELECT id, lines, next_nonce FROM fairshuf_tables ORDER BY id' >"$T/before"
    pg_serve 1 --vrf-key-file="$T/d.vrf-key"
    pg_sql 'SELECT id, lines, next_nonce FROM fairshuf_tables ORDER BY id' | cmp - "$T/before"
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(jget nonce)" = 1 ]
    v=$(open_vrf)
    [ "$v" = $((a + 1)) ]
    [ "$(pg_sql 'SELECT count(*) FROM fairshuf_vrf_tables')" = 1 ]
}

@test "serve migrate copies vrf tables into PostgreSQL with their ids and logs; dealing goes on there with the next hand; a second run copies nothing" {
    pg_db
    start_serve --vrf-key-file="$T/d.vrf-key"
    pf=$(new_table holdem carol)
    [ "$(api POST "/v1/tables/$pf/deals")" = 200 ]
    v=$(open_vrf)
    [ "$(api POST "/v1/tables/$v/client-seeds" '{"client_seeds":["alice","bob"]}')" = 200 ]
    for n in 0 1 2; do [ "$(api POST "/v1/tables/$v/deals")" = 200 ]; done
    get_log "$v"
    kill "$SPID"; wait "$SPID"; SPID=
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "fairshuf serve migrate: 2 tables copied (7 log lines), 0 already there" ]
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$output" = "fairshuf serve migrate: 0 tables copied (0 log lines), 2 already there" ]
    pg_serve 1 --vrf-key-file="$T/d.vrf-key"
    URL=${URLS[1]}
    curl -sf "$URL/v1/tables/$v/log" | cmp - "$T/log.$v"
    [ "$(api POST "/v1/tables/$v/deals")" = 200 ]
    [ "$(jget hand)" = 3 ]
    [ "$(new_table holdem)" = 3 ]   # after the copied ids
    curl -sf "$URL/v1/tables/$v/log" >"$T/pg.log"
    run "$F" fair check --log="$T/pg.log" --public-key="$PK"
    [ "$status" -eq 0 ]
    [[ $output == "OK: 1 table, 4 hands"* ]]
    # a vrf table whose log differs between the two stops the run
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}"; IPIDS=()
    sqlite3 "$DB" "UPDATE log SET line = replace(line, '\"hand\":2', '\"hand\":2 ') WHERE table_id = $v AND seq = 3"
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"different logs"* ]]
}

@test "a vrf table on a full disk (small tmpfs): 507 JSON, and once space returns the next hand is the one after the last durable hand: no gap, the log honest, every answered hand in it" {
    SMALL="$T/small"
    mkdir "$SMALL"
    if ! out=$(mount -t tmpfs -o size=1m tmpfs "$SMALL" 2>&1); then
        SMALL=
        skip "mount -t tmpfs refused here ($out): needs root in a system that allows mounts"
    fi
    DB="$SMALL/tables.db"
    start_serve --vrf-key-file="$T/d.vrf-key"
    id=$(open_vrf)
    [ "$(api POST "/v1/tables/$id/client-seeds" '{"client_seeds":["alice","bob"]}')" = 200 ]
    dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null || true
    truncate -s -96K "$SMALL/filler"
    run "$LOAD" --port="$PORT" --token-file="$T/token" --tables="$id" --clients=4 \
        --deals=2000 --seconds=60 --record="$T/answers"
    echo "$output"
    [[ ! $output == *"deals=0 "* ]]     # some hands were dealt,
    [[ ! $output == *"errors=0 "* ]]    # then some were refused
    call POST "/v1/tables/$id/deals"
    code_is 507 storage_full
    rm -f "$SMALL/filler"
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    n=$(jget hand)
    cat "$T/body" >>"$T/answers"
    get_log "$id"
    [ "$(wc -l <"$T/log.$id")" -eq $((n + 2)) ]   # the table, hands 0..n: no gap
    run "$F" fair check --log="$T/log.$id" --public-key="$PK"
    echo "$output"
    [ "$status" -eq 0 ]
    run "$PY" "$BATS_TEST_DIRNAME/serve_vrf_answers.py" "$T/log.$id" "$T/answers" $((n + 1))
    echo "$output"
    [ "$status" -eq 0 ]
}
