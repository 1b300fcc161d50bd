#!/usr/bin/env bats
# fairshuf serve survives kill -9: 20 times during a load run (16 clients
# on 4 tables, with rotations), the service is killed and restarted on the
# same port; then every table's log checks honest with `fairshuf fair
# check`, nonces are gap-free, and every deal a client was answered is in
# the log, the same.  FS_CRASH_KILLS=N runs N kills instead of 20 (a
# longer soak, not part of make check).

load serve

setup() {
    serve_setup
}

teardown() {
    [ -n "${LPID:-}" ] && kill "$LPID" 2>/dev/null
    serve_teardown
}

@test "kill -9 twenty times (FS_CRASH_KILLS) during a load run: no deal answered is lost, nonces gap-free, every log honest" {
    start_serve
    ids=()
    for t in 1 2 3 4; do
        ids+=("$(new_table doudizhu "player-$t-0")")
    done
    tables=$(IFS=,; echo "${ids[*]}")
    n=${FS_CRASH_KILLS:-20}
    "$LOAD" --port="$PORT" --token-file="$T/token" --tables="$tables" --clients=16 \
        --seconds=$((n * 6 + 60)) --record="$T/answers" >"$T/load.out" 2>&1 &
    LPID=$!
    kills=0
    for i in $(seq 1 "$n"); do
        sleep "0.$((RANDOM % 20 + 5))"
        if [ $((i % 5)) -eq 0 ]; then # a rotation and a new client seed, mid-load
            api POST "/v1/tables/${ids[0]}/rotate" >/dev/null
            api POST "/v1/tables/${ids[0]}/client-seed" "{\"client_seed\":\"player-1-$i\"}" >/dev/null
        fi
        before=$(wc -l <"$T/answers")
        kill -9 "$SPID"
        wait "$SPID" 2>/dev/null || true
        kills=$((kills + 1))
        start_serve     # the same port: the clients reconnect
        echo "kill $i: $before answers before it"
    done
    sleep 0.3
    kill -TERM "$LPID"
    wait "$LPID"
    LPID=
    cat "$T/load.out"
    [ "$kills" -eq "$n" ]
    answered=$(wc -l <"$T/answers")
    [ "$answered" -ge 200 ]
    for id in "${ids[@]}"; do
        st=$(api POST "/v1/tables/$id/rotate")
        [ "$st" = 200 ] || [ "$(jget error.code)" = no_deal ]
        get_log "$id"
        run "$F" fair check --log="$T/log.$id"
        echo "table $id: $output"
        [ "$status" -eq 0 ]
        cat "$T/log.$id" >>"$T/all.log"
    done
    run "$PY" "$BATS_TEST_DIRNAME/serve_answers.py" "$T/all.log" "$T/answers" "$answered"
    echo "$output"
    [ "$status" -eq 0 ]
}
