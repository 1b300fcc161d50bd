#!/bin/bash
# serve_log_memory.sh [DEALS] [CLIENTS] -- peak memory of fairshuf serve while
# CLIENTS clients GET one table's log of DEALS deals at once, each with an
# 8 KiB receive buffer, waiting 3 s before reading (docs/service.md,
# "Limits").  Prints the log's size and the service's VmHWM before and
# after.  Needs build/fairshuf and build/tests/serve-load (make test-build).
set -eu
BUILD=${BUILD:-build}
F=$BUILD/fairshuf LOAD=$BUILD/tests/serve-load
N=${1:-20000} C=${2:-300}
T=$(mktemp -d)
S=
trap '[ -n "$S" ] && kill "$S" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
head -c 24 /dev/urandom | base64 >"$T/token"
chmod 600 "$T/token"
TOK=$(cat "$T/token")
"$F" serve --db="$T/db" --token-file="$T/token" --listen=127.0.0.1:0 \
    --port-file="$T/port" --sync=normal --max-connections-per-ip=0 >/dev/null 2>&1 &
S=$!
for _ in $(seq 1 400); do [ -s "$T/port" ] && break; sleep 0.025; done
P=$(cat "$T/port")
U=http://127.0.0.1:$P
curl -sf -H "Authorization: Bearer $TOK" -d '{"game":"bridge"}' "$U/v1/tables" >/dev/null
curl -sf -H "Authorization: Bearer $TOK" -d '{"client_seed":"a"}' "$U/v1/tables/1/client-seed" >/dev/null
"$LOAD" --port="$P" --token-file="$T/token" --tables=1 --clients=8 --deals="$N" --seconds=300 >/dev/null
bytes=$(curl -sf "$U/v1/tables/1/log" | wc -c)
hwm0=$(awk '/^VmHWM/ {print $2}' "/proc/$S/status")
python3 - "$P" "$C" <<'PY'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    s.settimeout(60)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /v1/tables/1/log HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    socks.append(s)
time.sleep(3)
for s in socks:
    while s.recv(1 << 16):
        pass
    s.close()
PY
echo "log $bytes bytes, $C readers: VmHWM before ${hwm0} kB, after $(awk '/^VmHWM/ {print $2}' "/proc/$S/status") kB"
