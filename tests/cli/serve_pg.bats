#!/usr/bin/env bats
# fairshuf serve on PostgreSQL (docs/service.md, "Several instances on
# PostgreSQL"): a throwaway cluster (pg.bash) per test.  Three instances deal
# the same tables at once: every table's log is gap-free, the same through
# every instance, honest, and holds every deal answered; the database
# stopped mid-load: every deal answered is in the log and the others are
# answered with a JSON 503 (and /v1/health says the database is
# unreachable); a foreign database, a missing or wrong seed key are refused.
# The kill -9 loop: tests/opt-in/serve_pg_crash.bats (make check-pg-crash).

load serve
load pg

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
    serve_setup
    [ -n "${PGDIR:-}" ] || skip "no PostgreSQL server (initdb, pg_ctl): scripts/setup.sh installs postgresql"
    pg_as "$PG_BINDIR/createdb" -h "$PGDIR" "t$BATS_TEST_NUMBER"
    PGURL=${PGURL/\/\/\/fairshuf?/\/\/\/t$BATS_TEST_NUMBER?}
    openssl rand -hex 32 >"$T/key"
    chmod 600 "$T/key"
    IPIDS=()
    LPIDS=()
}

teardown() {
    local p
    for p in "${LPIDS[@]}" "${IPIDS[@]}"; do
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    serve_teardown
    if [ -n "${SMALL:-}" ]; then # the disk-full test's own cluster
        pg_stop
        umount "$SMALL" 2>/dev/null || true
        rmdir "$SMALL" 2>/dev/null || true
    fi
}

@test "serve on PostgreSQL: three instances deal the same tables at once; each log gap-free, the same through every instance, honest; every deal answered is in it" {
    for n in 1 2 3; do pg_serve $n; done
    URL=${URLS[1]}
    ids=()
    for t in 1 2 3 4; do
        URL=${URLS[$(( t % 3 + 1 ))]}   # any instance opens, any sets the seed
        id=$(new_table doudizhu)
        URL=${URLS[$(( (t + 1) % 3 + 1 ))]}
        [ "$(api POST "/v1/tables/$id/client-seed" "{\"client_seed\":\"pg-$t\"}")" = 200 ]
        ids+=("$id")
    done
    tables=$(IFS=,; echo "${ids[*]}")
    for n in 1 2 3; do
        "$LOAD" --port="${PORTS[n]}" --token-file="$T/token" --tables="$tables" \
            --clients=8 --seconds=2 --record="$T/answers.$n" >"$T/load.$n" 2>&1 &
        LPIDS[n]=$!
    done
    for n in 1 2 3; do wait "${LPIDS[n]}"; cat "$T/load.$n"; done
    LPIDS=()
    for n in 1 2 3; do # no instance failed a batch
        grep -q ' errors=0 ' "$T/load.$n"
    done
    cat "$T/answers.1" "$T/answers.2" "$T/answers.3" >"$T/answers"
    answered=$(wc -l <"$T/answers")
    [ "$answered" -ge 100 ]
    for n in 1 2 3; do # every instance answered deals
        [ "$(wc -l <"$T/answers.$n")" -ge 20 ]
    done
    for id in "${ids[@]}"; do
        URL=${URLS[2]}
        [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
        for n in 1 2 3; do
            curl -sf "${URLS[n]}/v1/tables/$id/log" >"$T/log.$id.$n"
        done
        cmp "$T/log.$id.1" "$T/log.$id.2"
        cmp "$T/log.$id.1" "$T/log.$id.3"
        run "$F" fair check --log="$T/log.$id.1"
        echo "table $id: $output"
        [ "$status" -eq 0 ]
        [[ $output == OK:* ]]
        cat "$T/log.$id.1" >>"$T/all.log"
    done
    run "$PY" "$BATS_TEST_DIRNAME/serve_answers.py" "$T/all.log" "$T/answers" "$answered"
    echo "$output"
    [ "$status" -eq 0 ]
    # recall: part of a log, through any instance
    id=${ids[1]}
    [ "$(api GET "/v1/tables/$id/log?since=5")" = 200 ]
    tail -n +6 "$T/log.$id.1" | cmp - "$T/body"
    [ "$(api GET "/v1/tables/$id/log?last=3")" = 200 ]
    tail -n 3 "$T/log.$id.1" | cmp - "$T/body"
    [ "$(api GET "/v1/tables/999999/log?last=3")" = 404 ]
    # each instance names itself in /metrics and /v1/health
    for n in 1 2 3; do
        curl -sf "${URLS[n]}/metrics" | grep -qx "fairshuf_instance_info{instance_id=\"dealer-$n\"} 1"
        h=$(curl -s "${URLS[n]}/v1/health")
        [ "$(echo "$h" | jget status /dev/stdin)" = ok ]
        [ "$(echo "$h" | jget instance_id /dev/stdin)" = "dealer-$n" ]
        [ "$(echo "$h" | jget database /dev/stdin)" = reachable ]
    done
    # the database's own count agrees with the rows the instances answer
    URL=${URLS[3]}
    [ "$(api GET "/v1/tables/${ids[0]}")" = 200 ]
    [ "$(jget log_lines)" = "$(wc -l <"$T/log.${ids[0]}.1")" ]
}

@test "serve on PostgreSQL: the database stopped mid-load; deals answer 503 JSON meanwhile, every deal answered is in the log, and dealing resumes" {
    pg_serve 1
    pg_serve 2
    URL=${URLS[1]}
    ids=("$(new_table doudizhu pg-a)" "$(new_table holdem pg-b)")
    tables=$(IFS=,; echo "${ids[*]}")
    for n in 1 2; do
        "$LOAD" --port="${PORTS[n]}" --token-file="$T/token" --tables="$tables" \
            --clients=8 --seconds=5 --record="$T/answers.$n" >"$T/load.$n" 2>&1 &
        LPIDS[n]=$!
    done
    sleep 1
    pg_down
    before=$(cat "$T/answers.1" "$T/answers.2" | wc -l)
    st=$(api POST "/v1/tables/${ids[0]}/deals")
    cat "$T/body"
    [ "$st" = 503 ]
    [ "$(jget error.code)" = database_unreachable ]
    st=$(api POST /v1/tables '{"game":"doudizhu"}')
    [ "$st" = 503 ]
    [ "$(api GET "/v1/tables/${ids[0]}/log")" = 503 ]
    [ "$(jget error.code)" = database_unreachable ]
    [ "$(api GET /v1/health)" = 503 ]
    [ "$(jget database)" = unreachable ]
    [ "$(jget instance_id)" = dealer-1 ]
    sleep 1
    mid=$(cat "$T/answers.1" "$T/answers.2" | wc -l)
    pg_up
    for n in 1 2; do wait "${LPIDS[n]}"; cat "$T/load.$n"; done
    LPIDS=()
    cat "$T/answers.1" "$T/answers.2" >"$T/answers"
    answered=$(wc -l <"$T/answers")
    echo "answered: $before before the stop, $mid after a second down, $answered in all"
    [ "$answered" -gt "$mid" ]      # dealing resumed on the same instances
    [ "$(api GET /v1/health)" = 200 ]
    [ "$(jget database)" = reachable ]
    [ "$((mid - before))" -le 16 ]  # at most the deals in flight at the stop
    for id in "${ids[@]}"; do
        [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
        curl -sf "${URLS[2]}/v1/tables/$id/log" >"$T/log.$id"
        run "$F" fair check --log="$T/log.$id"
        echo "table $id: $output"
        [ "$status" -eq 0 ]
        cat "$T/log.$id" >>"$T/all.log"
    done
    run "$PY" "$BATS_TEST_DIRNAME/serve_answers.py" "$T/all.log" "$T/answers" "$answered"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "serve on PostgreSQL: no seed key, an unreachable database, a foreign one, a seed that does not open: refused at start with a message" {
    run "$F" serve --db="$PGURL" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"a PostgreSQL database needs --seed-key-file"* ]]
    # the seeds are sealed in the database; another key cannot open them
    pg_serve 1
    URL=${URLS[1]}
    id=$(new_table doudizhu)
    [ "$(pg_sql "SELECT length(server_seed) FROM fairshuf_tables WHERE id = $id")" = 77 ]
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}"
    openssl rand -hex 32 >"$T/key2"; chmod 600 "$T/key2"
    run "$F" serve --db="$PGURL" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key2"
    [ "$status" -eq 1 ]
    [[ $output == *"table $id: its server seed cannot be used: it is sealed under another key"* ]]
    pg_sql "UPDATE fairshuf_tables SET server_seed = set_byte(server_seed, 40, get_byte(server_seed, 40) # 1)"
    run "$F" serve --db="$PGURL" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"table $id: its server seed cannot be used: it does not open under its key"* ]]
    pg_sql "DROP TABLE fairshuf_log; DROP TABLE fairshuf_tables; DROP TABLE fairshuf_meta"
    run "$F" serve --db="postgresql:///fairshuf?host=$T/nowhere" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"fairshuf: the database: cannot connect to the database"* ]]
    run "$F" serve --db="$PGURL" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key" --instance-id='a b'
    [ "$status" -eq 2 ]
    [[ $output == *"invalid --instance-id 'a b'"* ]]
    pg_sql "CREATE TABLE fairshuf_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO fairshuf_meta VALUES('schema', 'someone-else-7')"
    run "$F" serve --db="$PGURL" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"not a fairshuf serve database of this version (fairshuf_meta's schema is 'someone-else-7'"* ]]
}

@test "serve migrate: a SQLite database copied into PostgreSQL with its ids, logs and seeds; dealing goes on there; running it again copies nothing; a log that differs stops it" {
    start_serve     # SQLite, seeds stored plain (no key)
    a=$(new_table doudizhu mig-a)
    b=$(new_table holdem mig-b)
    for i in 1 2 3; do api POST "/v1/tables/$a/deals" >/dev/null; done
    [ "$(api POST "/v1/tables/$b/deals")" = 200 ]
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"in use by a running fairshuf serve: stop it first"* ]]
    kill "$SPID"; wait "$SPID"; SPID=
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "fairshuf serve migrate: 2 tables copied (8 log lines), 0 already there" ]
    [ "$(pg_sql "SELECT count(*) FROM fairshuf_tables WHERE length(server_seed) = 77")" = 2 ]
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$output" = "fairshuf serve migrate: 0 tables copied (0 log lines), 2 already there" ]
    pg_serve 1
    URL=${URLS[1]}
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(jget nonce)" = 3 ]
    [ "$(api POST "/v1/tables/$a/rotate")" = 200 ]
    c=$(new_table doudizhu)
    [ "$c" -gt "$b" ]
    curl -sf "$URL/v1/tables/$a/log" >"$T/log.a"
    run "$F" fair check --log="$T/log.a"
    echo "$output"
    [ "$status" -eq 0 ]
    # the SQLite file dealt on after the copy: the logs differ, nothing written
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}"
    start_serve
    [ "$(api POST "/v1/tables/$b/deals")" = 200 ]
    kill "$SPID"; wait "$SPID"; SPID=
    before=$(pg_sql "SELECT count(*) FROM fairshuf_log")
    run "$F" serve migrate --from="$DB" --to="$PGURL" --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"table $b is in both databases with different logs"* ]]
    [ "$(pg_sql "SELECT count(*) FROM fairshuf_log")" = "$before" ]
    run "$F" serve migrate --from="$DB" --to="$T/other.db" --seed-key-file="$T/key"
    [ "$status" -eq 2 ]
}

@test "serve on PostgreSQL: the database's disk full answers 507 storage_full JSON, nothing half-written; dealing resumes with the next nonce once space returns" {
    # a cluster of its own on a small tmpfs (root only: skipped otherwise)
    # (outside the test's folder: the cluster's user must reach it)
    SMALL=$(mktemp -d "${TMPDIR:-/tmp}/fs-pgfull.XXXXXX")
    chmod 711 "$SMALL"
    if ! out=$(mount -t tmpfs -o size=96m,mode=711 tmpfs "$SMALL" 2>&1); then
        rmdir "$SMALL"
        SMALL=
        skip "cannot mount a tmpfs here ($out)"
    fi
    local keep_dir=$PGDIR keep_url=$PGURL
    TMPDIR=$SMALL pg_start
    pg_serve 1
    URL=${URLS[1]}
    id=$(new_table doudizhu full-a)
    dd if=/dev/zero of="$SMALL/filler" bs=64k 2>/dev/null || true
    ok=0 st=200
    while [ "$ok" -lt 5000 ]; do
        st=$(api POST "/v1/tables/$id/deals")
        [ "$st" = 200 ] || break
        ok=$((ok + 1))
    done
    cat "$T/body"
    [ "$st" = 507 ]
    [ "$(jget error.code)" = storage_full ]
    rm -f "$SMALL/filler"
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    [ "$(jget nonce)" = "$ok" ]     # the refused deal took no nonce
    [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
    curl -sf "$URL/v1/tables/$id/log" >"$T/log.full"
    run "$F" fair check --log="$T/log.full"
    [ "$status" -eq 0 ]
    kill "${IPIDS[1]}"; wait "${IPIDS[1]}" || true
    IPIDS=()
    pg_stop
    umount "$SMALL"
    rmdir "$SMALL"
    SMALL=
    PGDIR=$keep_dir PGURL=$keep_url
}
