#!/usr/bin/env bash
# serve.sh -- durable provably-fair deals per second: `fairshuf serve`
# (HTTP/JSON, SQLite WAL synchronous=FULL, group commit) against the route
# a game server in another language has without it: start the CLI once
# per deal (`fairshuf fair deal --server-seed-file --log`, which appends and
# syncs the log) with the same concurrency and one at a time (what one
# game-server process calling the CLI gets), in the same run, interleaved
# (service, CLI, CLI x1, service, ...); prints each round, then medians
# with min-max and the ratios.  docs/performance.md keeps the figures.
#   bench/serve.sh [--clients=64] [--seconds=5] [--rounds=3] [--tables=64]
# BUILD (default build) names the build folder: make all BUILD/tests/serve-load.
set -euo pipefail
clients=64 seconds=5 rounds=3 tables=64
for a in "$@"; do
  case $a in
  --clients=*) clients=${a#*=} ;;
  --seconds=*) seconds=${a#*=} ;;
  --rounds=*) rounds=${a#*=} ;;
  --tables=*) tables=${a#*=} ;;
  *) echo "usage: $0 [--clients=N] [--seconds=S] [--rounds=R] [--tables=T]" >&2; exit 2 ;;
  esac
done
BUILD=${BUILD:-build}
F=$(realpath "$BUILD/fairshuf")
LOAD=$(realpath "$BUILD/tests/serve-load")
[ -x "$F" ] && [ -x "$LOAD" ] || { echo "serve.sh: run 'make all $BUILD/tests/serve-load' first" >&2; exit 1; }
tmp=$(mktemp -d)
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
head -c 24 /dev/urandom | base64 >"$tmp/token"
chmod 600 "$tmp/token"
token=$(cat "$tmp/token")

# The service: one database, $tables tables with a client seed each.
"$F" serve --db="$tmp/bench.db" --token-file="$tmp/token" --listen=127.0.0.1:0 \
  --port-file="$tmp/port" >/dev/null &
spid=$!
for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port")
ids=()
for t in $(seq 1 "$tables"); do
  id=$(curl -sf -H "Authorization: Bearer $token" -d '{"game":"doudizhu"}' \
    "http://127.0.0.1:$port/v1/tables" | sed 's/^{"table":\([0-9]*\),.*/\1/')
  curl -sf -H "Authorization: Bearer $token" -d "{\"client_seed\":\"bench-$t\"}" \
    "http://127.0.0.1:$port/v1/tables/$id/client-seed" >/dev/null
  ids+=("$id")
done
idlist=$(IFS=,; echo "${ids[*]}")

# The CLI route: $clients workers, each on its own seed file and log,
# one process per deal; latency from bash's clock around each process.
for w in $(seq 1 "$clients"); do
  "$F" fair commit --server-seed-file="$tmp/seed.$w" --log="$tmp/log.$w" >/dev/null
  "$F" fair client-seed --server-seed-file="$tmp/seed.$w" --log="$tmp/log.$w" \
    --client-seed="cli-$w" >/dev/null
done
cli_worker() { # worker end-time -> latencies (seconds) on stdout
  local w=$1 end=$2 t0 t1
  while :; do
    t0=$EPOCHREALTIME
    [[ ${t0/./} -ge $end ]] && break
    "$F" fair deal --server-seed-file="$tmp/seed.$w" --log="$tmp/log.$w" >/dev/null
    t1=$EPOCHREALTIME
    echo "$(( ${t1/./} - ${t0/./} ))"
  done
}
run_cli() { # WORKERS -> "deals per_second p50_ms p99_ms"
  local start end w
  rm -f "$tmp"/lat.*
  start=${EPOCHREALTIME/./}
  end=$((start + seconds * 1000000))
  for w in $(seq 1 "$1"); do cli_worker "$w" "$end" >"$tmp/lat.$w" & done
  wait $(jobs -p | grep -v "^$spid\$") 2>/dev/null || true
  local el=$(( ${EPOCHREALTIME/./} - start ))
  cat "$tmp"/lat.* | sort -n | awk -v el="$el" '
    { v[NR] = $1 }
    END { n = NR; if (!n) { print 0, 0, 0, 0; exit }
          printf "%d %.0f %.2f %.2f\n", n, n / (el / 1e6), v[int(n / 2) + 1] / 1e3,
                 v[int(n * 99 / 100) + 1] / 1e3 }'
}
run_service() {
  "$LOAD" --port="$port" --token-file="$tmp/token" --tables="$idlist" \
    --clients="$clients" --seconds="$seconds" |
    sed -E 's/.*deals=([0-9]+) .*per_second=([0-9]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+).*/\1 \2 \3 \4/'
}

echo "serve.sh: $clients clients, $tables tables, ${seconds}s per run, $rounds rounds; $(nproc) CPUs"
echo "load before: $(uptime)"
for r in $(seq 1 "$rounds"); do
  s=$(run_service)
  c=$(run_cli "$clients")
  c1=$(run_cli 1)
  show() { echo "deals/s=$(echo "$1" | cut -d' ' -f2) p50_ms=$(echo "$1" | cut -d' ' -f3) p99_ms=$(echo "$1" | cut -d' ' -f4)"; }
  echo "round $r: service $(show "$s") | cli-per-deal $(show "$c") | cli-per-deal, one at a time $(show "$c1")"
  echo "$s" >>"$tmp/service.txt"
  echo "$c" >>"$tmp/cli.txt"
  echo "$c1" >>"$tmp/cli1.txt"
done
echo "load after:  $(uptime)"
metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
commits=$(echo "$metrics" | sed -n 's/^fairshuf_commits_total //p')
requests=$(echo "$metrics" | sed -n 's/^fairshuf_commit_requests_total //p')
python3 - "$tmp/service.txt" "$tmp/cli.txt" "$commits" "$requests" "$tmp/cli1.txt" "$clients" <<'PY'
import statistics, sys
def load(p):
    return [list(map(float, l.split())) for l in open(p) if l.strip()]
s, c, c1 = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[5])
def med(rows, i):
    v = [r[i] for r in rows]
    return "%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v)) if i == 1 else \
           "%.2f (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
print("median (min-max) over %d rounds:" % len(s))
print("  service      deals/s %s  p50 ms %s  p99 ms %s" % (med(s, 1), med(s, 2), med(s, 3)))
print("  cli-per-deal deals/s %s  p50 ms %s  p99 ms %s  (%s at once)" % (med(c, 1), med(c, 2), med(c, 3), sys.argv[6]))
print("  cli-per-deal deals/s %s  p50 ms %s  p99 ms %s  (one at a time)" % (med(c1, 1), med(c1, 2), med(c1, 3)))
for name, base in (("the same concurrency", c), ("one at a time", c1)):
    ratios = [a[1] / b[1] for a, b in zip(s, base) if b[1] > 0]
    if ratios:
        print("  ratio service / cli-per-deal (%s): %.0fx (%.0f-%.0f)" % (name, statistics.median(ratios), min(ratios), max(ratios)))
if sys.argv[3] and sys.argv[4] and float(sys.argv[3]) > 0:
    print("  group commit: %.1f requests per transaction (fsync)" % (float(sys.argv[4]) / float(sys.argv[3])))
PY
