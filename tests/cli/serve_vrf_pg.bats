#!/usr/bin/env bats
# fairshuf serve's fairshuf-vrf-1 tables on PostgreSQL (docs/service.md,
# "Tables of scheme fairshuf-vrf-1"): the flow of serve_vrf.bats on a
# throwaway cluster (pg.bash), two instances dealing one table in turn with
# one killed by kill -9 between deals; a database made before vrf tables;
# serve migrate of vrf tables from SQLite.

load serve
load pg
load serve_vrf

# One cluster for the file (initdb takes seconds); a database per test.
setup_file() {
    pg_bin_dir >/dev/null || return 0
    pg_start
    export PGDIR PGURL PG_BINDIR
}

teardown_file() {
    pg_stop
}

setup() {
    vrf_setup
}

teardown() {
    vrf_teardown
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
    sql "$DB" "UPDATE log SET line = replace(line, '\"hand\":2', '\"hand\":2 ') WHERE table_id = $v AND seq = 3"
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"different logs"* ]]
}

@test "serve migrate refuses an id that would name a pf-2 table in one database and a vrf table in the other, writing nothing" {
    pg_db
    pg_serve 1 --vrf-key-file="$T/d.vrf-key"
    URL=${URLS[1]}
    [ "$(open_vrf)" = 1 ]
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}"; IPIDS=()
    start_serve
    [ "$(new_table holdem alice)" = 1 ]
    kill "$SPID"; wait "$SPID"; SPID=
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"table id 1 would name a fairshuf-pf-2 table and a fairshuf-vrf-1 table: nothing written"* ]]
    [ "$(pg_sql 'SELECT count(*) FROM fairshuf_tables')" = 0 ]
}
