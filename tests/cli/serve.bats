#!/usr/bin/env bats
# fairshuf serve: every endpoint and error of docs/service.md on a free
# loopback port; concurrent deals on one table; SIGTERM; a full disk; the
# Node and Python clients of examples/.  (The kill -9 loop: serve_crash.bats.)

load serve

setup() {
    serve_setup
}

teardown() {
    serve_teardown
}

@test "serve --help, usage errors, and a token file others can read is refused" {
    run "$F" serve --help
    [ "$status" -eq 0 ]
    [[ $output == *"POST /v1/tables/ID/deals"* ]]
    [[ $output == *"Authorization: Bearer TOKEN"* ]]
    run "$F" serve --token-file="$T/token"
    [ "$status" -eq 2 ]
    [[ $output == *"--db and --token-file are required"* ]]
    run "$F" serve --db="$DB" --token-file="$T/token" --batch=0
    [ "$status" -eq 2 ]
    chmod 604 "$T/token"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"readable or writable by others"* ]]
    chmod 600 "$T/token"
    echo short >"$T/short"
    chmod 600 "$T/short"
    run "$F" serve --db="$DB" --token-file="$T/short" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"16 to 4000 visible ASCII"* ]]
    [ ! -e "$DB" ]   # nothing created before the token is accepted
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=nohost
    [ "$status" -eq 1 ]
    # the database holds the seeds: owner-only, one service at a time
    start_serve
    [ "$(stat -c %a "$DB")" = 600 ]
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"in use by another fairshuf serve"* ]]
    kill "$SPID"; wait "$SPID"; SPID=
    chmod 644 "$DB"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"readable or writable by its group or others"* ]]
}

@test "a table's life: open, client seed, deals, rotate; the log checks honest; each deal is 'fair deal --format=tsv'" {
    start_serve
    run curl -s -i "$URL/v1/health"
    [[ $output == *"200 OK"* ]]
    [ "$(api POST /v1/tables '{"game":"holdem","players":4}')" = 201 ]
    id=$(jget table)
    commit=$(jget commitment)
    [[ $commit =~ ^[0-9a-f]{64}$ ]]
    [ "$(jget scheme)" = fairshuf-pf-2 ]
    [ "$(api GET "/v1/tables/$id")" = 200 ]
    [ "$(jget commitment)" = "$commit" ]
    [ "$(jget client_seed)" = None ]
    [ "$(api POST "/v1/tables/$id/client-seed" '{"client_seed":"alice ☃"}')" = 200 ]
    for n in 0 1 2; do
        [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
        [ "$(jget nonce)" = "$n" ]
        jget deal >"$T/deal.$n"
    done
    [ "$(api POST "/v1/tables/$id/rotate" '{}')" = 200 ]
    seed=$(jget server_seed)
    [ "$(jget previous_commitment)" = "$commit" ]
    [ "$(jget commitment)" != "$commit" ]
    [ "$("$PY" -c 'import hashlib,sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1])).hexdigest())' "$seed")" = "$commit" ]
    get_log "$id"
    [ "$(wc -l <"$T/log.$id")" -eq 7 ]   # commit, client seed, 3 deals, reveal, commit
    run "$F" fair check --log="$T/log.$id" --commitment="$commit" --client-seed="alice ☃"
    [ "$status" -eq 0 ]
    [[ $output == OK* ]]
    # every answer is exactly what the CLI deals from the revealed seed
    echo "$seed" >"$T/seed"
    chmod 600 "$T/seed"
    for n in 0 1 2; do
        want=$("$F" fair deal --server-seed-file="$T/seed" --client-seed="alice ☃" \
            --nonce=$n --game=holdem --players=4 --format=tsv)
        [ "$(cat "$T/deal.$n")" = "$want" ]
    done
    # the log is served as JSON lines, and the new period waits for a client seed
    run curl -s -i "$URL/v1/tables/$id/log"
    [[ $output == *"Content-Type: application/x-ndjson"* ]]
    [ "$(api POST "/v1/tables/$id/deals")" = 409 ]
    [ "$(jget error.code)" = client_seed_required ]
}

@test "public reads need no token; an unrevealed server seed appears in no answer, log, error or metric" {
    start_serve
    id=$(new_table doudizhu bob)
    api POST "/v1/tables/$id/deals" >/dev/null
    api POST "/v1/tables/$id/client-seed" '{"client_seed":"again"}' >/dev/null
    [ "$(jget error.code)" = client_seed_already_set ]
    cp "$T/body" "$T/err1"
    api POST "/v1/tables/$id/deals" '{"server_seed":1}' >/dev/null
    cp "$T/body" "$T/err2"
    # the secret, from the database itself
    seed=$("$PY" -c 'import sqlite3,sys
print(sqlite3.connect(sys.argv[1]).execute("select hex(server_seed) from tables where id=?", (int(sys.argv[2]),)).fetchone()[0].lower())' "$DB" "$id")
    [[ $seed =~ ^[0-9a-f]{64}$ ]]
    curl -sf "$URL/v1/tables/$id" >"$T/info"
    curl -sf "$URL/v1/tables/$id/log" >"$T/log"
    curl -sf "$URL/metrics" >"$T/metrics"
    [ -s "$T/info" ] && [ -s "$T/log" ] && [ -s "$T/metrics" ]
    cat "$T/info" "$T/log" "$T/metrics" "$T/err1" "$T/err2" "$T/serve.out" "$T/serve.err" >"$T/all"
    ! grep -qi "$seed" "$T/all"
    # the same grep finds it once revealed (the check can fail)
    api POST "/v1/tables/$id/rotate" >/dev/null
    curl -sf "$URL/v1/tables/$id/log" | grep -qi "$seed"
    # metrics: Prometheus text with the deal counter and the latency histogram
    curl -sf "$URL/metrics" >"$T/metrics"
    grep -q '^fairshuf_deals_total 1$' "$T/metrics"
    grep -q '^fairshuf_request_duration_seconds_bucket{le="+Inf"} ' "$T/metrics"
    grep -q '^fairshuf_errors_total 2$' "$T/metrics"
}

@test "errors: a JSON error with the fitting status, and nothing written" {
    start_serve
    id=$(new_table doudizhu carol)
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    get_log "$id"
    cp "$T/log.$id" "$T/before"
    big=$(head -c 20000 /dev/zero | tr '\0' a)
    check() { # STATUS CODE METHOD PATH [BODY]
        local want=$1 code=$2
        shift 2
        got=$(api "$@")
        echo "$* -> $got $(cat "$T/body")"
        [ "$got" = "$want" ]
        [ "$(jget error.code)" = "$code" ]
        [ -n "$(jget error.message)" ]
    }
    check 400 bad_json POST /v1/tables '{"game":'
    check 400 bad_json POST /v1/tables '["doudizhu"]'
    check 400 bad_json POST /v1/tables ''
    check 400 bad_json POST /v1/tables '{"game":"doudizhu","game":"holdem"}'
    check 400 unknown_field POST /v1/tables '{"game":"doudizhu","seed":"x"}'
    check 400 bad_game POST /v1/tables '{"game":"nosuch"}'
    check 400 bad_game POST /v1/tables '{"players":3}'
    check 400 bad_players POST /v1/tables '{"game":"doudizhu","players":9}'
    check 400 bad_players POST /v1/tables '{"game":"doudizhu","players":"3"}'
    check 400 bad_decks POST /v1/tables '{"game":"doudizhu","decks":0}'
    check 400 bad_decks POST /v1/tables '{"game":"bridge","decks":65}'
    check 413 body_too_large POST /v1/tables "{\"game\":\"$big\"}"
    check 400 unknown_field POST "/v1/tables/$id/deals" '{"nonce":7}'
    check 400 bad_json POST "/v1/tables/$id/rotate" 'x'
    check 400 bad_client_seed POST "/v1/tables/$id/client-seed" '{"client_seed":7}'
    check 404 unknown_table POST /v1/tables/999/deals
    check 404 unknown_table POST /v1/tables/999/client-seed '{"client_seed":"z"}'
    check 404 unknown_table POST /v1/tables/999/rotate
    check 404 unknown_table POST /v1/tables/999999999999999999/deals
    check 404 unknown_table POST /v1/tables/0/deals
    check 404 not_found POST /v1/tables/9999999999999999999/deals
    check 404 unknown_table GET /v1/tables/999
    check 404 unknown_table GET /v1/tables/999/log
    check 404 not_found GET /v1/nothing
    check 404 not_found GET "/v1/tables/$id/cards"
    check 405 method_not_allowed GET /v1/tables
    check 405 method_not_allowed DELETE "/v1/tables/$id"
    check 405 method_not_allowed POST "/v1/tables/$id/log"
    check 409 client_seed_already_set POST "/v1/tables/$id/client-seed" '{"client_seed":"z"}'
    # the token: missing, wrong, another scheme
    TOKEN=wrong-token-wrong-token check 401 bad_token POST "/v1/tables/$id/deals"
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST "$URL/v1/tables/$id/deals")" = 401 ]
    [ "$(jget error.code)" = unauthorized ]
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Basic $TOKEN" "$URL/v1/tables/$id/deals")" = 401 ]
    curl -s -i -X POST "$URL/v1/tables/$id/deals" | grep -qi '^WWW-Authenticate: Bearer'
    # nothing written: the log is the same, no table was opened
    get_log "$id"
    cmp "$T/before" "$T/log.$id"
    [ "$(api GET "/v1/tables/$((id + 1))")" = 404 ]
    # client seeds the library refuses (empty, control character, too long)
    id2=$(new_table doudizhu)
    long=$(head -c 257 /dev/zero | tr '\0' s)
    check 400 bad_client_seed POST "/v1/tables/$id2/client-seed" '{"client_seed":""}'
    check 400 bad_client_seed POST "/v1/tables/$id2/client-seed" '{"client_seed":"a\u0001b"}'
    check 400 bad_client_seed POST "/v1/tables/$id2/client-seed" '{"client_seed":"a\u0000b"}'
    check 400 bad_client_seed POST "/v1/tables/$id2/client-seed" "{\"client_seed\":\"$long\"}"
    # the order of a period: deal before the client seed; rotate before a deal
    check 409 client_seed_required POST "/v1/tables/$id2/deals"
    check 409 no_deal POST "/v1/tables/$id2/rotate"
    get_log "$id2"
    [ "$(wc -l <"$T/log.$id2")" -eq 1 ]   # the commit only
}

@test "concurrent deals on one table: distinct consecutive nonces, every answer in the log" {
    start_serve
    id=$(new_table doudizhu dave)
    run "$LOAD" --port="$PORT" --token-file="$T/token" --tables="$id" --clients=16 \
        --deals=400 --seconds=60 --record="$T/answers"
    [ "$status" -eq 0 ]
    [[ $output == *"deals=400 "* ]]
    [[ $output == *"errors=0 "* ]]
    [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
    get_log "$id"
    run "$F" fair check --log="$T/log.$id"
    [ "$status" -eq 0 ]
    run "$PY" "$BATS_TEST_DIRNAME/serve_answers.py" "$T/log.$id" "$T/answers" 400
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "SIGTERM: a request in flight is finished, then the service exits 0" {
    start_serve
    id=$(new_table doudizhu erin)
    # headers and half the body now; the rest after SIGTERM
    run "$PY" - "$PORT" "$TOKEN" "$id" "$SPID" <<'PYEOF'
import os, signal, socket, sys, time
port, token, table, pid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
body = b"{  }"
s = socket.create_connection(("127.0.0.1", port))
s.sendall(("POST /v1/tables/%s/deals HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
           "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (table, token, len(body))).encode() + body[:2])
time.sleep(0.3)
os.kill(pid, signal.SIGTERM)
time.sleep(0.3)
s.sendall(body[2:])
reply = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    reply += chunk
print(reply.decode())
PYEOF
    echo "$output"
    [[ ${lines[0]} == "HTTP/1.1 200 OK"* ]]
    [[ $output == *'"nonce":0'* ]]
    wait "$SPID"
    st=$?
    SPID=
    [ "$st" -eq 0 ]
    # the deal it answered is in the database
    start_serve
    get_log "$id"
    grep -q '"event":"deal","nonce":0' "$T/log.$id"
}

@test "GET /verify serves the verifier page from --web-root; 404 JSON without it" {
    mkdir "$T/web"
    echo '<!doctype html><title>verify</title>' >"$T/web/verify.html"
    start_serve --web-root="$T/web"
    run curl -s -i "$URL/verify?table=1"
    [[ $output == *"200 OK"* ]]
    [[ $output == *"Content-Type: text/html"* ]]
    [[ $output == *"<title>verify</title>"* ]]
    kill "$SPID"; wait "$SPID"
    PORT=0
    start_serve --web-root="$T/nothing"
    [ "$(api GET /verify)" = 404 ]
    [ "$(jget error.code)" = not_found ]
}

@test "a full disk (small tmpfs): 507, nothing half-written; after space returns the log checks honest" {
    SMALL="$T/small"
    mkdir "$SMALL"
    if ! out=$(mount -t tmpfs -o size=1m tmpfs "$SMALL" 2>&1); then
        SMALL=
        skip "mount -t tmpfs refused here ($out): needs root in a system that allows mounts"
    fi
    DB="$SMALL/tables.db"
    start_serve
    id=$(new_table doudizhu frank)
    # fill the disk but 96 KiB, then deal until the database cannot grow
    dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null || true
    truncate -s -96K "$SMALL/filler"
    run "$LOAD" --port="$PORT" --token-file="$T/token" --tables="$id" --clients=4 \
        --deals=3000 --seconds=60 --record="$T/answers"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ! $output == *"deals=0 "* ]]     # some deals were made,
    [[ ! $output == *"errors=0 "* ]]    # then some were refused
    [ "$(api POST "/v1/tables/$id/deals")" = 507 ]
    [ "$(jget error.code)" = storage_full ]
    curl -sf "$URL/metrics" | grep -q 'route="deals",status="507"'
    run "$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0])' "$DB"
    [ "$output" = ok ]
    # space again: the service goes on with the next nonce, nothing lost
    rm -f "$SMALL/filler"
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    n=$(jget nonce)
    echo "$(cat "$T/body")" >>"$T/answers"
    [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
    get_log "$id"
    run "$F" fair check --log="$T/log.$id"
    echo "$output"
    [ "$status" -eq 0 ]
    run "$PY" "$BATS_TEST_DIRNAME/serve_answers.py" "$T/log.$id" "$T/answers" $((n + 1))
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "examples/serve_client.py (standard library only) opens, deals, rotates and checks" {
    start_serve
    run "$PY" "$BATS_TEST_DIRNAME/../../examples/serve_client.py" --url="$URL" \
        --token-file="$T/token" --fairshuf="$F"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"check: OK"* ]]
}

@test "examples/serve_client.mjs (Node, a keep-alive agent) opens, deals, rotates and checks" {
    command -v node >/dev/null || { echo "node is missing (scripts/setup.sh installs nodejs)"; return 1; }
    start_serve
    run node "$BATS_TEST_DIRNAME/../../examples/serve_client.mjs" --url="$URL" \
        --token-file="$T/token" --fairshuf="$F"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"check: OK"* ]]
}
