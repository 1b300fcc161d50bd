#!/usr/bin/env bats
# fairshuf serve for operators (docs/service.md, "Operating several
# instances"): --instance-id in /metrics and /v1/health, the health of the
# database, recall of part of a log (?since=L, ?last=N) on SQLite.  (The
# same on PostgreSQL: serve_pg.bats.)

load serve

setup() {
    serve_setup
}

teardown() {
    serve_teardown
}

@test "serve: /v1/health names the instance and its database; /metrics has fairshuf_instance_info" {
    start_serve --instance-id=table-room-7
    h=$(curl -s "$URL/v1/health")
    [ "$(echo "$h" | jget status /dev/stdin)" = ok ]
    [ "$(echo "$h" | jget instance_id /dev/stdin)" = table-room-7 ]
    [ "$(echo "$h" | jget database /dev/stdin)" = reachable ]
    curl -sf "$URL/metrics" | grep -qx 'fairshuf_instance_info{instance_id="table-room-7"} 1'
    grep -q "instance table-room-7 listening on" "$T/serve.out"
    kill "$SPID"; wait "$SPID"; SPID=
    start_serve     # the default: the host's name
    [ "$(curl -s "$URL/v1/health" | jget instance_id /dev/stdin)" = "$(hostname)" ]
}

@test "serve: GET /v1/tables/ID/log?since=L and ?last=N recall part of the log, chained to the part before it" {
    start_serve
    id=$(new_table doudizhu recall-a)
    for i in 1 2 3 4; do [ "$(api POST "/v1/tables/$id/deals")" = 200 ]; done
    get_log "$id"
    [ "$(wc -l <"$T/log.$id")" -eq 6 ]
    [ "$(api GET "/v1/tables/$id/log?since=2")" = 200 ]
    tail -n 4 "$T/log.$id" | cmp - "$T/body"
    [ "$(api GET "/v1/tables/$id/log?last=2")" = 200 ]
    tail -n 2 "$T/log.$id" | cmp - "$T/body"
    [ "$(api GET "/v1/tables/$id/log?last=100")" = 200 ]
    cmp "$T/log.$id" "$T/body"
    [ "$(api GET "/v1/tables/$id/log?since=6")" = 200 ]
    [ ! -s "$T/body" ]
    [ "$(api GET "/v1/tables/$id/log?since=0")" = 200 ]
    cmp "$T/log.$id" "$T/body"
    # the recalled part links to the line before it (fairshuf/chain.h)
    api GET "/v1/tables/$id/log?since=3" >/dev/null
    prev=$(head -n 1 "$T/body" | sed -E 's/.*"prev":"([0-9a-f]{64})"\}$/\1/')
    [ "$prev" = "$(sed -n 3p "$T/log.$id" | tr -d '\n' | sha256sum | cut -d' ' -f1)" ]
    for q in since=-1 since=x last=0 "since=1&last=1" since=; do
        [ "$(api GET "/v1/tables/$id/log?$q")" = 400 ]
        [ "$(jget error.code)" = bad_query ]
    done
    [ "$(api GET "/v1/tables/999/log?last=3")" = 404 ]
    [ "$(jget error.code)" = unknown_table ]
}
