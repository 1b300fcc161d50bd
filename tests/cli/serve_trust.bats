#!/usr/bin/env bats
# fairshuf serve, what an outside pass found (issue 52): a reused client
# seed, the port file's special files, a damaged database, table ids far
# apart, streamed logs, idle connections, and the small refusals.  Each
# service runs on a free loopback port (serve.bash) and is stopped.

load serve

setup() {
    serve_setup
}

teardown() {
    serve_teardown
}

@test "a client seed of an earlier period is refused (service 409, CLI exit 2); nothing is written" {
    start_serve
    id=$(new_table bridge alice)
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
    get_log "$id"
    [ "$(api POST "/v1/tables/$id/client-seed" '{"client_seed":"alice"}')" = 409 ]
    [ "$(jget error.code)" = client_seed_reused ]
    curl -sf "$URL/v1/tables/$id/log" | cmp - "$T/log.$id"   # nothing written
    [ "$(api POST "/v1/tables/$id/client-seed" '{"client_seed":"bob"}')" = 200 ]
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    [ "$(api POST "/v1/tables/$id/rotate")" = 200 ]
    [ "$(api POST "/v1/tables/$id/client-seed" '{"client_seed":"bob"}')" = 409 ]
    [ "$(api POST "/v1/tables/$id/client-seed" '{"client_seed":"alice"}')" = 409 ]
    # another table may use the seed: the rule is per table's log
    id2=$(new_table bridge alice)
    get_log "$id"
    run "$F" fair check --log="$T/log.$id"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *client-seed-reused* ]]
    # the CLI: fair client-seed and fair deal --client-seed
    L="$T/p.log" S="$T/s.hex"
    "$F" fair commit --server-seed-file="$S" --log="$L" --game=bridge >/dev/null
    "$F" fair client-seed --server-seed-file="$S" --log="$L" --client-seed=alice
    "$F" fair deal --server-seed-file="$S" --log="$L" >/dev/null
    "$F" fair rotate --server-seed-file="$S" --log="$L" >/dev/null
    cp "$L" "$T/p.before"
    run "$F" fair client-seed --server-seed-file="$S" --log="$L" --client-seed=alice
    echo "$output"
    [ "$status" -eq 2 ]
    [[ $output == *"client seed 'alice' is already used at line 2"* ]]
    run "$F" fair deal --server-seed-file="$S" --log="$L" --client-seed=alice
    [ "$status" -eq 2 ]
    cmp "$L" "$T/p.before"
    "$F" fair client-seed --server-seed-file="$S" --log="$L" --client-seed=carol
}

# Starts the service with --port-file="$1" (and the rest of "$@"), waits for
# its "listening on" line; sets SPID, PORT, URL.  1 when it exits first.
start_serve_pf() {
    : >"$T/serve.out"
    "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 \
        --port-file="$@" >>"$T/serve.out" 2>>"$T/serve.err" &
    SPID=$!
    local i
    for i in $(seq 1 400); do
        grep -q "listening on" "$T/serve.out" && break
        kill -0 "$SPID" 2>/dev/null || { cat "$T/serve.err"; return 1; }
        sleep 0.025
    done
    PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/serve.out")
    URL="http://127.0.0.1:$PORT"
    curl -sf "$URL/v1/health" >/dev/null
}

stop_serve() {
    kill "$SPID"
    wait "$SPID"
    SPID=
}

@test "--port-file: a symlink stays a link, a planted FILE.tmp link is not followed, a FIFO and a device are written in place" {
    # a symbolic link: the file it names gets the port, the link stays
    echo old >"$T/real"
    ln -s real "$T/link"
    start_serve_pf "$T/link"
    [ -L "$T/link" ]
    [ "$(cat "$T/real")" = "$PORT" ]
    stop_serve
    # a planted FILE.tmp symlink: never written through
    ln -s "$T/victim" "$T/port.tmp"
    start_serve_pf "$T/port"
    [ "$(cat "$T/port")" = "$PORT" ]
    [ ! -e "$T/victim" ]
    [ -L "$T/port.tmp" ]
    ls -a "$T" | grep -c fairshuf- | grep -qx 0   # no temporary file left
    stop_serve
    # a FIFO: written in place for its reader; none: refused, not held
    mkfifo "$T/fifo"
    exec 7<>"$T/fifo"          # a reader (and writer) that never blocks
    start_serve_pf "$T/fifo"
    read -r -t 10 got <&7
    exec 7<&-
    [ -p "$T/fifo" ]
    [ "$got" = "$PORT" ]
    stop_serve
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/token" \
        --listen=127.0.0.1:0 --port-file="$T/fifo"
    [ "$status" -eq 1 ]
    [[ $output == *"fifo: a FIFO that nobody reads"* ]]
    [ -p "$T/fifo" ]
    # a device node (our own copy of /dev/null, so a failure replaces only it)
    if mknod "$T/null" c 1 3 2>/dev/null; then
        start_serve_pf "$T/null"
        [ -c "$T/null" ]
        stop_serve
    else
        echo "# mknod needs root: the device case is not run" >&3
    fi
}

# A table of 25 deals (27 log lines) in a stopped service's database.
table_of_27() {
    start_serve --sync=normal
    id=$(new_table bridge alice)
    for i in $(seq 1 25); do
        [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    done
    [ "$(api GET /v1/health)" = 200 ]
    [ "$(jget status)" = ok ]
    [ "$(jget storage)" = ok ]
    [ "$(jget last_write_error)" = None ]
    [ "$(jget disk_low)" = false ]
    [ "$(jget disk_free_bytes)" -gt 0 ]
    kill "$SPID"; wait "$SPID"; SPID=
    PORT=0
}

@test "a damaged database: refused at start (quick_check); a cut log found later: 503 storage_corrupt, health says so" {
    table_of_27
    # a page of the log's b-tree overwritten: the service does not start
    cp "$DB" "$T/good.db"
    "$PY" - "$DB" <<'PY'
import sqlite3, sys
n = sqlite3.connect(sys.argv[1]).execute("pragma page_count").fetchone()[0]
with open(sys.argv[1], "r+b") as f:
    f.seek(4096 * (n - 1) + 8)
    f.write(b"\xff" * 64)
PY
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"the database is damaged (PRAGMA quick_check: "*"): not starting"* ]]
    # a log cut from 27 lines to 3 (no page damage: quick_check passes)
    cp "$T/good.db" "$DB"
    "$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from log where seq >= 3"); c.commit()' "$DB"
    start_serve
    [ "$(api GET /v1/health)" = 200 ]
    [ "$(api POST "/v1/tables/$id/deals")" = 503 ]
    [ "$(jget error.code)" = storage_corrupt ]
    [ "$(api GET /v1/health)" = 503 ]
    [ "$(jget status)" = error ]
    [ "$(jget storage)" = corrupt ]
    [[ $(jget storage_message) == *"table $id"* ]]
    # from now on no table is served, read or written
    [ "$(api GET "/v1/tables/$id/log")" = 503 ]
    [ "$(api GET "/v1/tables/$id")" = 503 ]
    [ "$(api POST /v1/tables '{"game":"bridge"}')" = 503 ]
    [ "$(jget error.code)" = storage_corrupt ]
}

@test "table ids far apart (1e8, 3e9): each is served, new tables open, memory stays small" {
    start_serve
    a=$(new_table bridge alice)
    b=$(new_table bridge bob)
    kill "$SPID"; wait "$SPID"; SPID=; PORT=0
    "$PY" - "$DB" "$a" "$b" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for old, new in ((sys.argv[2], 100000000), (sys.argv[3], 3000000000)):
    c.execute("update tables set id = ? where id = ?", (new, old))
    c.execute("update log set table_id = ? where table_id = ?", (new, old))
c.execute("update sqlite_sequence set seq = 3000000000 where name = 'tables'")
c.commit()
PY
    start_serve
    [ "$(api POST /v1/tables/100000000/deals)" = 200 ]
    [ "$(api POST /v1/tables/3000000000/deals)" = 200 ]
    [ "$(api POST /v1/tables '{"game":"bridge"}')" = 201 ]
    [ "$(jget table)" = 3000000001 ]
    [ "$(api POST /v1/tables/3000000001/client-seed '{"client_seed":"carol"}')" = 200 ]
    [ "$(api POST /v1/tables/3000000001/deals)" = 200 ]
    [ "$(api POST /v1/tables/99999999/deals)" = 404 ]
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$SPID/status")
    echo "# service RSS ${rss} kB" >&3
    [ "$rss" -lt 100000 ]     # an array by id took 800 MB for id 1e8
}

@test "GET log is streamed: the lines exactly as stored, 10 slow readers of a 12 MB log cost little memory, damage cuts the answer" {
    table_of_27
    # 40,000 more lines (a deal's record again: the stream does not judge)
    "$PY" - "$DB" "$id" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t = int(sys.argv[2])
line = c.execute("select line from log where table_id = ? and seq = 26", (t,)).fetchone()[0]
c.executemany("insert into log values (?, ?, ?)", ((t, s, line) for s in range(27, 40027)))
c.execute("update tables set lines = 40027 where id = ?", (t,))
c.commit()
PY
    start_serve
    curl -sf "$URL/v1/tables/$id/log" >"$T/log"
    "$PY" -c '
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "select line from log where table_id = ? order by seq", (sys.argv[2],)).fetchall()
want = "".join(r[0] + "\n" for r in rows).encode()
got = open(sys.argv[3], "rb").read()
assert len(rows) == 40027 and got == want, (len(rows), len(got), len(want))' "$DB" "$id" "$T/log"
    run curl -sfI "$URL/v1/tables/$id/log"
    [[ $output == *"200 OK"* ]]
    hwm0=$(awk '/^VmHWM/ {print $2}' "/proc/$SPID/status")
    "$PY" - "$PORT" "$id" 10 "$(wc -c <"$T/log")" <<'PY'
import socket, sys, time
port, table, n, size = (int(a) for a in sys.argv[1:])
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /v1/tables/%d/log HTTP/1.0\r\n\r\n" % table)
    socks.append(s)
time.sleep(1)   # every reader waits: an answer built first would be held
for s in socks:
    got = bytearray()
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        got += b
    assert got.startswith(b"HTTP/1.1 200") and \
        len(got.split(b"\r\n\r\n", 1)[1]) == size, len(got)
    s.close()
PY
    hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$SPID/status")
    echo "VmHWM $hwm0 kB before 10 readers of a $(wc -c <"$T/log")-byte log, $hwm kB after"
    [ $((hwm - hwm0)) -lt 30000 ]   # built in memory: over 80 MB
    # a line missing in the middle: found on the way, the answer is cut
    kill "$SPID"; wait "$SPID"; SPID=; PORT=0
    "$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from log where seq = 20000"); c.commit()' "$DB"
    start_serve
    [ "$(api GET /v1/health)" = 200 ]
    run curl -sf -o "$T/cut" "$URL/v1/tables/$id/log"
    [ "$status" -ne 0 ]
    [ "$(wc -l <"$T/cut")" -lt 20001 ]
    [ "$(api GET /v1/health)" = 503 ]
    [ "$(jget storage)" = corrupt ]
}

@test "GET log of a log cut at its end: 503 storage_corrupt before any line is sent" {
    table_of_27
    "$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from log where seq >= 3"); c.commit()' "$DB"
    start_serve
    [ "$(api GET "/v1/tables/$id/log")" = 503 ]
    [ "$(jget error.code)" = storage_corrupt ]
    [ "$(api GET /v1/health)" = 503 ]
}

@test "idle connections (slowloris): one address holds at most --max-connections-per-ip, silent ones are closed, others are served" {
    start_serve --max-connections=32 --max-connections-per-ip=8 --idle-timeout=2
    "$PY" - "$PORT" "$T/open" <<'PY' &
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
socks = []
for i in range(40):          # more than --max-connections, all from 127.0.0.1
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")  # never ends
        socks.append(s)
    except OSError:
        pass
def still_open():
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            n += s.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            n += 1           # nothing to read, not closed: held by the server
        except OSError:
            pass
    return n
time.sleep(1)
first = still_open()
time.sleep(3)                # past --idle-timeout
with open(out, "w") as f:
    f.write("%d %d\n" % (first, still_open()))
PY
    idle=$!
    sleep 0.5
    # another client (127.0.0.2) is served while the first holds its sockets
    run curl -s --max-time 5 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$URL/v1/health"
    [ "$output" = 200 ]
    wait "$idle"
    read -r first later <"$T/open"
    echo "held after 1 s: $first; after 4 s: $later"
    [ "$first" -ge 1 ] && [ "$first" -le 8 ]       # the first address gets no more than its 8
    [ "$later" -eq 0 ]       # the silent ones are closed after 2 s
    run "$F" serve --db="$DB" --token-file="$T/token" --idle-timeout=0
    [ "$status" -eq 2 ]
    run "$F" serve --db="$DB" --token-file="$T/token" --max-connections-per-ip=65537
    [ "$status" -eq 2 ]
}

@test "small refusals: NUL in a game or a token, a FIFO or group-writable token, a group-readable database, port 65536, --batch's range; -wal/-shm owner-only" {
    start_serve
    [ "$(api POST /v1/tables '{"game":"bridge\u0000x"}')" = 400 ]
    [ "$(jget error.code)" = bad_game ]
    [ "$(stat -c %a "$DB-wal")" = 600 ]
    [ "$(stat -c %a "$DB-shm")" = 600 ]
    kill "$SPID"; wait "$SPID"; SPID=
    # the token file
    printf 'abcdefghijklmnop\0qrstuvwxyz\n' >"$T/nul"; chmod 600 "$T/nul"
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/nul" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"the token file holds a NUL byte"* ]]
    mkfifo "$T/fifo"; chmod 600 "$T/fifo"
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/fifo" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"not a regular file"* ]]
    chmod 620 "$T/token"
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"writable by its group"* ]]
    chmod 640 "$T/token"     # a group of operators may read it
    # the database
    chmod 640 "$DB"
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"readable or writable by its group or others (chmod 600)"* ]]
    chmod 600 "$DB"
    : >"$DB-wal"; : >"$DB-shm"; chmod 644 "$DB-wal" "$DB-shm"
    PORT=0
    start_serve
    [ "$(stat -c %a "$DB-wal")" = 600 ]
    [ "$(stat -c %a "$DB-shm")" = 600 ]
    kill "$SPID"; wait "$SPID"; SPID=
    # options
    run timeout -k 2 10 "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:65536
    [ "$status" -eq 1 ]
    [[ $output == *"the port is 0 to 65535"* ]]
    for b in 0 -1 65537 x; do
        run "$F" serve --db="$DB" --token-file="$T/token" --batch="$b"
        [ "$status" -eq 2 ]
        [[ $output == *"invalid batch size: '$b' (1 to 65536)"* ]]
    done
}

@test "GET /v1/games lists the games; a wrong token is told apart from a missing one" {
    start_serve
    [ "$(api GET /v1/games)" = 200 ]
    "$PY" -c '
import json, sys
g = {x["name"]: x for x in json.load(open(sys.argv[1]))["games"]}
assert g["holdem"]["min_players"] == 2 and g["holdem"]["max_players"] == 10, g
assert g["bridge"]["players"] == 4 and g["shengji"]["decks"] == 2, g' "$T/body"
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST "$URL/v1/tables")" = 401 ]
    [ "$(jget error.code)" = unauthorized ]
    [ "$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer not-the-token-at-all" "$URL/v1/tables")" = 401 ]
    [ "$(jget error.code)" = bad_token ]
}

@test "a nearly full disk: health says so (503, disk_low, last_write_error), writes answer 507; space again: ok" {
    SMALL="$T/small"
    mkdir "$SMALL"
    if ! out=$(mount -t tmpfs -o size=2m tmpfs "$SMALL" 2>&1); then
        skip "mount -t tmpfs refused here ($out): needs root in a system that allows mounts"
    fi
    DB="$SMALL/tables.db"
    start_serve
    [ "$(api GET /v1/health)" = 200 ]
    id=$(new_table bridge frank)
    dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null || true
    [ "$(api GET /v1/health)" = 503 ]
    [ "$(jget disk_low)" = true ]
    for i in $(seq 1 200); do
        s=$(api POST "/v1/tables/$id/deals")
        [ "$s" = 200 ] || break
    done
    [ "$s" = 507 ]
    [ "$(jget error.code)" = storage_full ]
    [ "$(api GET /v1/health)" = 503 ]
    [ "$(jget last_write_error)" = storage_full ]
    rm -f "$SMALL/filler"
    [ "$(api POST "/v1/tables/$id/deals")" = 200 ]
    [ "$(api GET /v1/health)" = 200 ]
    [ "$(jget last_write_error)" = None ]
    kill "$SPID"; wait "$SPID"; SPID=
    umount "$SMALL"
}
