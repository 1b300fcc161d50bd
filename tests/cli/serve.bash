# serve.bash -- helpers of the fairshuf serve tests (serve.bats, serve_crash.bats):
# a service on a free loopback port, HTTP calls with curl, JSON with python3.

serve_setup() {
    F="$FS_BIN"
    T="$BATS_TEST_TMPDIR"
    LOAD="$(dirname "$FS_BIN")/tests/serve-load"
    PY=/usr/bin/python3
    [ -x "$PY" ] || PY=python3
    DB="$T/tables.db"
    head -c 24 /dev/urandom | base64 >"$T/token"
    chmod 600 "$T/token"
    TOKEN=$(cat "$T/token")
    SPID=
    PORT=0
}

# Stops the service; unmounts $SMALL (a test's small tmpfs) if set.
serve_teardown() {
    if [ -n "${SPID:-}" ] && kill -0 "$SPID" 2>/dev/null; then
        kill -9 "$SPID" 2>/dev/null
        wait "$SPID" 2>/dev/null || true
    fi
    if [ -n "${SMALL:-}" ]; then
        umount "$SMALL" 2>/dev/null || true
    fi
}

# Starts the service (extra options in "$@") on $PORT (0: a free one) and
# waits until GET /v1/health answers (200, or 503 when the storage is not
# healthy: a nearly full disk); sets SPID, PORT, URL.
start_serve() {
    rm -f "$T/port"
    "$F" serve --db="$DB" --token-file="$T/token" --listen="127.0.0.1:$PORT" \
        --port-file="$T/port" "$@" >>"$T/serve.out" 2>>"$T/serve.err" &
    SPID=$!
    local i
    for i in $(seq 1 400); do
        [ -s "$T/port" ] && break
        kill -0 "$SPID" 2>/dev/null || { cat "$T/serve.err"; return 1; }
        sleep 0.025
    done
    PORT=$(cat "$T/port")
    URL="http://127.0.0.1:$PORT"
    curl -s -o /dev/null "$URL/v1/health"
}

# api METHOD PATH [BODY]: prints the HTTP status; the body is in $T/body.
api() {
    local m=$1 p=$2
    shift 2
    curl -s -o "$T/body" -w '%{http_code}' -X "$m" \
        -H "Authorization: Bearer $TOKEN" ${1+--data-binary "$1"} "$URL$p"
}

# jget KEY [FILE]: a top-level field of a JSON object (error.code for the code).
jget() {
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[2]))
for k in sys.argv[1].split("."):
    v = v[k]
print(v if not isinstance(v, bool) else str(v).lower())' "$1" "${2:-$T/body}"
}

# new_table GAME [CLIENT_SEED]: opens a table (and sets its client seed);
# prints its id.
new_table() {
    local id
    [ "$(api POST /v1/tables "{\"game\":\"$1\"}")" = 201 ] || return 1
    id=$(jget table)
    if [ -n "${2:-}" ]; then
        [ "$(api POST "/v1/tables/$id/client-seed" "{\"client_seed\":\"$2\"}")" = 200 ] || return 1
    fi
    echo "$id"
}

# The log of table $1 into $T/log.$1.
get_log() {
    curl -sf "$URL/v1/tables/$1/log" >"$T/log.$1"
}
