#!/usr/bin/env bats
# fairshuf serve --seed-key-file on SQLite: the unrevealed server seeds are
# sealed at rest (docs/service.md, "Server seeds at rest"); a database whose
# seeds cannot be opened is refused with a message; a plain database is
# sealed at the first start with a key; keys rotate with
# --old-seed-key-file.

load serve

setup() {
    serve_setup
    for k in key key2; do
        openssl rand -hex 32 >"$T/$k"
        chmod 600 "$T/$k"
    done
}

teardown() {
    serve_teardown
}

# seedlen ID: the stored length of table ID's server seed.
seedlen() {
    "$PY" -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT length(server_seed) FROM tables WHERE id = ?", (int(sys.argv[2]),)).fetchone()[0])' "$DB" "$1"
}

stop_serve() {
    kill "$SPID"
    wait "$SPID"
    SPID=
}

@test "serve --seed-key-file: seeds sealed in the database; without the key or with another one the database is refused; a damaged seal is refused" {
    start_serve --seed-key-file="$T/key"
    a=$(new_table doudizhu seal-a)
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(seedlen "$a")" = 77 ]
    stop_serve
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0
    [ "$status" -eq 1 ]
    [[ $output == *"table $a: its server seed cannot be used: it is sealed and no --seed-key-file was given"* ]]
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key2"
    [ "$status" -eq 1 ]
    [[ $output == *"table $a: its server seed cannot be used: it is sealed under another key"* ]]
    # the same key deals on, and the reveal is the committed seed
    start_serve --seed-key-file="$T/key"
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(api POST "/v1/tables/$a/rotate")" = 200 ]
    get_log "$a"
    run "$F" fair check --log="$T/log.$a"
    [ "$status" -eq 0 ]
    stop_serve
    # one byte of a seal changed: refused, the row named
    "$PY" -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
s = bytearray(db.execute("SELECT server_seed FROM tables WHERE id = ?", (int(sys.argv[2]),)).fetchone()[0])
s[40] ^= 1
db.execute("UPDATE tables SET server_seed = ? WHERE id = ?", (bytes(s), int(sys.argv[2])))
db.commit()' "$DB" "$a"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"table $a: its server seed cannot be used: it does not open under its key"* ]]
}

@test "serve --seed-key-file: a plain database is sealed at the first start with a key; a rotation with --old-seed-key-file seals again under the new key" {
    start_serve
    a=$(new_table doudizhu rot-a)
    [ "$(seedlen "$a")" = 32 ]     # no key: stored as before
    stop_serve
    start_serve --seed-key-file="$T/key"
    [ "$(seedlen "$a")" = 77 ]     # sealed at start
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    stop_serve
    start_serve --seed-key-file="$T/key2" --old-seed-key-file="$T/key"
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    stop_serve
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]            # the old key alone no longer opens them
    [[ $output == *"sealed under another key"* ]]
    start_serve --seed-key-file="$T/key2"
    [ "$(api POST "/v1/tables/$a/deals")" = 200 ]
    [ "$(api POST "/v1/tables/$a/rotate")" = 200 ]
    get_log "$a"
    run "$F" fair check --log="$T/log.$a"
    [ "$status" -eq 0 ]
}

@test "serve --seed-key-file: a key file open to others, a short key, --old-seed-key-file alone: refused" {
    chmod 640 "$T/key"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/key"
    [ "$status" -eq 1 ]
    [[ $output == *"the seed key file is open to its group or others (chmod 600)"* ]]
    echo abcd >"$T/short"; chmod 600 "$T/short"
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --seed-key-file="$T/short"
    [ "$status" -eq 1 ]
    [[ $output == *"the seed key must be 64 hex digits"* ]]
    run "$F" serve --db="$DB" --token-file="$T/token" --listen=127.0.0.1:0 --old-seed-key-file="$T/key2"
    [ "$status" -eq 1 ]
    [[ $output == *"--old-seed-key-file needs --seed-key-file"* ]]
    [ ! -e "$DB" ]
}
