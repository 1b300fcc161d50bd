#!/usr/bin/env bash
# serve_pg.sh -- durable provably-fair deals per second: three `fairshuf
# serve` instances on one PostgreSQL database (a throwaway cluster on this
# machine, fsync and synchronous_commit on: tests/cli/pg.bash) beside one
# instance on SQLite (WAL, synchronous=FULL), in the same run, interleaved
# (SQLite, PostgreSQL, SQLite, ...).  One load client (bench/serve_load.c)
# per instance, each with --clients connections; by default each PostgreSQL
# instance deals its own third of the tables (a load balancer that routes
# by table), --shared makes all three deal all tables (row-lock contention).
# Prints each round, then medians with min-max: aggregate deals/s, the
# worst instance's p99, and CPU seconds per 1,000 deals of the service
# processes and of the database (the cost per deal).
#   bench/serve_pg.sh [--clients=32] [--seconds=5] [--rounds=3] [--tables=96] [--shared]
# BUILD (default build): make all BUILD/tests/serve-load.
set -euo pipefail
clients=32 seconds=5 rounds=3 tables=96 shared=0
for a in "$@"; do
  case $a in
  --clients=*) clients=${a#*=} ;;
  --seconds=*) seconds=${a#*=} ;;
  --rounds=*) rounds=${a#*=} ;;
  --tables=*) tables=${a#*=} ;;
  --shared) shared=1 ;;
  *) echo "usage: $0 [--clients=N] [--seconds=S] [--rounds=R] [--tables=T] [--shared]" >&2; exit 2 ;;
  esac
done
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
F=$(realpath "$BUILD/fairshuf")
LOAD=$(realpath "$BUILD/tests/serve-load")
[ -x "$F" ] && [ -x "$LOAD" ] || { echo "serve_pg.sh: run 'make all $BUILD/tests/serve-load' first" >&2; exit 1; }
# shellcheck source=../tests/cli/pg.bash
. "$here/../tests/cli/pg.bash"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
PG_MAX_CONN=200 pg_start || { echo "serve_pg.sh: cannot start PostgreSQL" >&2; exit 1; }
head -c 24 /dev/urandom | base64 >"$tmp/token"
openssl rand -hex 32 >"$tmp/key"
chmod 600 "$tmp/token" "$tmp/key"
token=$(cat "$tmp/token")

start() { # NAME DB -> port on stdout
  "$F" serve --db="$2" --token-file="$tmp/token" --seed-key-file="$tmp/key" \
    --instance-id="$1" --listen=127.0.0.1:0 --port-file="$tmp/port.$1" >/dev/null 2>"$tmp/err.$1" &
  pids+=($!)
  echo $! >"$tmp/pid.$1"
  for _ in $(seq 1 200); do [ -s "$tmp/port.$1" ] && break; sleep 0.05; done
}
start lite "$tmp/bench.db"
for n in 1 2 3; do start "pg$n" "$PGURL"; done
port() { cat "$tmp/port.$1"; }
tables_on() { # PORT -> a comma list of $tables new tables with client seeds
  local ids=() t id
  for t in $(seq 1 "$tables"); do
    id=$(curl -sf -H "Authorization: Bearer $token" -d '{"game":"doudizhu"}' \
      "http://127.0.0.1:$1/v1/tables" | sed 's/^{"table":\([0-9]*\),.*/\1/')
    curl -sf -H "Authorization: Bearer $token" -d "{\"client_seed\":\"bench-$t\"}" \
      "http://127.0.0.1:$1/v1/tables/$id/client-seed" >/dev/null
    ids+=("$id")
  done
  (IFS=,; echo "${ids[*]}")
}
lite_tables=$(tables_on "$(port lite)")
pg_tables=$(tables_on "$(port pg1)")
IFS=, read -r -a pg_ids <<<"$pg_tables"
third=$(( (tables + 2) / 3 ))
for n in 1 2 3; do
  if [ "$shared" = 1 ]; then
    echo "$pg_tables" >"$tmp/tables.$n"
  else
    (IFS=,; echo "${pg_ids[*]:$(( (n - 1) * third )):$third}") >"$tmp/tables.$n"
  fi
done

cpu() { # PID... -> utime+stime seconds of those processes
  local t=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}
pgcpu() { # every backend and helper of the cluster (its user's processes)
  local t=0 p
  for p in $(pgrep -u "$(pg_as id -un)" -f "postgres" || true); do
    [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}
hz=$(getconf CLK_TCK)
parse() { sed -E 's/.*deals=([0-9]+) .*per_second=([0-9]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+).*errors=([0-9]+).*/\1 \2 \3 \4 \5/'; }

run_lite() { # -> "deals per_second p50 p99 cpu_s_per_1000"
  local c0 c1 out
  c0=$(cpu "$(cat "$tmp/pid.lite")")
  out=$("$LOAD" --port="$(port lite)" --token-file="$tmp/token" --tables="$lite_tables" \
    --clients=$((clients * 3)) --seconds="$seconds" | parse)
  c1=$(cpu "$(cat "$tmp/pid.lite")")
  echo "$out" | awk -v c=$((c1 - c0)) -v hz="$hz" '{ printf "%d %d %.2f %.2f %.3f 0\n", $1, $2, $3, $4, c / hz / ($1 / 1000) }'
}
run_pg() { # -> "deals per_second p50(max) p99(max) service_cpu_per_1000 db_cpu_per_1000"
  local c0 c1 d0 d1 n ps
  ps=$(cat "$tmp"/pid.pg*)
  # shellcheck disable=SC2086
  c0=$(cpu $ps); d0=$(pgcpu)
  for n in 1 2 3; do
    "$LOAD" --port="$(port "pg$n")" --token-file="$tmp/token" --tables="$(cat "$tmp/tables.$n")" \
      --clients="$clients" --seconds="$seconds" | parse >"$tmp/out.$n" &
  done
  wait $(jobs -p | grep -v -F -x -f <(printf '%s\n' "${pids[@]}")) 2>/dev/null || true
  # shellcheck disable=SC2086
  c1=$(cpu $ps); d1=$(pgcpu)
  cat "$tmp"/out.1 "$tmp"/out.2 "$tmp"/out.3 | awk -v c=$((c1 - c0)) -v d=$((d1 - d0)) -v hz="$hz" '
    { n += $1; r += $2; if ($3 > p50) p50 = $3; if ($4 > p99) p99 = $4 }
    END { printf "%d %d %.2f %.2f %.3f %.3f\n", n, r, p50, p99, c / hz / (n / 1000), d / hz / (n / 1000) }'
}

echo "serve_pg.sh: PostgreSQL $(pg_as "$PG_BINDIR/postgres" --version | awk '{print $3}'), 3 instances x $clients clients ($([ "$shared" = 1 ] && echo "all $tables tables each" || echo "a third of $tables tables each")) vs SQLite 1 instance x $((clients * 3)) clients, ${seconds}s per run, $rounds rounds; $(nproc) CPUs"
echo "load before: $(uptime)"
for r in $(seq 1 "$rounds"); do
  l=$(run_lite)
  p=$(run_pg)
  echo "round $r: sqlite deals/s=$(cut -d' ' -f2 <<<"$l") p99_ms=$(cut -d' ' -f4 <<<"$l") cpu_s/1000=$(cut -d' ' -f5 <<<"$l") | postgresql x3 deals/s=$(cut -d' ' -f2 <<<"$p") p99_ms(worst)=$(cut -d' ' -f4 <<<"$p") serve_cpu_s/1000=$(cut -d' ' -f5 <<<"$p") db_cpu_s/1000=$(cut -d' ' -f6 <<<"$p")"
  echo "$l" >>"$tmp/lite.txt"
  echo "$p" >>"$tmp/pg.txt"
done
echo "load after:  $(uptime)"
python3 - "$tmp/lite.txt" "$tmp/pg.txt" <<'PY'
import statistics, sys
def load(p):
    return [list(map(float, l.split())) for l in open(p) if l.strip()]
lite, pg = load(sys.argv[1]), load(sys.argv[2])
def med(rows, i, f="%.0f"):
    v = [r[i] for r in rows]
    return (f + " (" + f + "-" + f + ")") % (statistics.median(v), min(v), max(v))
print("median (min-max) over %d rounds:" % len(lite))
print("  sqlite, 1 instance       deals/s %s  p99 ms %s  service CPU s/1000 deals %s"
      % (med(lite, 1), med(lite, 3, "%.1f"), med(lite, 4, "%.3f")))
print("  postgresql, 3 instances  deals/s %s  p99 ms (worst) %s  service CPU s/1000 %s  database CPU s/1000 %s"
      % (med(pg, 1), med(pg, 3, "%.1f"), med(pg, 4, "%.3f"), med(pg, 5, "%.3f")))
cost = [(p[4] + p[5]) / l[4] for l, p in zip(lite, pg) if l[4] > 0]
if cost:
    print("  CPU per deal, postgresql (services + database) / sqlite: %.1fx (%.1f-%.1f)"
          % (statistics.median(cost), min(cost), max(cost)))
PY
