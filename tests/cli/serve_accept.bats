#!/usr/bin/env bats
# fairshuf serve's accept loop (service/accept.c): first bytes that cannot
# start an HTTP request line (TLS to the plain port, binary, a NUL in the
# method) are answered 400 at once, not held to --idle-timeout; valid
# requests, slow ones and the connection limits work as before.  Each
# service runs on a free loopback port (serve.bash) and is stopped.

load serve

setup() {
    serve_setup
}

teardown() {
    serve_teardown
}

# first_answer HEX [HOST]: sends the bytes on a new connection to $PORT and
# reads until the server closes (at most 8 s); prints the seconds it took
# and the answer's status ("none" when it closed without one); the answer's
# body is in $T/body.
first_answer() {
    "$PY" - "${2:-127.0.0.1}" "$PORT" "$1" "$T/body" <<'PY'
import socket, sys, time
host, port, data, out = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3]), sys.argv[4]
s = socket.create_connection((host, port), timeout=8)
t = time.monotonic()
s.sendall(data)
got = b""
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        got += b
except OSError:
    pass
head, _, body = got.partition(b"\r\n\r\n")
open(out, "wb").write(body)
status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1 ") else "none"
print("%.2f %s" % (time.monotonic() - t, status))
PY
}

hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

# A TLS 1.3 ClientHello, as Python's ssl module sends it.
client_hello() {
    "$PY" -c '
import ssl
c = ssl.create_default_context()
c.check_hostname, c.verify_mode = False, ssl.CERT_NONE
i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
try:
    c.wrap_bio(i, o, server_hostname="localhost").do_handshake()
except ssl.SSLWantReadError:
    pass
print(o.read().hex())'
}

@test "first bytes that cannot be HTTP: TLS, binary, an SSH banner, a NUL in the method get 400 at once, not after --idle-timeout" {
    start_serve --idle-timeout=30
    # the first bytes of a ClientHello (fixed: a whole one holds random
    # bytes, and a line end among them made libmicrohttpd answer it at once)
    tls=160301020001000001fc0303
    tls+=5e2a9b11c4d07f3386a1e2b5c9d0f4176a8b3c2d1e0f9a8b7c6d5e4f30211203
    tls+=20ffeeddccbbaa99887766554433221100ffeeddccbbaa
    binary=8f3a00d1c2e47b19ffee0102a5a5c3c3e8d9136c2f0b7e41d5a699c3b2f1e4
    ssh=$(hex $'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n')
    nul=$(hex 'GE')00$(hex $'T /v1/health HTTP/1.1\r\nHost: x\r\n\r\n')
    space=$(hex $' GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n')
    bad=
    for c in tls client_hello binary ssh nul space; do
        [ "$c" = client_hello ] && client_hello=$(client_hello)  # a whole one
        read -r secs status < <(first_answer "${!c}")
        code=$(jget error.code 2>/dev/null || echo "(not JSON)")
        echo "$c: $secs s, $status $code"
        # the 400 comes well before the 30 s timeout; the service's JSON
        # error (the SSH banner is a whole line: libmicrohttpd answers it)
        "$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) < 3)' "$secs" &&
            [ "$status" = 400 ] && { [ "$c" = ssh ] || [ "$code" = bad_request ]; } ||
            bad+=" $c"
    done
    echo "failed:${bad:- none}"
    [ -z "$bad" ]
    # curl speaking TLS to the plain port fails at once, not after 30 s
    SECONDS=0
    run curl -sk --max-time 20 "https://127.0.0.1:$PORT/v1/health"
    [ "$status" -ne 0 ] && [ "$status" -ne 28 ]
    [ "$SECONDS" -lt 5 ]
    # counted in the metrics, under the route "other"
    curl -sf "$URL/metrics" >"$T/metrics"
    grep -E '^fairshuf_http_responses_total\{route="other",status="400"\} [4-9]$' "$T/metrics"
    # and the service still answers
    [ "$(api GET /v1/health)" = 200 ]
}

@test "valid requests still work: at once, with empty lines first, and a slow request line (past the accept loop's 1 s wait)" {
    start_serve --idle-timeout=30
    read -r secs status < <(first_answer "$(hex $'GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')")
    [ "$status" = 200 ]
    read -r secs status < <(first_answer "$(hex $'\r\nGET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')")
    [ "$status" = 200 ]
    "$PY" - "$PORT" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
rest = b"T /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
# "G", "E" within the wait, the rest after it; then "GE" and the method's
# space after it
for parts in ([b"G", b"E", rest], [b"GE", b"T", b" /v1/health HTTP/1.1\r\n", b"Host: x\r\nConnection: close\r\n\r\n"]):
    s = socket.create_connection(("127.0.0.1", port), timeout=8)
    for i, p in enumerate(parts):
        s.sendall(p)
        time.sleep(0.4 if i == 0 else 0.8)
    got = s.recv(4096)
    print(got[:40])
    assert got.startswith(b"HTTP/1.1 200 "), got
PY
}

@test "a client that sends nothing is kept past the accept loop's wait and closed after --idle-timeout" {
    start_serve --idle-timeout=2
    run "$PY" - "$PORT" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
t = time.monotonic()
time.sleep(1.6)
s.setblocking(False)
try:
    s.recv(1)
    print("closed early")
    sys.exit(1)
except BlockingIOError:
    pass
s.setblocking(True)
s.settimeout(10)
try:
    s.recv(1)
except OSError:
    pass
dt = time.monotonic() - t
print("closed after %.2f s" % dt)
sys.exit(not 1.9 < dt < 6)
PY
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "silent sockets: one address still holds at most --max-connections-per-ip, another is served" {
    start_serve --max-connections=32 --max-connections-per-ip=8 --idle-timeout=10
    "$PY" - "$PORT" "$T/open" <<'PY' &
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
socks = []
for i in range(40):          # nothing sent: they wait in the accept loop first
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    except OSError:
        pass
time.sleep(2.5)              # past the accept loop's 1 s wait
n = 0
for s in socks:
    s.setblocking(False)
    try:
        n += s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        n += 1               # held by the server
    except OSError:
        pass
open(out, "w").write("%d\n" % n)
PY
    idle=$!
    sleep 0.5
    run curl -s --max-time 5 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$URL/v1/health"
    [ "$output" = 200 ]
    wait "$idle"
    read -r held <"$T/open"
    echo "held after 2.5 s: $held"
    [ "$held" -ge 1 ] && [ "$held" -le 8 ]
}

@test "--max-connections: a new connection waits (it is not refused) until one ends" {
    start_serve --max-connections=4 --max-connections-per-ip=0 --idle-timeout=30
    "$PY" - "$PORT" "$T/go" <<'PY' &
import os, socket, sys, time
socks = [socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
         for _ in range(4)]
for s in socks:
    s.sendall(b"GET /v1/health HTTP/1.1\r\n")   # headers never end
for _ in range(200):                             # until told, at most 20 s
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.1)
PY
    holder=$!
    sleep 0.5
    run curl -s --max-time 1.5 -o /dev/null "$URL/v1/health"
    echo "while full: curl exit $status"
    [ "$status" -eq 28 ]   # waited: timed out, not refused (7) or cut (52, 56)
    curl -s -o "$T/late" -w '%{http_code}' --max-time 10 "$URL/v1/health" >"$T/code" &
    late=$!
    sleep 0.5
    touch "$T/go"
    wait "$holder"
    wait "$late"
    [ "$(cat "$T/code")" = 200 ]
}

@test "no descriptor is left behind, and SIGTERM stops the accept loop with connections still waiting" {
    start_serve --idle-timeout=30
    before=$(ls /proc/"$SPID"/fd | wc -l)
    "$PY" - "$PORT" <<'PY'
import socket, sys
port = int(sys.argv[1])
for i in range(30):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall([b"\x16\x03\x01\x02\x00", b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", b""][i % 3])
    if i % 3 != 2:
        s.recv(4096)
    s.close()
PY
    sleep 0.5
    after=$(ls /proc/"$SPID"/fd | wc -l)
    echo "descriptors: $before before, $after after"
    [ "$after" -le "$before" ]
    # two connections waiting for their first bytes, then SIGTERM
    exec 7<>/dev/tcp/127.0.0.1/"$PORT" 8<>/dev/tcp/127.0.0.1/"$PORT"
    printf G >&8
    sleep 0.2
    kill -TERM "$SPID"
    SECONDS=0
    status=0
    wait "$SPID" || status=$?
    exec 7>&- 8>&-
    cat "$T/serve.err"
    [ "$status" -eq 0 ] && [ "$SECONDS" -lt 5 ]
    SPID=
}

@test "on IPv6 (--listen=[::1]:0) too" {
    "$PY" -c 'import socket; socket.create_server(("::1", 0), family=socket.AF_INET6)' 2>/dev/null ||
        skip "no IPv6 loopback here"
    "$F" serve --db="$DB" --token-file="$T/token" --listen='[::1]:0' \
        --port-file="$T/port" --idle-timeout=30 >>"$T/serve.out" 2>>"$T/serve.err" &
    SPID=$!
    for i in $(seq 1 400); do
        [ -s "$T/port" ] && break
        sleep 0.025
    done
    PORT=$(cat "$T/port")
    read -r secs status < <(first_answer 16030100c4010000c00303 ::1)
    echo "$secs s, $status"
    [ "$status" = 400 ]
    [ "$(jget error.code)" = bad_request ]
    read -r secs status < <(first_answer "$(hex $'GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" ::1)
    [ "$status" = 200 ]
}
