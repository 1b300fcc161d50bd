#!/usr/bin/env bats
# fairshuf serve's fairshuf-vrf-1 tables on SQLite (docs/service.md,
# "Tables of scheme fairshuf-vrf-1"): the VRF key file's rules; a table's
# life (the table record in the open's answer, the players' seeds checked
# against their commitments, hands 0, 1, 2, ... each answered with its
# record, which `fair check --public-key --record` calls honest at once);
# the exported log honest with every answered hand, tampered copies
# dishonest; every bad input a JSON error; kill -9 during a load run and a
# full disk, the log still honest with every answered hand in it and no
# gap; an existing pf-2 database opens unchanged.  PostgreSQL:
# serve_vrf_pg.bats.

load serve
load serve_vrf

setup() {
    vrf_setup
}

teardown() {
    vrf_teardown
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
    run "$F" fair check --log="$T/log.$pf" --commitment="$("$PY" -c 'import json, sys; print(json.loads(sys.stdin.readline())["commitment"])' < "$T/log.$pf")" --client-seed=carol
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
    sql "$DB" 'DROP TABLE vrf_tables'
    sql_dump "$DB" | grep -v '^INSERT INTO "sqlite_stat' >"$T/before.sql"
    start_serve --vrf-key-file="$T/d.vrf-key"
    kill "$SPID"; wait "$SPID"; SPID=
    sql_dump "$DB" | grep -v 'vrf_tables' >"$T/after.sql"
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
