#!/usr/bin/env bats
# The crash loop of fairshuf serve on PostgreSQL (make check-pg-crash;
# opt-in, about two minutes): three instances on one database, a load
# client on each (8 clients, 8 tables shared by all), and FS_CRASH_KILLS
# times (default 20) a random instance is killed with kill -9 under load
# and started again on its port.  Afterwards every table's log is
# gap-free, the same through every instance, honest by `fairshuf fair
# check`, and every deal a client was answered is in it.

load ../cli/serve
load ../cli/pg

setup() {
    serve_setup
    pg_bin_dir >/dev/null || skip "no PostgreSQL server: scripts/setup.sh installs postgresql"
    pg_start
    openssl rand -hex 32 >"$T/key"
    chmod 600 "$T/key"
    IPIDS=() LPIDS=() PORTS=(0 0 0 0)
}

teardown() {
    local p
    for p in "${LPIDS[@]}" "${IPIDS[@]}"; do
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    pg_stop
}

@test "serve on PostgreSQL: kill -9 any of three instances under load, FS_CRASH_KILLS times (20): every log gap-free, identical, honest; every answered deal in it" {
    for n in 1 2 3; do pg_serve $n; done
    URL="http://127.0.0.1:${PORTS[1]}"
    ids=()
    for t in $(seq 1 8); do ids+=("$(new_table doudizhu "crash-$t")"); done
    tables=$(IFS=,; echo "${ids[*]}")
    kills=${FS_CRASH_KILLS:-20}
    for n in 1 2 3; do
        "$LOAD" --port="${PORTS[n]}" --token-file="$T/token" --tables="$tables" \
            --clients=8 --seconds=$((kills + 30)) --record="$T/answers.$n" \
            >"$T/load.$n" 2>&1 &
        LPIDS[n]=$!
    done
    for i in $(seq 1 "$kills"); do
        sleep "0.$((RANDOM % 50 + 20))"
        n=$((RANDOM % 3 + 1))
        before=$(cat "$T"/answers.* | wc -l)
        kill -9 "${IPIDS[n]}"
        wait "${IPIDS[n]}" 2>/dev/null || true
        pg_serve "$n"
        echo "# kill $i: instance $n, $before deals answered before it" >&3
    done
    sleep 0.5
    for n in 1 2 3; do kill -TERM "${LPIDS[n]}"; done
    for n in 1 2 3; do wait "${LPIDS[n]}"; cat "$T/load.$n"; done
    LPIDS=()
    cat "$T/answers.1" "$T/answers.2" "$T/answers.3" >"$T/answers"
    answered=$(wc -l <"$T/answers")
    echo "answered: $answered"
    [ "$answered" -ge 500 ]
    for id in "${ids[@]}"; do
        [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
        for n in 1 2 3; do
            curl -sf "http://127.0.0.1:${PORTS[n]}/v1/tables/$id/log" >"$T/log.$id.$n"
        done
        cmp "$T/log.$id.1" "$T/log.$id.2"
        cmp "$T/log.$id.1" "$T/log.$id.3"
        run "$F" fair check --log="$T/log.$id.1"
        echo "table $id: $output"
        [ "$status" -eq 0 ]
        cat "$T/log.$id.1" >>"$T/all.log"
    done
    run "$PY" "$BATS_TEST_DIRNAME/../cli/serve_answers.py" "$T/all.log" "$T/answers" "$answered"
    echo "# $output" >&3
    [ "$status" -eq 0 ]
}
