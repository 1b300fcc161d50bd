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
