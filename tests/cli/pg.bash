# pg.bash -- a throwaway PostgreSQL cluster for the tests of
# `fairshuf serve --db=postgresql://...` (serve_pg.bats, bench/serve.sh,
# tests/opt-in/serve_pg_crash.bats): initdb in a mktemp folder, listening only on a
# unix socket in that folder (no TCP port), trust authentication for the
# cluster's own user, stopped by pg_stop (call it from teardown or a trap).
# As root the cluster runs as the user `postgres` (PostgreSQL refuses to run
# as root), else as the caller.
#   pg_start            sets PGDIR, PGURL (postgresql:///fairshuf?host=...)
#   pg_stop             fast shutdown; removes the folder
#   pg_sql 'SQL'        runs SQL with psql against PGURL
#   pg_down, pg_up      stops the cluster at once (as a crash), starts it
#   pg_serve N [OPT...] a fairshuf serve instance on the cluster (below)
# pg_bin_dir prints the folder of initdb and pg_ctl, or fails when none.

pg_bin_dir() {
    local d
    for d in "${PG_BIN:-}" "$(pg_config --bindir 2>/dev/null)" \
        $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && {
            echo "$d"
            return 0
        }
    done
    command -v initdb >/dev/null && command -v pg_ctl >/dev/null &&
        dirname "$(command -v initdb)" && return 0
    return 1
}

# Runs "$@" as the cluster's user.
pg_as() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "${PG_USER:-postgres}" -- "$@"
    else
        "$@"
    fi
}

pg_start() {
    local bin
    bin=$(pg_bin_dir) || return 1
    PG_BINDIR=$bin
    PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/fs-pg.XXXXXX")
    if [ "$(id -u)" = 0 ]; then
        id "${PG_USER:-postgres}" >/dev/null 2>&1 || return 1
        chown "${PG_USER:-postgres}" "$PGDIR"
    fi
    chmod 700 "$PGDIR"
    local user
    user=$(pg_as id -un)
    pg_as "$bin/initdb" -D "$PGDIR/data" -A trust -U "$user" -E UTF8 \
        --no-locale >"$PGDIR/initdb.log" 2>&1 || {
        cat "$PGDIR/initdb.log" >&2
        return 1
    }
    pg_up || return 1
    pg_as "$bin/createdb" -h "$PGDIR" -U "$user" fairshuf || return 1
    PGURL="postgresql:///fairshuf?host=$PGDIR&user=$user"
    # the socket folder must be reachable by the service (it runs as the
    # caller): the folder is the cluster user's, mode 711
    chmod 711 "$PGDIR"
}

pg_stop() {
    [ -n "${PGDIR:-}" ] && [ -d "$PGDIR/data" ] || return 0
    pg_as "$PG_BINDIR/pg_ctl" -D "$PGDIR/data" -m immediate -w -t 30 stop \
        >/dev/null 2>&1 || true
    rm -rf "$PGDIR"
    PGDIR=
}

# pg_down stops the cluster at once (as a crash would); pg_up starts it.
pg_down() {
    pg_as "$PG_BINDIR/pg_ctl" -D "$PGDIR/data" -m immediate -w -t 30 stop \
        >/dev/null
}

# No TCP; the socket in the folder.  fsync on (the default): the tests
# check durability as an operator's cluster would give it.
pg_up() {
    pg_as "$PG_BINDIR/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
        -t 60 -o "-c listen_addresses='' -c unix_socket_directories='$PGDIR' -c max_connections=${PG_MAX_CONN:-100} ${PG_OPTS:-}" \
        start >/dev/null || {
        cat "$PGDIR/server.log" >&2
        return 1
    }
}

pg_sql() {
    psql -X -q -A -t -v ON_ERROR_STOP=1 "$PGURL" -c "$1"
}

# pg_serve N [OPTION...]: fairshuf serve instance N on PGURL (with the
# serve.bash helpers' $F, $T, token, and the seed key $T/key), on port
# ${PORTS[N]} (0 or unset: a free one); sets IPIDS[N], PORTS[N], URLS[N].
pg_serve() {
    local n=$1 i
    shift
    rm -f "$T/port.$n"
    "$F" serve --db="$PGURL" --token-file="$T/token" --seed-key-file="$T/key" \
        --instance-id="dealer-$n" --listen="127.0.0.1:${PORTS[n]:-0}" \
        --port-file="$T/port.$n" "$@" >>"$T/serve.$n.out" 2>>"$T/serve.$n.err" &
    IPIDS[n]=$!
    for i in $(seq 1 400); do
        [ -s "$T/port.$n" ] && break
        kill -0 "${IPIDS[n]}" 2>/dev/null || { cat "$T/serve.$n.err"; return 1; }
        sleep 0.025
    done
    PORTS[n]=$(cat "$T/port.$n")
    URLS[n]="http://127.0.0.1:${PORTS[n]}"
}
