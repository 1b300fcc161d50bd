#!/usr/bin/env bash
# serve.sh -- durable provably-fair deals per second: `fairshuf serve`
# (HTTP/JSON, SQLite WAL synchronous=FULL, group commit) against the route
# a game server in another language has without it: start the CLI once
# per deal (`fairshuf fair deal --server-seed-file --log`, which appends and
# syncs the log) with the same concurrency and one at a time (what one
# game-server process calling the CLI gets), in the same run, interleaved
# (service, CLI, CLI x1, service, ...); prints each round, then medians
# with min-max and the ratios.  docs/performance.md keeps the figures.
# --vrf: instead of the CLI, the same service deals $tables fairshuf-vrf-1
# tables (each hand proven under the service's VRF key, --vrf-key-file)
# beside its $tables pf-2 tables, interleaved (pf-2, vrf, pf-2, ...); with
# the service's CPU time per deal of each (/proc/PID/stat), whose
# difference is what a proof costs the service per hand.
#   bench/serve.sh [--clients=64] [--seconds=5] [--rounds=3] [--tables=64] [--vrf]
# BUILD (default build) names the build folder: make all BUILD/tests/serve-load.
set -euo pipefail
clients=64 seconds=5 rounds=3 tables=64 vrf=
for a in "$@"; do
  case $a in
  --vrf) vrf=1 ;;
  --clients=*) clients=${a#*=} ;;
  --seconds=*) seconds=${a#*=} ;;
  --rounds=*) rounds=${a#*=} ;;
  --tables=*) tables=${a#*=} ;;
  *) echo "usage: $0 [--clients=N] [--seconds=S] [--rounds=R] [--tables=T] [--vrf]" >&2; exit 2 ;;
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
"$F" fair vrf-keygen --key-file="$tmp/bench.vrf-key" >/dev/null
"$F" serve --db="$tmp/bench.db" --token-file="$tmp/token" --listen=127.0.0.1:0 \
  --port-file="$tmp/port" --vrf-key-file="$tmp/bench.vrf-key" >/dev/null &
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

if [ -n "$vrf" ]; then
  # $tables vrf tables, two players each: commitments, then the seeds
  vids=()
  for t in $(seq 1 "$tables"); do
    c1=$(printf %s "a-$t" | sha256sum | cut -c1-64)
    c2=$(printf %s "b-$t" | sha256sum | cut -c1-64)
    id=$(curl -sf -H "Authorization: Bearer $token" \
      -d "{\"scheme\":\"fairshuf-vrf-1\",\"game\":\"holdem\",\"players\":2,\"commitments\":[\"$c1\",\"$c2\"]}" \
      "http://127.0.0.1:$port/v1/tables" | sed 's/^{"table":\([0-9]*\),.*/\1/')
    curl -sf -H "Authorization: Bearer $token" -d "{\"client_seeds\":[\"a-$t\",\"b-$t\"]}" \
      "http://127.0.0.1:$port/v1/tables/$id/client-seeds" >/dev/null
    vids+=("$id")
  done
  vidlist=$(IFS=,; echo "${vids[*]}")
  cpu() { awk '{ print $14 + $15 }' "/proc/$spid/stat"; } # clock ticks
  hz=$(getconf CLK_TCK)
  run_on() { # TABLES -> "deals per_second p50_ms p99_ms cpu_ms_per_deal"
    local c0 out
    c0=$(cpu)
    out=$("$LOAD" --port="$port" --token-file="$tmp/token" --tables="$1" \
      --clients="$clients" --seconds="$seconds" |
      sed -E 's/.*deals=([0-9]+) .*per_second=([0-9]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+).*/\1 \2 \3 \4/')
    echo "$out $(awk -v d="$(( $(cpu) - c0 ))" -v hz="$hz" -v n="${out%% *}" \
      'BEGIN { printf "%.4f", n ? d * 1000 / hz / n : 0 }')"
  }
  echo "serve.sh --vrf: $clients clients, $tables pf-2 and $tables vrf tables (holdem, 2 players), ${seconds}s per run, $rounds rounds; $(nproc) CPUs"
  echo "load before: $(uptime)"
  for r in $(seq 1 "$rounds"); do
    p=$(run_on "$idlist")
    v=$(run_on "$vidlist")
    echo "round $r: pf-2 deals/s=$(echo "$p" | cut -d' ' -f2) p99_ms=$(echo "$p" | cut -d' ' -f4) cpu_ms/deal=$(echo "$p" | cut -d' ' -f5) | vrf deals/s=$(echo "$v" | cut -d' ' -f2) p99_ms=$(echo "$v" | cut -d' ' -f4) cpu_ms/deal=$(echo "$v" | cut -d' ' -f5)"
    echo "$p" >>"$tmp/pf2.txt"
    echo "$v" >>"$tmp/vrf.txt"
  done
  echo "load after:  $(uptime)"
  python3 - "$tmp/pf2.txt" "$tmp/vrf.txt" <<'PY'
import statistics, sys
p = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
v = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
def med(rows, i, f):
    x = [r[i] for r in rows]
    return (f + " (" + f + "-" + f + ")") % (statistics.median(x), min(x), max(x))
print("median (min-max) over %d rounds:" % len(p))
for name, rows in (("pf-2", p), ("vrf ", v)):
    print("  %s deals/s %s  p50 ms %s  p99 ms %s  service CPU ms/deal %s" % (
        name, med(rows, 1, "%.0f"), med(rows, 2, "%.2f"), med(rows, 3, "%.2f"), med(rows, 4, "%.3f")))
r = [b[1] / a[1] for a, b in zip(p, v) if a[1] > 0]
d = [b[4] - a[4] for a, b in zip(p, v)]
print("  ratio vrf / pf-2 deals/s: %.2f (%.2f-%.2f)" % (statistics.median(r), min(r), max(r)))
print("  a proof's cost in the service (CPU ms per hand, vrf - pf-2): %.3f (%.3f-%.3f)" % (
    statistics.median(d), min(d), max(d)))
PY
  exit 0
fi

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
